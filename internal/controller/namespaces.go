package controller

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// claims records, per spec namespace, whether this tenant may manage it.
type claims struct {
	tenant   *v1alpha1.Tenant
	refusals map[string]string // namespace -> why it is not this tenant's
}

// claimNamespaces creates the tenant's missing namespaces and refuses the
// ones that belong to another tenant or predate Landlord: those are never
// taken over. Create (not apply) makes two tenants racing for one name safe.
func (r *TenantReconciler) claimNamespaces(ctx context.Context, tenant *v1alpha1.Tenant) (*claims, error) {
	c := &claims{tenant: tenant, refusals: map[string]string{}}
	for _, name := range tenant.NamespaceNames() {
		ns := &corev1.Namespace{}
		err := r.Get(ctx, client.ObjectKey{Name: name}, ns)
		switch {
		case apierrors.IsNotFound(err):
			if err := r.createNamespace(ctx, tenant, name); err != nil {
				return nil, err
			}
		case err != nil:
			return nil, fmt.Errorf("reading namespace %s: %w", name, err)
		default:
			if why := refusal(tenant, ns); why != "" {
				c.refusals[name] = why
			}
		}
	}
	return c, nil
}

func (r *TenantReconciler) createNamespace(ctx context.Context, tenant *v1alpha1.Tenant, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: name,
		Labels: map[string]string{
			v1alpha1.TenantLabel:    tenant.Name,
			v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue,
			v1alpha1.OriginLabel:    string(v1alpha1.NamespaceOriginPlatform),
		},
	}}
	if err := r.Create(ctx, ns, client.FieldOwner(FieldOwner)); err != nil {
		// Lost a race, or the cache lags: judge it on the next pass.
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	return nil
}

// refusal says why an existing namespace is not the tenant's, or "".
func refusal(tenant *v1alpha1.Tenant, ns *corev1.Namespace) string {
	owner := ns.Labels[v1alpha1.TenantLabel]
	switch {
	case !ns.DeletionTimestamp.IsZero():
		return fmt.Sprintf("namespace %s is terminating", ns.Name)
	case owner == tenant.Name && ns.Labels[v1alpha1.ManagedByLabel] == v1alpha1.ManagedByValue:
		return ""
	case owner != "" && owner != tenant.Name:
		return fmt.Sprintf("namespace %s belongs to tenant %s", ns.Name, owner)
	default:
		return fmt.Sprintf("namespace %s exists and was not created by Landlord; it is never taken over", ns.Name)
	}
}

// filter drops the render's objects inside or for refused namespaces.
func (c *claims) filter(objects []client.Object) []client.Object {
	kept := objects[:0:0]
	for _, obj := range objects {
		ns := obj.GetNamespace()
		if _, isNamespace := obj.(*corev1.Namespace); isNamespace {
			ns = obj.GetName()
		}
		if _, refused := c.refusals[ns]; !refused {
			kept = append(kept, obj)
		}
	}
	return kept
}

// status lists the spec namespaces with their readiness.
func (c *claims) status() []v1alpha1.NamespaceStatus {
	out := make([]v1alpha1.NamespaceStatus, 0, len(c.tenant.Spec.Namespaces))
	for _, name := range c.tenant.NamespaceNames() {
		why := c.refusals[name]
		out = append(out, v1alpha1.NamespaceStatus{
			Name:    name,
			Origin:  v1alpha1.NamespaceOriginPlatform,
			Ready:   why == "",
			Message: why,
		})
	}
	return out
}

// conflicts joins the refusals in spec order, or "" when there are none.
func (c *claims) conflicts() string {
	var msgs []string
	for _, name := range c.tenant.NamespaceNames() {
		if why := c.refusals[name]; why != "" {
			msgs = append(msgs, why)
		}
	}
	return strings.Join(msgs, "; ")
}
