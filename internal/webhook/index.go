package webhook

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// Field index keys: each lookup the rules make is one indexed cache read.
const (
	// tenantNamespaceKey indexes Tenants by spec.namespaces[].name.
	tenantNamespaceKey = "spec.namespaces.name"
	// tenantOwnerKey indexes Tenants by owner subject, see tenancy.OwnerKey.
	tenantOwnerKey = "spec.owners"
	// namespaceTenantKey indexes Namespaces by their tenant label.
	namespaceTenantKey = "metadata.labels.tenant"
)

// Index is the guard's view of tenancy: the manager's informer cache, so
// that an admission request costs no API call, and a live read where the
// cache misses a namespace or tenant, so that a miss is never taken for
// "not a tenant's". Each request reads it through For, which keeps what
// could not be read.
type Index struct {
	c    client.Reader
	live client.Reader
}

// NewIndex registers the field indexers on c and returns the index that
// reads them, falling back to live on a miss.
func NewIndex(ctx context.Context, c cache.Cache, live client.Reader) (*Index, error) {
	if err := c.IndexField(ctx, &v1alpha1.Tenant{}, tenantNamespaceKey, func(obj client.Object) []string {
		return obj.(*v1alpha1.Tenant).NamespaceNames()
	}); err != nil {
		return nil, err
	}
	if err := c.IndexField(ctx, &v1alpha1.Tenant{}, tenantOwnerKey, func(obj client.Object) []string {
		return tenancy.OwnerKeys(obj.(*v1alpha1.Tenant))
	}); err != nil {
		return nil, err
	}
	if err := c.IndexField(ctx, &corev1.Namespace{}, namespaceTenantKey, tenancy.LabelledFor); err != nil {
		return nil, err
	}
	return &Index{c: c, live: live}, nil
}

// For is the index as one request reads it, bounded by the request's
// context.
func (x *Index) For(ctx context.Context) *Reads {
	return &Reads{index: x, ctx: ctx}
}

// Reads is one request's tenancy.Store. A read that fails answers as
// absent to the policy, and Err reports it: the caller then denies, since
// what the policy decided without it is no decision. Each name is read
// once per request, and at most MaxLiveReads of them past the cache: a
// request naming thousands of namespaces (a RoleBinding's subjects) costs
// a bounded amount, cancelled with the request.
type Reads struct {
	firstError
	index *Index
	ctx   context.Context
	mu    sync.Mutex
	// read memoizes Tenant and Namespace by kind and name.
	read map[string]client.Object
	live int
}

// firstError keeps the first error of a request's reads, which its caller
// turns into a refusal.
type firstError struct {
	mu  sync.Mutex
	err error
}

// Err is the first read that failed, nil when every one succeeded.
func (f *firstError) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// keep records err unless an earlier one is kept.
func (f *firstError) keep(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

// MaxLiveReads bounds the reads past the cache one request may cause.
const MaxLiveReads = 64

// ErrTooManyReads marks a request that would need more than MaxLiveReads
// reads: refused, not judged in part.
var ErrTooManyReads = fmt.Errorf("the request names more than %d namespaces or tenants the guard does not hold in its cache; allowed: at most %d", MaxLiveReads, MaxLiveReads)

var _ tenancy.Store = &Reads{}

// Resolver answers the policy's tenancy questions from these reads.
func (r *Reads) Resolver() tenancy.Resolver {
	return tenancy.Resolver{Store: r}
}

func (r *Reads) fail(what string, err error) {
	r.keep(fmt.Errorf("reading %s: %w", what, err))
}

// Tenant reads one Tenant by name, nil if there is none.
func (r *Reads) Tenant(name string) *v1alpha1.Tenant {
	if name == "" {
		return nil
	}
	t, _ := r.get("tenant "+name, client.ObjectKey{Name: name}, &v1alpha1.Tenant{}).(*v1alpha1.Tenant)
	return t
}

// Namespace reads one Namespace by name, nil if there is none.
func (r *Reads) Namespace(name string) *corev1.Namespace {
	ns, _ := r.get("namespace "+name, client.ObjectKey{Name: name}, &corev1.Namespace{}).(*corev1.Namespace)
	return ns
}

// get reads obj from the cache, else live, once per request; nil when
// neither has it. Cache reads share the cached object's maps and slices
// rather than copy them: the policy only reads, and under load the copies
// cost more than the rules that read them.
func (r *Reads) get(what string, key client.ObjectKey, obj client.Object) client.Object {
	r.mu.Lock()
	if r.read == nil {
		r.read = map[string]client.Object{}
	}
	if found, ok := r.read[what]; ok {
		r.mu.Unlock()
		return found
	}
	r.mu.Unlock()
	found := obj
	if err := r.index.c.Get(r.ctx, key, obj, client.UnsafeDisableDeepCopy); err != nil {
		found = r.getLive(what, key, obj)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.read[what] = found
	return found
}

// getLive reads obj past the cache, within the request's budget.
func (r *Reads) getLive(what string, key client.ObjectKey, obj client.Object) client.Object {
	r.mu.Lock()
	r.live++
	over := r.live > MaxLiveReads
	r.mu.Unlock()
	if over {
		r.fail(what, ErrTooManyReads)
		return nil
	}
	err := r.index.live.Get(r.ctx, key, obj)
	if err != nil && !apierrors.IsNotFound(err) {
		r.fail(what, err)
	}
	if err != nil {
		return nil
	}
	return obj
}

// Assigning lists the Tenants naming ns in spec.namespaces.
func (r *Reads) Assigning(ns string) []*v1alpha1.Tenant {
	return r.tenants("the tenants assigning "+ns, client.MatchingFields{tenantNamespaceKey: ns})
}

// Owning lists the Tenants naming the owner key.
func (r *Reads) Owning(key string) []*v1alpha1.Tenant {
	return r.tenants("the tenants owned by "+key, client.MatchingFields{tenantOwnerKey: key})
}

// Account reads a ServiceAccount from the cache, which holds Landlord's
// alone: a miss is not Landlord's, and costs no read past the cache on
// every pod.
func (r *Reads) Account(namespace, name string) *corev1.ServiceAccount {
	sa := &corev1.ServiceAccount{}
	if err := r.index.c.Get(r.ctx, client.ObjectKey{Namespace: namespace, Name: name}, sa, client.UnsafeDisableDeepCopy); err != nil {
		return nil
	}
	return sa
}

// Labelled lists the namespaces labelled for the tenant.
func (r *Reads) Labelled(tenant string) []*corev1.Namespace {
	list := &corev1.NamespaceList{}
	if err := r.index.c.List(r.ctx, list, client.MatchingFields{namespaceTenantKey: tenant}, client.UnsafeDisableDeepCopy); err != nil {
		r.fail("the namespaces of tenant "+tenant, err)
		return nil
	}
	out := make([]*corev1.Namespace, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out
}

// tenants lists the Tenants matching an index, sharing the cache's
// objects as get does.
func (r *Reads) tenants(what string, match client.MatchingFields) []*v1alpha1.Tenant {
	list := &v1alpha1.TenantList{}
	if err := r.index.c.List(r.ctx, list, match, client.UnsafeDisableDeepCopy); err != nil {
		r.fail(what, err)
		return nil
	}
	out := make([]*v1alpha1.Tenant, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out
}
