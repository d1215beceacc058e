package webhook

import (
	"context"
	"slices"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/apply"
	"github.com/landlord-dev/landlord/internal/policy"
)

// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingadmissionpolicies,resourceNames=landlord-workloads,verbs=list;watch

// clusterDefaults keeps the cluster's default priority and storage
// classes in the workloads policy (policy.Platform's Defaults) as the
// shared cache sees them: admission plugins write them into the pods and
// claims naming none, and the policy allows them beside the Tenant's own.
type clusterDefaults struct {
	shared   *sharedCache
	writer   client.Client
	platform policy.Platform
}

// Start writes the workloads policy again, with its binding, once the
// cache has synced and at every change of a priority or storage class,
// and of the policy itself, wherever its defaults differ from the
// cluster's or it is missing.
func (d *clusterDefaults) Start(ctx context.Context) error {
	changed := make(chan struct{}, 1)
	notify := func(any) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	for _, obj := range []client.Object{&schedulingv1.PriorityClass{}, &storagev1.StorageClass{}, &admissionregistrationv1.ValidatingAdmissionPolicy{}} {
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
		retry := func(err error, doing string) {
			ctrl.LoggerFrom(ctx).Error(err, doing+" the cluster's default classes for the workloads policy; retrying")
			time.AfterFunc(time.Second, func() { notify(nil) })
		}
		reads := d.shared.For(ctx)
		platform := d.platform
		platform.Defaults = reads.Defaults()
		if err := reads.Err(); err != nil {
			retry(err, "reading") // a failed read names no default: never written
			continue
		}
		want, binding := policy.Workloads(platform)
		live := &admissionregistrationv1.ValidatingAdmissionPolicy{}
		if err := d.shared.c.Get(ctx, client.ObjectKeyFromObject(want), live); err == nil && sameDefaults(live, want) {
			continue
		}
		if err := apply.Objects(ctx, d.writer, fieldOwner, want, binding); err != nil {
			retry(err, "writing")
		}
	}
}

// sameDefaults reports whether the live policy holds want's defaults.
func sameDefaults(live, want *admissionregistrationv1.ValidatingAdmissionPolicy) bool {
	for _, name := range []string{policy.DefaultPriorityClassVariable, policy.DefaultStorageClassVariable} {
		find := func(v admissionregistrationv1.Variable) bool { return v.Name == name }
		i, j := slices.IndexFunc(live.Spec.Variables, find), slices.IndexFunc(want.Spec.Variables, find)
		if i < 0 || live.Spec.Variables[i] != want.Spec.Variables[j] {
			return false
		}
	}
	return true
}
