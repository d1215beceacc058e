package lint

import (
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/policy"
)

// tenantIndex answers policy.Tenants from the Tenants of one fleet build,
// as the guard's index answers it from the cluster. Self-service
// namespaces are those the tenant's repository declares, the only ones lint
// can know of.
type tenantIndex struct {
	// tenants sorted by name; each map below holds the first by name.
	tenants     []*v1alpha1.Tenant
	byName      map[string]*v1alpha1.Tenant
	byNamespace map[string]*v1alpha1.Tenant
	// owners by ownerKey.
	owners map[string]*v1alpha1.Tenant
	// selfService maps a declared self-service namespace to its tenant.
	selfService map[string]*v1alpha1.Tenant
	// creating is the namespace being judged: Flux creates declared
	// namespaces one by one, so only those before it exist yet.
	creating string
}

var _ policy.Tenants = &tenantIndex{}

func newTenantIndex(tenants []*v1alpha1.Tenant) *tenantIndex {
	sorted := slices.Clone(tenants)
	slices.SortFunc(sorted, func(a, b *v1alpha1.Tenant) int { return strings.Compare(a.Name, b.Name) })
	x := &tenantIndex{tenants: sorted, byName: map[string]*v1alpha1.Tenant{}, byNamespace: map[string]*v1alpha1.Tenant{},
		owners: map[string]*v1alpha1.Tenant{}, selfService: map[string]*v1alpha1.Tenant{}}
	first := func(m map[string]*v1alpha1.Tenant, key string, t *v1alpha1.Tenant) {
		if _, ok := m[key]; !ok {
			m[key] = t
		}
	}
	for _, t := range sorted {
		first(x.byName, t.Name, t)
		for _, ns := range t.NamespaceNames() {
			first(x.byNamespace, ns, t)
		}
		for _, o := range t.Spec.Owners {
			first(x.owners, ownerKey(o.Kind, o.Namespace, o.Name), t)
		}
	}
	return x
}

// ownerKey identifies an owner subject, as the guard's index does.
func ownerKey(kind, namespace, name string) string {
	return kind + "/" + namespace + "/" + name
}

// withSelfService is the index plus the namespaces a tenant's repository
// declares with the tenant's label and self-service prefix.
func (x *tenantIndex) withSelfService(namespaces map[string]string) *tenantIndex {
	out := *x
	out.selfService = map[string]*v1alpha1.Tenant{}
	for ns, tenant := range namespaces {
		t := x.byName[tenant]
		if t != nil && t.Spec.SelfService != nil && strings.HasPrefix(ns, t.Spec.SelfService.Prefix) && x.byNamespace[ns] == nil {
			out.selfService[ns] = t
		}
	}
	return &out
}

// ForNamespace is the first Tenant, by name, assigned ns, else the one
// whose declared self-service namespace it is.
func (x *tenantIndex) ForNamespace(ns string) *v1alpha1.Tenant {
	if t := x.byNamespace[ns]; t != nil {
		return t
	}
	return x.selfService[ns]
}

// ForUser is, like the guard's index, the Tenant whose reconciler user is,
// else the one listing user's service account, user or one of its groups
// among its owners.
func (x *tenantIndex) ForUser(user authenticationv1.UserInfo) *v1alpha1.Tenant {
	if ns, name, ok := policy.SplitServiceAccount(user.Username); ok {
		if t := x.ForNamespace(ns); t != nil && t.ReconcilerName() == name {
			return t
		}
		if t := x.owners[ownerKey(rbacv1.ServiceAccountKind, ns, name)]; t != nil {
			return t
		}
	}
	if t := x.owners[ownerKey(rbacv1.UserKind, "", user.Username)]; t != nil {
		return t
	}
	for _, g := range user.Groups {
		if t := x.owners[ownerKey(rbacv1.GroupKind, "", g)]; t != nil {
			return t
		}
	}
	return nil
}

// creatingNamespace is the index as it answers while ns is created.
func (x *tenantIndex) creatingNamespace(ns string) *tenantIndex {
	out := *x
	out.creating = ns
	return &out
}

// SelfServiceCount is how many self-service namespaces of the tenant the
// repository declares, counting while a namespace is created only those
// before it in name order.
func (x *tenantIndex) SelfServiceCount(tenant string) int {
	n := 0
	for ns, t := range x.selfService {
		if t.Name == tenant && (x.creating == "" || ns < x.creating) {
			n++
		}
	}
	return n
}
