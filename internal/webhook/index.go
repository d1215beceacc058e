package webhook

import (
	"context"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/policy"
)

// Field index keys: each lookup the rules make is one indexed cache read.
const (
	// tenantNamespaceKey indexes Tenants by spec.namespaces[].name.
	tenantNamespaceKey = "spec.namespaces.name"
	// tenantOwnerKey indexes Tenants by owner subject, see ownerKey.
	tenantOwnerKey = "spec.owners"
	// namespaceTenantKey indexes Namespaces by their tenant label.
	namespaceTenantKey = "metadata.labels.tenant"
)

// Index answers policy.Tenants from the manager's informer cache, so that
// no admission request costs an API call.
type Index struct {
	// ctx bounds cache reads, which block only until the first sync.
	ctx    context.Context
	reader client.Reader
}

var _ policy.Tenants = &Index{}

// NewIndex registers the field indexers on c and returns the index that
// reads them.
func NewIndex(ctx context.Context, c cache.Cache) (*Index, error) {
	if err := c.IndexField(ctx, &v1alpha1.Tenant{}, tenantNamespaceKey, func(obj client.Object) []string {
		return obj.(*v1alpha1.Tenant).NamespaceNames()
	}); err != nil {
		return nil, err
	}
	if err := c.IndexField(ctx, &v1alpha1.Tenant{}, tenantOwnerKey, func(obj client.Object) []string {
		var keys []string
		for _, o := range obj.(*v1alpha1.Tenant).Spec.Owners {
			keys = append(keys, ownerKey(o.Kind, o.Namespace, o.Name))
		}
		return keys
	}); err != nil {
		return nil, err
	}
	if err := c.IndexField(ctx, &corev1.Namespace{}, namespaceTenantKey, func(obj client.Object) []string {
		if t := obj.GetLabels()[v1alpha1.TenantLabel]; t != "" {
			return []string{t}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return &Index{ctx: ctx, reader: c}, nil
}

// ownerKey is the index value of an owner subject.
func ownerKey(kind, namespace, name string) string {
	return kind + "/" + namespace + "/" + name
}

// ForNamespace returns the Tenant that lists ns in spec.namespaces, else the
// one named by the namespace's tenant label whose self-service prefix it
// has, else nil.
func (x *Index) ForNamespace(ns string) *v1alpha1.Tenant {
	if ns == "" {
		return nil
	}
	namespace := &corev1.Namespace{}
	if err := x.reader.Get(x.ctx, client.ObjectKey{Name: ns}, namespace); err != nil {
		namespace = nil
	}
	if t := x.assigned(ns, namespace); t != nil {
		return t
	}
	if namespace == nil {
		return nil
	}
	t := x.tenant(namespace.Labels[v1alpha1.TenantLabel])
	if t == nil || t.Spec.SelfService == nil || !strings.HasPrefix(ns, t.Spec.SelfService.Prefix) {
		return nil
	}
	return t
}

// assigned is the Tenant listing ns in spec.namespaces; when two do, the one
// the namespace's label names wins, as the controller gives it to that one.
func (x *Index) assigned(ns string, namespace *corev1.Namespace) *v1alpha1.Tenant {
	tenants := x.tenants(client.MatchingFields{tenantNamespaceKey: ns})
	if len(tenants) == 0 {
		return nil
	}
	if namespace != nil {
		for _, t := range tenants {
			if t.Name == namespace.Labels[v1alpha1.TenantLabel] {
				return t
			}
		}
	}
	return tenants[0]
}

// ForUser returns the Tenant whose reconciler user is (in one of the
// tenant's namespaces) or which lists user, one of its groups or its service
// account as an owner.
func (x *Index) ForUser(user authenticationv1.UserInfo) *v1alpha1.Tenant {
	if ns, name, ok := policy.SplitServiceAccount(user.Username); ok {
		if t := x.ForNamespace(ns); t != nil && t.ReconcilerName() == name {
			return t
		}
		if t := x.owner(ownerKey("ServiceAccount", ns, name)); t != nil {
			return t
		}
	}
	if t := x.owner(ownerKey("User", "", user.Username)); t != nil {
		return t
	}
	for _, g := range user.Groups {
		if t := x.owner(ownerKey("Group", "", g)); t != nil {
			return t
		}
	}
	return nil
}

// SelfServiceCount is how many live namespaces carry the tenant's label
// and prefix without being assigned in its spec.
func (x *Index) SelfServiceCount(tenant string) int {
	t := x.tenant(tenant)
	if t == nil || t.Spec.SelfService == nil {
		return 0
	}
	list := &corev1.NamespaceList{}
	if err := x.reader.List(x.ctx, list, client.MatchingFields{namespaceTenantKey: tenant}); err != nil {
		return 0
	}
	n := 0
	for _, ns := range list.Items {
		if ns.DeletionTimestamp.IsZero() && strings.HasPrefix(ns.Name, t.Spec.SelfService.Prefix) && !slices.Contains(t.NamespaceNames(), ns.Name) {
			n++
		}
	}
	return n
}

// owner is the first Tenant, by name, listing the owner key.
func (x *Index) owner(key string) *v1alpha1.Tenant {
	if tenants := x.tenants(client.MatchingFields{tenantOwnerKey: key}); len(tenants) > 0 {
		return tenants[0]
	}
	return nil
}

// tenant reads one Tenant by name, nil if there is none.
func (x *Index) tenant(name string) *v1alpha1.Tenant {
	if name == "" {
		return nil
	}
	t := &v1alpha1.Tenant{}
	if err := x.reader.Get(x.ctx, client.ObjectKey{Name: name}, t); err != nil {
		return nil
	}
	return t
}

// tenants lists the Tenants matching an index, sorted by name so that
// answers are stable; a cache error reads as none.
func (x *Index) tenants(match client.MatchingFields) []*v1alpha1.Tenant {
	list := &v1alpha1.TenantList{}
	if err := x.reader.List(x.ctx, list, match); err != nil {
		return nil
	}
	out := make([]*v1alpha1.Tenant, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	slices.SortFunc(out, func(a, b *v1alpha1.Tenant) int { return strings.Compare(a.Name, b.Name) })
	return out
}
