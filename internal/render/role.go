package render

import (
	"maps"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/kinds"
)

var (
	readVerbs  = []string{"get", "list", "watch"}
	writeVerbs = []string{"create", "update", "patch", "delete", "deletecollection"}
	allVerbs   = append(append([]string{}, readVerbs...), writeVerbs...)
)

// ClusterRoles returned by ClusterRoles besides the tenant role.
const (
	// SelfServiceRole lets a tenant with spec.selfService create namespaces,
	// and patch them since Flux applies server-side; the admission guard
	// holds it to its prefix, label and count, and to its own namespaces.
	SelfServiceRole = "landlord-self-service"
	// SelfServiceNamespaceRole lets a tenant delete a namespace; it is bound
	// only inside self-service namespaces, so RBAC alone keeps every other
	// namespace out of reach.
	SelfServiceNamespaceRole = "landlord-self-service-namespace"
)

// TenantRulesRole holds the tenant role's own rules, aggregated into it
// as the platform's are.
const TenantRulesRole = v1alpha1.DefaultRole + "-rules"

// ClusterRoles are the cluster-wide roles the render binds: the tenant role
// with its own rules, and the two self-service roles.
func ClusterRoles() []*rbacv1.ClusterRole {
	return []*rbacv1.ClusterRole{
		TenantClusterRole(),
		TenantRules(),
		namespaceRole(SelfServiceRole, "create", "patch"),
		namespaceRole(SelfServiceNamespaceRole, "get", "delete"),
	}
}

func namespaceRole(name string, verbs ...string) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta: typeMeta(rbacv1.SchemeGroupVersion, "ClusterRole"),
		ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: map[string]string{v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue},
		},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: verbs}},
	}
}

// TenantClusterRole is the landlord-tenant ClusterRole, bound per
// namespace: the union, kept by Kubernetes' aggregation controller, of
// the ClusterRoles labelled v1alpha1.AggregateToTenantLabel, TenantRules
// and the platform's, each judged (LL018) before it takes effect.
func TenantClusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta: typeMeta(rbacv1.SchemeGroupVersion, "ClusterRole"),
		ObjectMeta: metav1.ObjectMeta{
			Name:   v1alpha1.DefaultRole,
			Labels: map[string]string{v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue},
		},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{
			MatchLabels: map[string]string{v1alpha1.AggregateToTenantLabel: "true"},
		}}},
	}
}

// TenantRules are the tenant role's own rules: namespace admin without
// write access to the guard rails nor to any status. It lists every
// resource explicitly: quotas, limit ranges and namespaces are read only,
// and neither serviceaccounts/token nor the impersonate verb is granted,
// so owners cannot mint the reconciler's tokens or act as it (it may hold
// extra cluster-wide grants).
func TenantRules() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta: typeMeta(rbacv1.SchemeGroupVersion, "ClusterRole"),
		ObjectMeta: metav1.ObjectMeta{
			Name:   TenantRulesRole,
			Labels: map[string]string{v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue, v1alpha1.AggregateToTenantLabel: "true"},
		},
		Rules: tenantRules(),
	}
}

// BindableClusterRoles are the built-in ClusterRoles a tenant may bind in
// its namespaces without holding all they grant: RBAC asks for the bind
// verb on them, which the tenant role gives. Kubernetes' view reads more
// than the tenant role does (resource claims, for one), and grants no
// write, no Secret and no identity.
var BindableClusterRoles = []string{"view"}

// tenantRules grant what the registry gives tenants (kinds.Kind.Tenant
// and Subresources), one rule per API group and set of verbs, in the
// registry's order, then the bind verb on BindableClusterRoles.
func tenantRules() []rbacv1.PolicyRule {
	var rules []rbacv1.PolicyRule
	add := func(group string, access kinds.Access, resource string) {
		verbs := accessVerbs[access]
		i := slices.IndexFunc(rules, func(r rbacv1.PolicyRule) bool {
			return r.APIGroups[0] == group && slices.Equal(r.Verbs, verbs)
		})
		if i < 0 {
			rules = append(rules, rule(group, verbs))
			i = len(rules) - 1
		}
		rules[i].Resources = append(rules[i].Resources, resource)
	}
	for _, k := range kinds.Select(func(k kinds.Kind) bool { return k.Tenant != kinds.NoAccess }) {
		add(k.Group, k.Tenant, k.Resource)
		for _, sub := range slices.Sorted(maps.Keys(k.Subresources)) {
			add(k.Group, k.Subresources[sub], k.Resource+"/"+sub)
		}
	}
	return append(rules, rbacv1.PolicyRule{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"clusterroles"}, Verbs: []string{"bind"},
		ResourceNames: slices.Clone(BindableClusterRoles)})
}

// accessVerbs are the verbs of each access.
var accessVerbs = map[kinds.Access][]string{
	kinds.Read:    readVerbs,
	kinds.Create:  {"create"},
	kinds.Connect: {"create", "get"},
	kinds.Write:   allVerbs,
}

func rule(group string, verbs []string, resources ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{
		APIGroups: []string{group},
		Resources: resources,
		Verbs:     append([]string{}, verbs...),
	}
}
