package lint

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/policy"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// tenantIndex is lint's tenancy.Store: the Tenants of one fleet build, and
// the self-service namespaces a tenant's repository declares, the only ones
// lint can know of. It answers the policy through tenancy.Resolver, as the
// guard answers it from the cluster.
type tenantIndex struct {
	byName    map[string]*v1alpha1.Tenant
	assigning map[string][]*v1alpha1.Tenant
	owning    map[string][]*v1alpha1.Tenant
	// declared maps a declared self-service namespace to its object.
	declared map[string]*corev1.Namespace
	// creating is the namespace being judged: Flux creates declared
	// namespaces one by one, so only those before it exist yet.
	creating string
}

var (
	_ tenancy.Store  = &tenantIndex{}
	_ policy.Tenants = tenancy.Resolver{}
)

func newTenantIndex(tenants []*v1alpha1.Tenant) *tenantIndex {
	x := &tenantIndex{byName: map[string]*v1alpha1.Tenant{}, assigning: map[string][]*v1alpha1.Tenant{},
		owning: map[string][]*v1alpha1.Tenant{}, declared: map[string]*corev1.Namespace{}}
	sorted := slices.Clone(tenants)
	slices.SortFunc(sorted, func(a, b *v1alpha1.Tenant) int { return strings.Compare(a.Name, b.Name) })
	for _, t := range sorted {
		if _, ok := x.byName[t.Name]; !ok {
			x.byName[t.Name] = t
		}
		for _, ns := range t.NamespaceNames() {
			x.assigning[ns] = append(x.assigning[ns], t)
		}
		for _, key := range tenancy.OwnerKeys(t) {
			x.owning[key] = append(x.owning[key], t)
		}
	}
	return x
}

// resolver answers the policy's tenancy questions from the index.
func (x *tenantIndex) resolver() tenancy.Resolver {
	return tenancy.Resolver{Store: x}
}

// withSelfService is the index plus the namespaces a tenant's repository
// declares with the tenant's label and self-service prefix that no tenant
// assigns.
func (x *tenantIndex) withSelfService(namespaces map[string]string) *tenantIndex {
	out := *x
	out.declared = map[string]*corev1.Namespace{}
	for name, tenant := range namespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1alpha1.TenantLabel: tenant}}}
		if t := x.byName[tenant]; t != nil && tenancy.HoldsSelfService(t, ns) && len(x.assigning[name]) == 0 {
			out.declared[name] = ns
		}
	}
	return &out
}

// creatingNamespace is the index as it answers while ns is created.
func (x *tenantIndex) creatingNamespace(ns string) *tenantIndex {
	out := *x
	out.creating = ns
	return &out
}

func (x *tenantIndex) Tenant(name string) *v1alpha1.Tenant     { return x.byName[name] }
func (x *tenantIndex) Assigning(ns string) []*v1alpha1.Tenant  { return x.assigning[ns] }
func (x *tenantIndex) Owning(key string) []*v1alpha1.Tenant    { return x.owning[key] }
func (x *tenantIndex) Namespace(name string) *corev1.Namespace { return x.declared[name] }

// Account is unknown offline: the accounts Landlord makes are not in the fleet.
func (x *tenantIndex) Account(string, string) *corev1.ServiceAccount { return nil }

// Labelled lists the declared namespaces of the tenant that exist while a
// namespace is created: those before it in name order.
func (x *tenantIndex) Labelled(tenant string) []*corev1.Namespace {
	var out []*corev1.Namespace
	for name, ns := range x.declared {
		if ns.Labels[v1alpha1.TenantLabel] == tenant && (x.creating == "" || name < x.creating) {
			out = append(out, ns)
		}
	}
	return out
}
