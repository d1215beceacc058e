package controller

import (
	"context"
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/policy"
)

// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterroles,verbs=get;list;watch

// judgeRoles reads each ClusterRole the Tenant binds and judges its rules
// (LL018): spec.role in every tenant namespace, spec.extraClusterRoles
// cluster-wide. A role that grants too much, or does not exist yet (it
// could be created granting anything), is refused: nothing binds it, and
// bindings of it made before are revoked.
func (r *TenantReconciler) judgeRoles(ctx context.Context, tenant *v1alpha1.Tenant) (string, error) {
	spec := field.NewPath("spec")
	type bound struct {
		name        string
		path        *field.Path
		clusterWide bool
	}
	roles := []bound{{tenant.RoleName(), spec.Child("role"), false}}
	for i, name := range tenant.Spec.ExtraClusterRoles {
		roles = append(roles, bound{name, spec.Child("extraClusterRoles").Index(i), true})
	}
	var refusals []string
	refused := map[string]bool{}
	for _, b := range roles {
		role := &rbacv1.ClusterRole{}
		err := r.Get(ctx, client.ObjectKey{Name: b.name}, role)
		switch {
		case apierrors.IsNotFound(err):
			refusals = append(refusals, fmt.Sprintf("%s: ClusterRole %s does not exist", b.path, b.name))
			refused[b.name] = true
			continue
		case err != nil:
			return "", fmt.Errorf("reading ClusterRole %s: %w", b.name, err)
		}
		if errs := policy.RoleGrants(b.path, b.name, role.Rules, b.clusterWide); len(errs) > 0 {
			refusals = append(refusals, errs.ToAggregate().Error())
			refused[b.name] = true
		}
	}
	if len(refusals) == 0 {
		return "", nil
	}
	return strings.Join(refusals, "; "), r.revoke(ctx, tenant, refused)
}

// revoke deletes the tenant's bindings of the refused roles.
func (r *TenantReconciler) revoke(ctx context.Context, tenant *v1alpha1.Tenant, roles map[string]bool) error {
	owned, err := r.owned(ctx, tenant, append(append([]ownedKind{}, guardKinds...), clusterKinds...))
	if err != nil {
		return err
	}
	for _, o := range owned {
		var ref rbacv1.RoleRef // zero for the kinds that bind nothing
		switch b := o.obj.(type) {
		case *rbacv1.RoleBinding:
			ref = b.RoleRef
		case *rbacv1.ClusterRoleBinding:
			ref = b.RoleRef
		}
		if ref.Kind == "ClusterRole" && roles[ref.Name] {
			if err := r.remove(ctx, o); err != nil {
				return err
			}
		}
	}
	return nil
}

// tenantsBinding maps a ClusterRole to the Tenants that bind it, so that a
// role that changes (aggregation adds rules later) is judged again.
func (r *TenantReconciler) tenantsBinding(ctx context.Context, obj client.Object) []reconcile.Request {
	list := &v1alpha1.TenantList{}
	if err := r.List(ctx, list, client.MatchingFields{roleIndex: obj.GetName()}); err != nil {
		return nil
	}
	out := make([]reconcile.Request, len(list.Items))
	for i, t := range list.Items {
		out[i] = reconcile.Request{NamespacedName: types.NamespacedName{Name: t.Name}}
	}
	return out
}

// boundRoles are the ClusterRoles a Tenant binds: its role and its
// extraClusterRoles.
func boundRoles(obj client.Object) []string {
	t := obj.(*v1alpha1.Tenant)
	return append([]string{t.RoleName()}, t.Spec.ExtraClusterRoles...)
}
