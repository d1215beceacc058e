package controller

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

// finalize removes or releases what the Tenant created, then lets it go.
// It goes in stages, each waited for: the cluster-wide grants first, so
// that nothing a tenant can hold up (a finalizer on its own object) keeps
// them alive; then each namespace another tenant lists is handed over, and
// under Retain each other one released (see letGo): data kept, access and
// syncing ended. What is left is deleted: Flux objects first (so Flux
// prunes the tenant's workloads while its namespaced identity still
// exists), then the rest.
func (r *TenantReconciler) finalize(ctx context.Context, tenant *v1alpha1.Tenant) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(tenant, v1alpha1.Finalizer) {
		return ctrl.Result{}, nil
	}
	// The identity markers grant nothing and stay to the end: the API
	// server holds the namespaces by them while Flux prunes.
	if waiting, err := r.removeStage(ctx, tenant, clusterKinds, render.IdentityName(tenant)); waiting || err != nil {
		return r.finalizing(tenant, err)
	}
	namespaces, err := r.owned(ctx, tenant, []ownedKind{namespaceKind})
	if err != nil {
		return r.finalizing(tenant, err)
	}
	letGo := false
	for _, ns := range namespaces {
		heir, err := r.heir(ctx, tenant, ns.obj.GetName())
		if err == nil && (heir != nil || keepsData(tenant, ns.obj)) && ns.obj.GetDeletionTimestamp() == nil {
			err = r.letGo(ctx, tenant, ns, heir)
			letGo = true
		}
		if err != nil {
			return r.finalizing(tenant, err)
		}
	}
	if letGo {
		// The cache still shows them as the tenant's: the next pass, not
		// this one, deletes what is left.
		return r.finalizing(tenant, nil)
	}
	for _, stage := range [][]ownedKind{fluxKinds, append(append([]ownedKind{}, guardKinds...), namespaceKind), clusterKinds} {
		if waiting, err := r.removeStage(ctx, tenant, stage, ""); waiting || err != nil {
			return r.finalizing(tenant, err)
		}
	}

	if left, err := r.leftLive(ctx, tenant); left || err != nil {
		return r.finalizing(tenant, err)
	}
	before := tenant.DeepCopy()
	controllerutil.RemoveFinalizer(tenant, v1alpha1.Finalizer)
	if err := r.Patch(ctx, tenant, client.MergeFrom(before), client.FieldOwner(FieldOwner)); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(fmt.Errorf("removing finalizer: %w", err))
	}
	forgetMetrics(tenant.Name)
	return ctrl.Result{}, nil
}

// removeStage deletes the tenant's objects of kinds but those named kept
// and reports whether any was left to wait for, recording which on the
// Tenant.
func (r *TenantReconciler) removeStage(ctx context.Context, tenant *v1alpha1.Tenant, stage []ownedKind, kept string) (bool, error) {
	objects, err := r.owned(ctx, tenant, stage)
	if err != nil {
		return false, err
	}
	objects = slices.DeleteFunc(objects, func(o ownedObject) bool { return kept != "" && o.obj.GetName() == kept })
	if len(objects) == 0 {
		return false, nil
	}
	for _, o := range objects {
		if keep, err := r.letGoLive(ctx, tenant, o); keep || err != nil {
			if err != nil {
				return false, err
			}
			continue
		}
		if o.obj.GetDeletionTimestamp() != nil {
			continue // deleted on an earlier pass, still finishing
		}
		if err := r.remove(ctx, o); err != nil {
			return false, err
		}
		r.tell(ctx, tenant, o.obj, "Finalizing", "deleted %s: the Tenant is being deleted (deletionPolicy %s)", o, tenant.Spec.DeletionPolicy)
	}
	setCondition(tenant, v1alpha1.ReconcilingCondition, metav1.ConditionTrue, v1alpha1.FinalizingReason,
		fmt.Sprintf("waiting for %d objects, starting with %s", len(objects), objects[0]))
	return true, nil
}

// finalizing requeues a finalize that waits, or fails it on err.
func (r *TenantReconciler) finalizing(tenant *v1alpha1.Tenant, err error) (ctrl.Result, error) {
	if err != nil {
		return r.fail(tenant, v1alpha1.FinalizeFailedReason, err)
	}
	return ctrl.Result{RequeueAfter: deletionRequeue}, nil
}

// leftLive reports whether the API server still holds an object Landlord
// made for the tenant, past the cache: a create the cache has not shown
// yet, from a pass just before the deletion, would otherwise outlive its
// Tenant (the fault suite found such a namespace once).
func (r *TenantReconciler) leftLive(ctx context.Context, tenant *v1alpha1.Tenant) (bool, error) {
	for _, kind := range ownedKinds() {
		list := kind.NewList()
		err := r.APIReader.List(ctx, list, client.Limit(1),
			client.MatchingLabels{v1alpha1.TenantLabel: tenant.Name, v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue})
		switch {
		case meta.IsNoMatchError(err):
			continue // Flux is not installed: nothing of its kinds exists
		case err != nil:
			return false, fmt.Errorf("listing %T: %w", list, err)
		case meta.LenList(list) > 0:
			return true, nil
		}
	}
	return false, nil
}

// letGoLive reports a namespace the cache still shows as the tenant's that
// the API server has it released or handed over: never deleted on a stale
// read.
func (r *TenantReconciler) letGoLive(ctx context.Context, tenant *v1alpha1.Tenant, o ownedObject) (bool, error) {
	if _, isNamespace := o.obj.(*corev1.Namespace); !isNamespace {
		return false, nil
	}
	live := &corev1.Namespace{}
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(o.obj), live); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	labels := live.Labels
	return labels[v1alpha1.TenantLabel] != tenant.Name || labels[v1alpha1.ReleasedLabel] != "" ||
		labels[v1alpha1.ManagedByLabel] != v1alpha1.ManagedByValue, nil
}
