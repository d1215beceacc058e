package webhook

import (
	"context"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	networkingv1 "k8s.io/api/networking/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/policy"
)

// +kubebuilder:rbac:groups=networking.k8s.io,resources=ingresses;ingressclasses,verbs=list;watch
// +kubebuilder:rbac:groups=scheduling.k8s.io,resources=priorityclasses,verbs=list;watch
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses,verbs=list;watch

// ingressHostKey indexes Ingresses by the hostnames of their rules and TLS
// entries, lowercased.
const ingressHostKey = "spec.hosts"

// sharedCache is the guard's policy.Shared: its own informer cache of every
// Ingress's hostnames and of the priority, storage and ingress classes,
// each stripped to the fields read, so that the cluster's Ingresses cost
// little memory. Until it has synced, a hostname reads as held by unknown.
type sharedCache struct {
	c      cache.Cache
	claims *claims
}

// newSharedCache starts the cache with the manager and indexes hostnames.
func newSharedCache(ctx context.Context, mgr ctrl.Manager) (*sharedCache, error) {
	c, err := cache.New(mgr.GetConfig(), sharedCacheOptions(mgr.GetScheme(), mgr.GetRESTMapper()))
	if err != nil {
		return nil, err
	}
	if err := c.IndexField(ctx, &networkingv1.Ingress{}, ingressHostKey, func(obj client.Object) []string {
		return heldKeys(hostsOf(obj.(*networkingv1.Ingress)))
	}); err != nil {
		return nil, err
	}
	for _, obj := range []client.Object{&schedulingv1.PriorityClass{}, &storagev1.StorageClass{}, &networkingv1.IngressClass{}, &admissionregistrationv1.ValidatingAdmissionPolicy{}} {
		if _, err := c.GetInformer(ctx, obj, cache.BlockUntilSynced(false)); err != nil {
			return nil, err
		}
	}
	if err := mgr.Add(everyReplica{c}); err != nil {
		return nil, err
	}
	return &sharedCache{c: c, claims: &claims{c: c, mapper: mgr.GetRESTMapper(), indexed: map[int]bool{}}}, nil
}

// sharedCacheOptions strip what the shared cache holds: the kinds every
// cluster serves by object, the Gateway API's by default, since it may
// not be served; of the admission policies, the workloads policy alone,
// which holds the default classes.
func sharedCacheOptions(scheme *runtime.Scheme, mapper meta.RESTMapper) cache.Options {
	return cache.Options{Scheme: scheme, Mapper: mapper, DefaultTransform: stripClaims, ByObject: map[client.Object]cache.ByObject{
		&admissionregistrationv1.ValidatingAdmissionPolicy{}: {Field: fields.OneTermEqualSelector("metadata.name", policy.WorkloadsName)},
		&networkingv1.Ingress{}:                              {Transform: ingressHosts},
		&schedulingv1.PriorityClass{}:                        {Transform: priorityClassDefault},
		&storagev1.StorageClass{}:                            {Transform: classDefault(policy.StorageDefaultKeys...)},
		&networkingv1.IngressClass{}:                         {Transform: classDefault(policy.IngressDefaultKeys...)},
	}}
}

// For is the cache as one request reads it, bounded by its context.
func (x *sharedCache) For(ctx context.Context) *sharedReads {
	return &sharedReads{c: x.c, claims: x.claims, ctx: ctx}
}

// sharedReads is one request's policy.Shared; Err reports a list that
// failed, as Reads.Err does.
type sharedReads struct {
	firstError
	c      cache.Cache
	claims *claims
	ctx    context.Context
}

var _ policy.Shared = &sharedReads{}

// list lists into obj, keeping the first failure.
func (x *sharedReads) list(obj client.ObjectList, opts ...client.ListOption) bool {
	err := x.c.List(x.ctx, obj, opts...)
	if err != nil {
		x.keep(fmt.Errorf("listing %T: %w", obj, err))
	}
	return err == nil
}

// everyReplica runs a cache on every replica, not only the leader: the
// webhooks that read it answer on all of them.
type everyReplica struct{ cache.Cache }

func (everyReplica) NeedLeaderElection() bool { return false }

// HostHolders lists what claims a hostname overlapping host: Ingresses,
// and the Gateway API's routes and listeners.
func (x *sharedReads) HostHolders(host string) ([]policy.HostHolder, error) {
	keys := overlapKeys(strings.ToLower(host))
	var out []policy.HostHolder
	for _, key := range keys {
		list := &networkingv1.IngressList{}
		if !x.list(list, client.MatchingFields{ingressHostKey: key}) {
			return nil, x.Err()
		}
		for _, ing := range list.Items {
			out = append(out, policy.HostHolder{Namespace: ing.Namespace})
		}
	}
	served, err := x.claims.served(x.ctx)
	if err != nil {
		x.keep(fmt.Errorf("indexing the Gateway API's hostnames: %w", err))
		return nil, x.Err()
	}
	for _, c := range served {
		for _, key := range keys {
			claimed := c.list()
			if !x.list(claimed, client.MatchingFields{claimHostKey: key}) {
				return nil, x.Err()
			}
			items, err := meta.ExtractList(claimed)
			if err != nil {
				return nil, err
			}
			for _, item := range items {
				out = append(out, policy.HostHolder{Namespace: item.(client.Object).GetNamespace(), Listener: c.listener})
			}
		}
	}
	return out, nil
}

