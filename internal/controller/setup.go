// Package controller reconciles Tenants. Each pass goes one way: observe
// what the cluster holds for the tenant, render it once, converge every
// object to the render under one server-side apply manager, prune, and
// fold Flux's status into the Tenant's.
//
// Taking things away has one vocabulary, and each destructive decision
// logs a line and raises an Event on the Tenant:
//   - prune: delete an object Landlord made that left the render;
//   - take back: remove what another writer added to a guard rail;
//   - revoke: delete the bindings through which a tenant acted in a
//     namespace it lets go;
//   - hand over: give such a namespace, its data and guard rails, to the
//     tenant whose spec lists it now;
//   - release: keep such a namespace and its data with no tenant
//     (deletionPolicy Retain), frozen by the guard;
//   - finalize: a deleted Tenant's prune of everything, grants first.
package controller

import (
	"context"
	"fmt"
	"maps"
	"slices"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/profile"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// FieldOwner is the one server-side apply manager of everything Landlord writes.
const FieldOwner = v1alpha1.FieldManager

// Options tune the Tenant reconciler.
type Options struct {
	// MaxConcurrentReconciles is how many Tenants reconcile at once.
	MaxConcurrentReconciles int
	// Profile fills what a Tenant leaves unset.
	Profile profile.Profile
	// Namespace is the controller's own, whence TenantResources copy
	// Secrets.
	Namespace string
}

// CacheByObject restricts the cache of owned kinds to Landlord's own
// objects (tenant label and managed-by mark, which tenants cannot write), so
// the controller never holds every ConfigMap of a cluster nor anything a
// tenant can inflate. Secrets of the controller's namespace are cached
// whole: TenantResources copy them. ClusterRoles are cached whole, as the
// roles a Tenant binds are the platform's and are judged. Namespaces are
// cached whole, as conflicts are judged on unlabelled ones too, but
// stripped to what tenancy reads: their number is the platform's and each
// self-service tenant's limit.
func CacheByObject(namespace string) map[client.Object]cache.ByObject {
	selector := labels.SelectorFromSet(labels.Set{v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue})
	owned, _ := labels.NewRequirement(v1alpha1.TenantLabel, selection.Exists, nil)
	selector = selector.Add(*owned)
	byObject := map[client.Object]cache.ByObject{}
	for _, kind := range namespacedAndClusterKinds() {
		switch kind.New().(type) {
		case *rbacv1.ClusterRole:
			byObject[kind.New()] = cache.ByObject{Transform: ownFields}
		case *corev1.Secret:
			byObject[kind.New()] = cache.ByObject{Transform: ownFields, Namespaces: map[string]cache.Config{
				namespace:           {LabelSelector: labels.Everything()},
				cache.AllNamespaces: {LabelSelector: selector},
			}}
		default:
			byObject[kind.New()] = cache.ByObject{Label: selector, Transform: ownFields}
		}
	}
	byObject[&corev1.Namespace{}] = cache.ByObject{Transform: namespaceMetadata}
	return byObject
}

// namespaceMetadata keeps of a Namespace what tenancy reads (names,
// labels, timestamps and finalizers), what convergeOne reads of its
// managed fields and the annotations Landlord renders; annotations a
// tenant may write are dropped.
func namespaceMetadata(obj any) (any, error) {
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return obj, nil
	}
	maps.DeleteFunc(ns.Annotations, func(key, _ string) bool { return !v1alpha1.IsLandlordKey(key) })
	if len(ns.Annotations) == 0 {
		ns.Annotations = nil
	}
	// Nothing is taken back from a namespace: Landlord's own entries will do.
	ns.ManagedFields = slices.DeleteFunc(ns.ManagedFields, func(e metav1.ManagedFieldsEntry) bool { return e.Manager != FieldOwner })
	return ns, nil
}

// ownFields keeps of an object's managed fields what convergeOne reads:
// every writer's field sets, as it takes some of them back; subresources'
// entries go, as status is its controller's.
func ownFields(obj any) (any, error) {
	o, ok := obj.(client.Object)
	if !ok {
		return obj, nil
	}
	o.SetManagedFields(slices.DeleteFunc(o.GetManagedFields(), func(e metav1.ManagedFieldsEntry) bool { return e.Subresource != "" }))
	return o, nil
}

// tenantIndex keys the cache of every owned kind by the tenant label, so
// that one tenant's objects are found without a scan of every tenant's.
const tenantIndex = "landlord.dev/tenant"

// roleIndex keys the Tenants by the ClusterRoles they bind, so that a
// ClusterRole's change finds its Tenants without copying every Tenant:
// each Tenant's render makes ClusterRoles of its own.
const roleIndex = "landlord.dev/role"

