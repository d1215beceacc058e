package webhook

import (
	"context"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/apply"
	"github.com/landlord-dev/landlord/internal/policy"
)

// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update;patch;delete

// clusterDefaults keeps the workloads policy's parameter
// (policy.DefaultsConfigMap) as the shared cache sees the cluster's
// default priority and storage classes: admission plugins write them into
// the pods and claims naming none, and the policy allows them beside the
// Tenant's own.
type clusterDefaults struct {
	shared    *sharedCache
	writer    client.Client
	namespace string
}

// ensureDefaults creates the parameter, naming no default, where it is
// missing: the policy refuses every write it judges while its parameter
// is, and the cache that knows the defaults syncs only after the policies
// are registered. The Start loop then writes the cluster's.
func ensureDefaults(ctx context.Context, c client.Client, namespace string) error {
	err := c.Create(ctx, policy.DefaultsConfigMap(namespace, policy.Defaults{}), client.FieldOwner(fieldOwner))
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the cluster defaults' ConfigMap: %w", err)
	}
	return nil
}

// Start writes the defaults once the cache has synced, then again at
// every change of a priority or storage class, and of the parameter
// itself: while it is missing, the API server refuses every write the
// policy matches, the pods Kubernetes' controllers make included, since it
// looks for the parameter before it asks who writes.
func (d *clusterDefaults) Start(ctx context.Context) error {
	changed := make(chan struct{}, 1)
	notify := func(any) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	for _, obj := range []client.Object{&schedulingv1.PriorityClass{}, &storagev1.StorageClass{}, &corev1.ConfigMap{}} {
		informer, err := d.shared.c.GetInformer(ctx, obj)
		if err != nil {
			return err
		}
		if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc: notify, DeleteFunc: notify, UpdateFunc: func(_, obj any) { notify(obj) },
		}); err != nil {
			return err
		}
	}
	if !d.shared.c.WaitForCacheSync(ctx) {
		return ctx.Err()
	}
	notify(nil)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		}
		reads := d.shared.For(ctx)
		want := policy.DefaultsConfigMap(d.namespace, reads.Defaults())
		live := &corev1.ConfigMap{}
		err := d.shared.c.Get(ctx, client.ObjectKeyFromObject(want), live)
		if reads.Err() != nil || err == nil && maps.Equal(live.Data, want.Data) {
			continue
		}
		if err := apply.Objects(ctx, d.writer, fieldOwner, want); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "writing the cluster's default classes for the workloads policy; retrying")
			time.AfterFunc(time.Second, func() { notify(nil) })
		}
	}
}