// belowPrefix marks the index keys of the domains a hostname is below.
const belowPrefix = "below:"

// heldKeys index held hostnames: each by itself, and, under belowPrefix,
// by every domain it falls below (a wildcard *.d below d too), so that a
// wildcard claim finds the names it would cover.
func heldKeys(hosts []string) []string {
	var keys []string
	for _, h := range hosts {
		keys = append(keys, h)
		base, wildcard := strings.CutPrefix(h, "*.")
		if wildcard {
			keys = append(keys, belowPrefix+base)
		}
		for d := base; ; {
			_, parent, ok := strings.Cut(d, ".")
			if !ok {
				break
			}
			keys = append(keys, belowPrefix+parent)
			d = parent
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// overlapKeys are the index keys of what overlaps host: the name itself,
// the wildcards covering it, and, for a wildcard, the names below it.
func overlapKeys(host string) []string {
	keys := []string{host}
	base, wildcard := strings.CutPrefix(host, "*.")
	if wildcard {
		keys = append(keys, belowPrefix+base)
	}
	for d := base; ; {
		_, parent, ok := strings.Cut(d, ".")
		if !ok {
			break
		}
		keys = append(keys, "*."+parent)
		d = parent
	}
	return keys
}

// Defaults are the cluster's default classes, picked as the admission
// plugins pick them (policy.ClusterDefaults, and the newest default
// ingress class). A list that fails reads as no default and fails the
// request's reads.
func (x *sharedReads) Defaults() policy.Defaults {
	d, err := policy.ClusterDefaults(x.ctx, x.c)
	if err != nil {
		x.keep(err)
	}
	ingress := &networkingv1.IngressClassList{}
	if x.list(ingress) {
		d.IngressClass = policy.NewestDefault(policy.Metas(ingress.Items), policy.IngressDefaultKeys...)
	}
	return d
}

// hostsOf are an Ingress's hostnames, lowercased, each once.
func hostsOf(ing *networkingv1.Ingress) []string {
	var hosts []string
	for _, r := range ing.Spec.Rules {
		hosts = append(hosts, strings.ToLower(r.Host))
	}
	for _, t := range ing.Spec.TLS {
		for _, h := range t.Hosts {
			hosts = append(hosts, strings.ToLower(h))
		}
	}
	slices.Sort(hosts)
	return slices.DeleteFunc(slices.Compact(hosts), func(h string) bool { return h == "" })
}

// ingressHosts keeps of an Ingress its name and hostnames.
func ingressHosts(obj any) (any, error) {
	ing, ok := obj.(*networkingv1.Ingress)
	if !ok {
		return obj, nil
	}
	kept := &networkingv1.Ingress{ObjectMeta: keptMeta(ing)}
	for _, h := range hostsOf(ing) {
		kept.Spec.Rules = append(kept.Spec.Rules, networkingv1.IngressRule{Host: h})
	}
	return kept, nil
}

// priorityClassDefault keeps of a PriorityClass what picks the default.
func priorityClassDefault(obj any) (any, error) {
	pc, ok := obj.(*schedulingv1.PriorityClass)
	if !ok {
		return obj, nil
	}
	return &schedulingv1.PriorityClass{ObjectMeta: keptMeta(pc), Value: pc.Value, GlobalDefault: pc.GlobalDefault}, nil
}

// classDefault keeps of a StorageClass or IngressClass its name, age and
// those of keys that mark it the default.
func classDefault(keys ...string) toolscache.TransformFunc {
	return func(obj any) (any, error) {
		o, ok := obj.(client.Object)
		if !ok {
			return obj, nil
		}
		meta := keptMeta(o)
		for _, k := range keys {
			if v, ok := o.GetAnnotations()[k]; ok {
				if meta.Annotations == nil {
					meta.Annotations = map[string]string{}
				}
				meta.Annotations[k] = v
			}
		}
		switch o.(type) {
		case *storagev1.StorageClass:
			return &storagev1.StorageClass{ObjectMeta: meta}, nil
		case *networkingv1.IngressClass:
			return &networkingv1.IngressClass{ObjectMeta: meta}, nil
		}
		return obj, nil
	}
}

// keptMeta is the metadata an informer needs: identity and version.
func keptMeta(o metav1.Object) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: o.GetName(), Namespace: o.GetNamespace(), UID: o.GetUID(), ResourceVersion: o.GetResourceVersion(), CreationTimestamp: o.GetCreationTimestamp()}
}