// SetupWithManager registers the Tenant reconciler and its watches.
func SetupWithManager(ctx context.Context, mgr ctrl.Manager, opts Options) error {
	r := &TenantReconciler{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Recorder:  mgr.GetEventRecorder("landlord-controller"),
		Profile:   opts.Profile,
		Namespace: opts.Namespace,
	}
	for _, kind := range ownedKinds() {
		if err := mgr.GetFieldIndexer().IndexField(ctx, kind.New(), tenantIndex, tenancy.LabelledFor); err != nil {
			return fmt.Errorf("indexing %T by tenant: %w", kind.New(), err)
		}
	}
	if err := mgr.GetFieldIndexer().IndexField(ctx, &v1alpha1.Tenant{}, roleIndex, boundRoles); err != nil {
		return fmt.Errorf("indexing Tenants by role: %w", err)
	}
	b := ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.Tenant{}, builder.WithPredicates(specChanged)).
		WithOptions(controller.Options{MaxConcurrentReconciles: opts.MaxConcurrentReconciles}).
		Named("tenant")
	// A deleted or edited guard rail maps back to its Tenant at once. The
	// watches share the typed informers the reconciler reads, so an event
	// never arrives before the cache it leads to has the object.
	// A ClusterRole a Tenant binds is judged again when it changes.
	b = b.Watches(&rbacv1.ClusterRole{}, handler.EnqueueRequestsFromMapFunc(r.tenantsBinding))
	for _, kind := range fluxKinds {
		b = b.Watches(kind.New(), handler.EnqueueRequestsFromMapFunc(tenantOf), builder.WithPredicates(notMade, predicate.Or(specChanged, fluxNews)))
	}
	for _, kind := range append(append(append([]ownedKind{}, guardKinds...), clusterKinds...), namespaceKind) {
		b = b.Watches(kind.New(), handler.EnqueueRequestsFromMapFunc(r.tenantsOf), builder.WithPredicates(notMade, predicate.Or(specChanged, tenantQuotaUse)))
	}
	b = b.Watches(&v1alpha1.TenantResource{}, r.tenantResourceEvents(), builder.WithPredicates(specChanged))
	if err := registerQuotaCollector(mgr); err != nil {
		return fmt.Errorf("registering the quota metrics: %w", err)
	}
	return b.Complete(r)
}

// tenantOf maps an object to the Tenant its label names: any Namespace
// (a tenant's self-service namespace is its own before Landlord adopts it;
// the guard keeps tenants to their own label), anything else only when
// Landlord made it, so that no label a tenant writes makes Landlord work
// for another tenant.
func tenantOf(_ context.Context, obj client.Object) []reconcile.Request {
	labels := obj.GetLabels()
	name := labels[v1alpha1.TenantLabel]
	_, isNamespace := obj.(*corev1.Namespace)
	if name == "" || !isNamespace && labels[v1alpha1.ManagedByLabel] != v1alpha1.ManagedByValue {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: name}}}
}

// specChanged passes what Landlord must look at again: creations,
// deletions, and updates of anything but status (a quota's usage, a
// namespace's phase, the Tenant's own status written by the reconciler).
var specChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		return !equality.Semantic.DeepEqual(withoutStatus(e.ObjectOld), withoutStatus(e.ObjectNew))
	},
}

// withoutStatus is obj as generic JSON without status and the metadata
// every write changes.
func withoutStatus(obj client.Object) map[string]any {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil
	}
	delete(u, "status")
	if meta, ok := u["metadata"].(map[string]any); ok {
		delete(meta, "resourceVersion")
		delete(meta, "managedFields")
	}
	return u
}

// notMade drops the creation of an object Landlord made: the reconcile
// that created it has it already, and at start the Tenants' own watch
// reconciles each of them once. Only Landlord writes its managed-by mark
// (LL010), so a namespace a tenant creates for itself still wakes its
// Tenant.
var notMade = predicate.Funcs{
	CreateFunc: func(e event.CreateEvent) bool {
		return e.Object.GetLabels()[v1alpha1.ManagedByLabel] != v1alpha1.ManagedByValue
	},
}

// fluxNews passes a Flux status write that changes what the Tenant
// reports of it (foldSources), once Flux has settled: a failing fetch
// retried every interval goes Unknown and back to the same failure, and
// wakes nothing but the return.
var fluxNews = predicate.Funcs{
	CreateFunc: func(event.CreateEvent) bool { return false },
	DeleteFunc: func(event.DeleteEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		now := reported(e.ObjectNew)
		return now.ready != string(metav1.ConditionUnknown) && reported(e.ObjectOld) != now
	},
	GenericFunc: func(event.GenericEvent) bool { return false },
}

// folded is what foldSources reads of a Flux object's status.
type folded struct {
	ready, message string
	generation     int64
	revision       string
}

func reported(obj client.Object) folded {
	var conditions []metav1.Condition
	var f folded
	switch o := obj.(type) {
	case *sourcev1.GitRepository:
		conditions = o.Status.Conditions
	case *kustomizev1.Kustomization:
		conditions, f.revision = o.Status.Conditions, o.Status.LastAppliedRevision
	}
	if c := apimeta.FindStatusCondition(conditions, v1alpha1.ReadyCondition); c != nil {
		f.ready, f.message, f.generation = string(c.Status), c.Message, c.ObservedGeneration
	}
	return f
}
