package controller

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// finalize removes or releases what the Tenant created, then lets it go.
// Delete goes in stages, each waited for: the cluster-wide grants first, so
// that nothing a tenant can hold up (a finalizer on its own object) keeps
// them alive; then Flux objects (so Flux prunes the tenant's workloads while
// its namespaced identity still exists), then the rest. Retain releases
// namespaces and their content and deletes only the cluster-wide grants,
// which must not outlive their Tenant.
func (r *TenantReconciler) finalize(ctx context.Context, tenant *v1alpha1.Tenant) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(tenant, v1alpha1.Finalizer) {
		return ctrl.Result{}, nil
	}
	stages := [][]ownedKind{clusterKinds, fluxKinds, append(append([]ownedKind{}, guardKinds...), namespaceKind)}
	for _, kinds := range stages {
		objects, err := r.owned(ctx, tenant, kinds)
		if err != nil {
			return r.fail(tenant, v1alpha1.FinalizeFailedReason, err)
		}
		if len(objects) == 0 {
			continue
		}
		for _, o := range objects {
			if tenant.Retains() && !isClusterScoped(o) {
				err = r.release(ctx, o)
			} else {
				err = r.remove(ctx, o)
			}
			if err != nil {
				return r.fail(tenant, v1alpha1.FinalizeFailedReason, err)
			}
		}
		setCondition(tenant, v1alpha1.ReconcilingCondition, metav1.ConditionTrue, v1alpha1.FinalizingReason,
			fmt.Sprintf("waiting for %d objects, starting with %s", len(objects), objects[0]))
		return ctrl.Result{RequeueAfter: deletionRequeue}, nil
	}

	before := tenant.DeepCopy()
	controllerutil.RemoveFinalizer(tenant, v1alpha1.Finalizer)
	if err := r.Patch(ctx, tenant, client.MergeFrom(before), client.FieldOwner(FieldOwner)); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(fmt.Errorf("removing finalizer: %w", err))
	}
	forgetMetrics(tenant.Name)
	return ctrl.Result{}, nil
}

// isClusterScoped tells cluster-wide grants apart; namespaces are released.
func isClusterScoped(o ownedObject) bool {
	return o.id.namespace == "" && o.id.kind.Kind != "Namespace"
}
