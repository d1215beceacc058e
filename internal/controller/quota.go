package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

// quotaUsed reads what each of the tenant's ResourceQuotas reports in use,
// by namespace, for the render to share a tenant-wide quota out.
func (r *TenantReconciler) quotaUsed(ctx context.Context, tenant *v1alpha1.Tenant) (map[string]corev1.ResourceList, error) {
	list := &corev1.ResourceQuotaList{}
	if err := r.List(ctx, list, client.MatchingFields{tenantIndex: tenant.Name},
		client.MatchingLabels{v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue}); err != nil {
		return nil, fmt.Errorf("listing the tenant's quotas: %w", err)
	}
	used := map[string]corev1.ResourceList{}
	for _, q := range list.Items {
		if q.Name == render.QuotaName {
			used[q.Namespace] = q.Status.Used
		}
	}
	return used, nil
}

// quotaStatus sums a tenant-wide quota's use over the namespaces the
// tenant holds; nil for a quota per namespace.
func quotaStatus(tenant *v1alpha1.Tenant, h render.Holdings) *v1alpha1.QuotaStatus {
	if !tenant.Spec.Quota.TenantWide() {
		return nil
	}
	st := &v1alpha1.QuotaStatus{Hard: tenant.Spec.Quota.Hard.DeepCopy(), Used: corev1.ResourceList{}}
	for name := range st.Hard {
		sum := st.Hard[name].DeepCopy()
		sum.Set(0)
		for _, ns := range h.Namespaces(tenant) {
			if q, ok := h.QuotaUsed[ns][name]; ok {
				sum.Add(q)
			}
		}
		st.Used[name] = sum
	}
	return st
}

// tenantQuotaUse passes a change in what a tenant-wide quota's namespace
// uses: the tenant's limits are shared out again.
var tenantQuotaUse = predicate.Funcs{
	CreateFunc: func(event.CreateEvent) bool { return false },
	DeleteFunc: func(event.DeleteEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		old, ok := e.ObjectOld.(*corev1.ResourceQuota)
		updated, _ := e.ObjectNew.(*corev1.ResourceQuota)
		return ok && updated != nil && updated.Labels[render.QuotaScopeLabel] == string(v1alpha1.QuotaScopeTenant) &&
			!equality.Semantic.DeepEqual(old.Status.Used, updated.Status.Used)
	},
	GenericFunc: func(event.GenericEvent) bool { return false },
}
