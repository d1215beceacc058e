// Package controller reconciles Tenants: it applies their render, corrects
// drift, prunes what left the spec and folds Flux's status into theirs.
package controller

import (
	"context"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// FieldOwner is the one server-side apply manager of everything Landlord writes.
const FieldOwner = "landlord"

// Options tune the Tenant reconciler.
type Options struct {
	// MaxConcurrentReconciles is how many Tenants reconcile at once.
	MaxConcurrentReconciles int
}

// CacheByObject restricts the cache of owned kinds to objects carrying the
// tenant label, so the controller never holds every ConfigMap of a cluster.
// Namespaces are cached whole: conflicts are judged on unlabelled ones too.
func CacheByObject() map[client.Object]cache.ByObject {
	owned, _ := labels.NewRequirement(v1alpha1.TenantLabel, selection.Exists, nil)
	selector := labels.NewSelector().Add(*owned)
	byObject := map[client.Object]cache.ByObject{}
	for _, kind := range namespacedAndClusterKinds() {
		byObject[kind.object()] = cache.ByObject{Label: selector}
	}
	return byObject
}

// SetupWithManager registers the Tenant reconciler and its watches.
func SetupWithManager(ctx context.Context, mgr ctrl.Manager, opts Options) error {
	r := &TenantReconciler{
		Client:   mgr.GetClient(),
		Recorder: mgr.GetEventRecorder("landlord-controller"),
	}
	b := ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.Tenant{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: opts.MaxConcurrentReconciles}).
		Named("tenant")
	// A deleted or edited guard rail maps back to its Tenant at once. The
	// watches share the typed informers the reconciler reads, so an event
	// never arrives before the cache it leads to has the object.
	for _, kind := range ownedKinds() {
		b = b.Watches(kind.object(), handler.EnqueueRequestsFromMapFunc(tenantOf))
	}
	return b.Complete(r)
}

// tenantOf maps an owned object to the Tenant named by its label.
func tenantOf(_ context.Context, obj client.Object) []reconcile.Request {
	name := obj.GetLabels()[v1alpha1.TenantLabel]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: name}}}
}
