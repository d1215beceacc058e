package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/apply"
	"github.com/landlord-dev/landlord/internal/render"
)

// quotaSeen reads each of the tenant's tenant-wide ResourceQuotas live,
// by namespace: the render shares the tenant's limits out by what they
// report in use, and lowerQuotas writes against the same versions, which
// a cache behind a lower written by the pass before would misstate.
func (r *TenantReconciler) quotaSeen(ctx context.Context, tenant *v1alpha1.Tenant) (map[string]*corev1.ResourceQuota, error) {
	list := &corev1.ResourceQuotaList{}
	if err := r.APIReader.List(ctx, list,
		client.MatchingLabels{v1alpha1.TenantLabel: tenant.Name, v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue}); err != nil {
		return nil, fmt.Errorf("listing the tenant's quotas: %w", err)
	}
	seen := map[string]*corev1.ResourceQuota{}
	for i, q := range list.Items {
		if q.Name == render.QuotaName {
			seen[q.Namespace] = &list.Items[i]
		}
	}
	return seen, nil
}

// quotaStatuses are what each quota seen reports in use and the limits
// quota admission checked.
func quotaStatuses(seen map[string]*corev1.ResourceQuota) (used, checked map[string]corev1.ResourceList) {
	used, checked = make(map[string]corev1.ResourceList, len(seen)), make(map[string]corev1.ResourceList, len(seen))
	for ns, q := range seen {
		used[ns], checked[ns] = q.Status.Used, q.Status.Hard
	}
	return used, checked
}

// lowerQuotas writes, before anything else, each limit of a tenant-wide
// quota that the render lowers, the others held where they are, each
// write guarded by the resourceVersion whose use the render shared out: a
// create admitted since makes it a conflict, and the pass is retried on
// fresh use. Kubernetes' quota admission checks status.hard, which the
// quota controller copies from spec.hard in its own time, so while a
// lowered limit has not reached status no limit rises: the render's
// quotas are held at what each namespace has, and the status update wakes
// the next pass. The limits quota admission checks then never add up to
// more than the tenant's, not even between two writes.
func (r *TenantReconciler) lowerQuotas(ctx context.Context, objects []client.Object, seen map[string]*corev1.ResourceQuota) error {
	var rendered []*corev1.ResourceQuota
	lowering := false
	for _, obj := range objects {
		desired, ok := obj.(*corev1.ResourceQuota)
		if !ok || desired.Name != render.QuotaName || seen[desired.Namespace] == nil {
			continue // a new namespace's quota is created with the rest
		}
		rendered = append(rendered, desired)
		have := seen[desired.Namespace]
		lowering = lowering || lowerInStatus(have)
		lower, lowers := desired.DeepCopy(), false
		for name, want := range desired.Spec.Hard {
			held, ok := have.Spec.Hard[name]
			switch {
			case ok && held.Cmp(want) < 0:
				lower.Spec.Hard[name] = held
			case !ok || held.Cmp(want) > 0:
				lowers = true
			}
		}
		if !lowers {
			continue
		}
		lowering = true
		lower.ResourceVersion = have.ResourceVersion
		// A create admitted since the read is a conflict: the quota is
		// held where it is and the rest of the pass goes on, so that a
		// tenant creating all the time delays its resize, never the
		// revocations the pass carries; the change of use wakes the next.
		err := apply.Objects(ctx, r.Client, FieldOwner, lower)
		switch {
		case apierrors.IsConflict(err):
			desired.Spec.Hard = have.Spec.Hard.DeepCopy()
		case err != nil:
			return fmt.Errorf("lowering the quota of %s before raising others': %w", desired.Namespace, err)
		}
	}
	if !lowering {
		return nil
	}
	for _, desired := range rendered {
		for name, want := range desired.Spec.Hard {
			if held, ok := seen[desired.Namespace].Spec.Hard[name]; ok && held.Cmp(want) < 0 {
				desired.Spec.Hard[name] = held
			}
		}
	}
	return nil
}

// lowerInStatus reports a limit of q's spec that its status, which quota
// admission checks, still holds higher or not at all.
func lowerInStatus(q *corev1.ResourceQuota) bool {
	for name, want := range q.Spec.Hard {
		if held, ok := q.Status.Hard[name]; !ok || held.Cmp(want) > 0 {
			return true
		}
	}
	return false
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
// uses, so the tenant's limits are shared out again, or in the limits
// quota admission checks, which a lowered limit waits for.
var tenantQuotaUse = predicate.Funcs{
	CreateFunc: func(event.CreateEvent) bool { return false },
	DeleteFunc: func(event.DeleteEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		old, ok := e.ObjectOld.(*corev1.ResourceQuota)
		updated, _ := e.ObjectNew.(*corev1.ResourceQuota)
		return ok && updated != nil && updated.Labels[render.QuotaScopeLabel] == string(v1alpha1.QuotaScopeTenant) &&
			!equality.Semantic.DeepEqual(old.Status, updated.Status)
	},
	GenericFunc: func(event.GenericEvent) bool { return false },
}
