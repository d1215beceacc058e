package webhook

import (
	"context"

	corev1 "k8s.io/api/core/v1"
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

// Index is the guard's tenancy.Store: the manager's informer cache, so that
// an admission request costs no API call, and a live read where the cache
// misses a namespace or tenant, so that a miss is never taken for "not a
// tenant's".
type Index struct {
	// ctx bounds reads, which block only until the first sync.
	ctx  context.Context
	c    client.Reader
	live client.Reader
}

var _ tenancy.Store = &Index{}

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
	return &Index{ctx: ctx, c: c, live: live}, nil
}

// Resolver answers the policy's tenancy questions from the index.
func (x *Index) Resolver() tenancy.Resolver {
	return tenancy.Resolver{Store: x}
}

// Tenant reads one Tenant by name, nil if there is none.
func (x *Index) Tenant(name string) *v1alpha1.Tenant {
	if name == "" {
		return nil
	}
	t := &v1alpha1.Tenant{}
	if !x.get(client.ObjectKey{Name: name}, t) {
		return nil
	}
	return t
}

// Namespace reads one Namespace by name, nil if there is none.
func (x *Index) Namespace(name string) *corev1.Namespace {
	ns := &corev1.Namespace{}
	if !x.get(client.ObjectKey{Name: name}, ns) {
		return nil
	}
	return ns
}

// get reads obj from the cache, else live; false when neither has it or a
// read fails, which callers treat as absent and the policy then freezes.
// Cache reads share the cached object's maps and slices rather than copy
// them: the policy only reads, and under load the copies cost more than the
// rules that read them.
func (x *Index) get(key client.ObjectKey, obj client.Object) bool {
	if err := x.c.Get(x.ctx, key, obj, client.UnsafeDisableDeepCopy); err == nil {
		return true
	}
	return x.live.Get(x.ctx, key, obj) == nil
}

// Assigning lists the Tenants naming ns in spec.namespaces.
func (x *Index) Assigning(ns string) []*v1alpha1.Tenant {
	return x.tenants(client.MatchingFields{tenantNamespaceKey: ns})
}

// Owning lists the Tenants naming the owner key.
func (x *Index) Owning(key string) []*v1alpha1.Tenant {
	return x.tenants(client.MatchingFields{tenantOwnerKey: key})
}

// Labelled lists the namespaces labelled for the tenant.
func (x *Index) Labelled(tenant string) []*corev1.Namespace {
	list := &corev1.NamespaceList{}
	if err := x.c.List(x.ctx, list, client.MatchingFields{namespaceTenantKey: tenant}, client.UnsafeDisableDeepCopy); err != nil {
		return nil
	}
	out := make([]*corev1.Namespace, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out
}

// tenants lists the Tenants matching an index, sharing the cache's
// objects as get does; a cache error reads as none.
func (x *Index) tenants(match client.MatchingFields) []*v1alpha1.Tenant {
	list := &v1alpha1.TenantList{}
	if err := x.c.List(x.ctx, list, match, client.UnsafeDisableDeepCopy); err != nil {
		return nil
	}
	out := make([]*v1alpha1.Tenant, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out
}
