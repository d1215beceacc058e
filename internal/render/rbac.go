package render

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

var ownerKinds = []string{rbacv1.UserKind, rbacv1.GroupKind, rbacv1.ServiceAccountKind}

// serviceAccount is the reconciler identity Flux impersonates.
func serviceAccount(t *v1alpha1.Tenant, ns string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		TypeMeta:   typeMeta(corev1.SchemeGroupVersion, "ServiceAccount"),
		ObjectMeta: meta(t, t.ReconcilerName(), ns),
	}
}

// reconcilerBinding grants the tenant role to the namespace's reconciler.
func reconcilerBinding(t *v1alpha1.Tenant, ns string) *rbacv1.RoleBinding {
	return roleBinding(t, ns, ReconcilerBinding, []rbacv1.Subject{{
		Kind: rbacv1.ServiceAccountKind, Name: t.ReconcilerName(), Namespace: ns,
	}})
}

// ownersBinding grants the tenant role to the humans of the tenant.
func ownersBinding(t *v1alpha1.Tenant, ns string) *rbacv1.RoleBinding {
	subjects := make([]rbacv1.Subject, 0, len(t.Spec.Owners))
	for _, o := range t.Spec.Owners {
		s, _ := subject(o) // validate has refused unknown kinds
		subjects = append(subjects, s)
	}
	return roleBinding(t, ns, OwnersBinding, subjects)
}

func roleBinding(t *v1alpha1.Tenant, ns, name string, subjects []rbacv1.Subject) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		TypeMeta:   typeMeta(rbacv1.SchemeGroupVersion, "RoleBinding"),
		ObjectMeta: meta(t, name, ns),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: t.RoleName()},
		Subjects:   subjects,
	}
}

// clusterRoleBinding is one platform-approved cluster-wide grant to the
// reconciler of the tenant's first namespace.
func clusterRoleBinding(t *v1alpha1.Tenant, role string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   typeMeta(rbacv1.SchemeGroupVersion, "ClusterRoleBinding"),
		ObjectMeta: meta(t, fmt.Sprintf("landlord:%s:%s", t.Name, role), ""),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects: []rbacv1.Subject{{
			Kind: rbacv1.ServiceAccountKind, Name: t.ReconcilerName(), Namespace: t.HomeNamespace(),
		}},
	}
}

// subject turns an owner into an RBAC subject.
func subject(o v1alpha1.Owner) (rbacv1.Subject, error) {
	switch o.Kind {
	case rbacv1.UserKind, rbacv1.GroupKind:
		return rbacv1.Subject{Kind: o.Kind, APIGroup: rbacv1.GroupName, Name: o.Name}, nil
	case rbacv1.ServiceAccountKind:
		return rbacv1.Subject{Kind: o.Kind, Name: o.Name, Namespace: o.Namespace}, nil
	}
	return rbacv1.Subject{}, fmt.Errorf("unknown owner kind %q", o.Kind)
}
