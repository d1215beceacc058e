package render

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// serviceAccount is the reconciler of one namespace. Every tenant namespace
// has one, so that Flux objects there can run as the tenant's reconciler.
func serviceAccount(t *v1alpha1.Tenant, ns string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		TypeMeta:   typeMeta(corev1.SchemeGroupVersion, "ServiceAccount"),
		ObjectMeta: meta(t, t.ReconcilerName(), ns),
	}
}

// reconcilerBinding binds the tenant role in ns to the reconciler of every
// tenant namespace, home first: the tenant's reconcilers act as one identity,
// so a Flux object may target any namespace of its tenant, and no other.
func reconcilerBinding(t *v1alpha1.Tenant, ns string, all []string) *rbacv1.RoleBinding {
	return roleBinding(t, ReconcilerBinding, ns, t.RoleName(), reconcilerSubjects(t, all))
}

// ownersBinding binds the tenant role in ns to the tenant's humans.
func ownersBinding(t *v1alpha1.Tenant, ns string) *rbacv1.RoleBinding {
	return roleBinding(t, OwnersBinding, ns, t.RoleName(), ownerSubjects(t))
}

func reconcilerSubjects(t *v1alpha1.Tenant, all []string) []rbacv1.Subject {
	subjects := make([]rbacv1.Subject, 0, len(all))
	for _, name := range all {
		subjects = append(subjects, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: t.ReconcilerName(), Namespace: name})
	}
	return subjects
}

func ownerSubjects(t *v1alpha1.Tenant) []rbacv1.Subject {
	subjects := make([]rbacv1.Subject, 0, len(t.Spec.Owners))
	for _, o := range t.Spec.Owners {
		s, _ := subject(o) // the schema refuses unknown kinds
		subjects = append(subjects, s)
	}
	return subjects
}

func roleBinding(t *v1alpha1.Tenant, name, ns, role string, subjects []rbacv1.Subject) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		TypeMeta:   typeMeta(rbacv1.SchemeGroupVersion, "RoleBinding"),
		ObjectMeta: meta(t, name, ns),
		Subjects:   subjects,
		RoleRef:    clusterRoleRef(role),
	}
}

// clusterRoleBinding grants one platform-approved cluster role to the
// home namespace's reconciler, the identity Flux impersonates.
func clusterRoleBinding(t *v1alpha1.Tenant, role string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   typeMeta(rbacv1.SchemeGroupVersion, "ClusterRoleBinding"),
		ObjectMeta: meta(t, ClusterRoleBindingName(t, role), ""),
		Subjects: []rbacv1.Subject{{
			Kind:      rbacv1.ServiceAccountKind,
			Name:      t.ReconcilerName(),
			Namespace: t.HomeNamespace(),
		}},
		RoleRef: clusterRoleRef(role),
	}
}

// ClusterRoleBindingName is the name of the binding of an extra cluster
// role: landlord:<tenant>:<role>.
func ClusterRoleBindingName(t *v1alpha1.Tenant, role string) string {
	return fmt.Sprintf("landlord:%s:%s", t.Name, role)
}

func clusterRoleRef(name string) rbacv1.RoleRef {
	return rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}
}

// subject turns an owner into an RBAC subject.
func subject(o v1alpha1.Owner) (rbacv1.Subject, error) {
	switch o.Kind {
	case rbacv1.UserKind, rbacv1.GroupKind:
		return rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: o.Kind, Name: o.Name}, nil
	case rbacv1.ServiceAccountKind:
		return rbacv1.Subject{Kind: o.Kind, Name: o.Name, Namespace: o.Namespace}, nil
	}
	return rbacv1.Subject{}, fmt.Errorf("unsupported owner kind %q", o.Kind)
}

// selfServiceBindings let the tenant's reconcilers and owners create
// namespaces, and delete the self-service ones: a ClusterRoleBinding for
// creation, a RoleBinding inside each self-service namespace for deletion.
func selfServiceBindings(t *v1alpha1.Tenant, all, selfService []string) []client.Object {
	subjects := append(reconcilerSubjects(t, all), ownerSubjects(t)...)
	objects := []client.Object{&rbacv1.ClusterRoleBinding{
		TypeMeta:   typeMeta(rbacv1.SchemeGroupVersion, "ClusterRoleBinding"),
		ObjectMeta: meta(t, ClusterRoleBindingName(t, SelfServiceRole), ""),
		Subjects:   subjects,
		RoleRef:    clusterRoleRef(SelfServiceRole),
	}}
	for _, ns := range selfService {
		objects = append(objects, roleBinding(t, SelfServiceBinding, ns, SelfServiceNamespaceRole, subjects))
	}
	return objects
}

// OwnerViewName names the ClusterRole, and its binding, through which the
// tenant's owners read their own Tenant and namespaces: landlord:<tenant>,
// a name no binding of extraClusterRoles (landlord:<tenant>:<role>) takes.
func OwnerViewName(t *v1alpha1.Tenant) string {
	return "landlord:" + t.Name
}

// ownerView lets the owners get and watch their Tenant and its namespaces
// by name, and nothing of any other tenant: RBAC cannot filter a list, so
// they list nothing, and `landlord tenant list` finds theirs by its rules.
func ownerView(t *v1alpha1.Tenant, all []string) []client.Object {
	name := OwnerViewName(t)
	role := &rbacv1.ClusterRole{
		TypeMeta:   typeMeta(rbacv1.SchemeGroupVersion, "ClusterRole"),
		ObjectMeta: meta(t, name, ""),
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{v1alpha1.GroupVersion.Group}, Resources: []string{"tenants"}, ResourceNames: []string{t.Name}, Verbs: []string{"get", "watch"}},
			{APIGroups: []string{corev1.GroupName}, Resources: []string{"namespaces"}, ResourceNames: all, Verbs: []string{"get", "watch"}},
		},
	}
	binding := &rbacv1.ClusterRoleBinding{
		TypeMeta:   typeMeta(rbacv1.SchemeGroupVersion, "ClusterRoleBinding"),
		ObjectMeta: meta(t, name, ""),
		Subjects:   ownerSubjects(t),
		RoleRef:    clusterRoleRef(name),
	}
	return []client.Object{role, binding}
}
