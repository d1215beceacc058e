package render

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// The facts the API server's own admission policies read about tenants
// (see policy.InProcess): RBAC markers, which the policies' authorizer
// checks find. Their verbs are served by no API, so they open nothing.
const (
	// ActForVerb, on the tenant by name, marks an identity of that tenant.
	ActForVerb = "act-for"
	// MemberVerb, on tenants with no name, marks an identity of any tenant:
	// RBAC cannot ask "some name other than this one".
	MemberVerb = "member"
	// HoldVerb, on the tenant by name, is granted to the default account of
	// each namespace the tenant holds: the policies ask it of that account.
	HoldVerb = "hold"
	// IdentityResource is the resource of every marker.
	IdentityResource = "tenants"
	// WildcardProbe is a name no tenant can take (not a DNS label): who
	// acts for it holds a wildcard grant, such as cluster-admin, which
	// makes RBAC's answers about tenants say nothing.
	WildcardProbe = "-"
	// HoldingAccount is the account of each held namespace the hold marker
	// names; Kubernetes makes it in every namespace.
	HoldingAccount = "default"
)

// IdentityName names the ClusterRole, and its binding, marking the tenant's
// identities; no name of ClusterRoleBindingName or OwnerViewName (both
// landlord:<tenant>...) takes it.
func IdentityName(t *v1alpha1.Tenant) string {
	return "landlord-identity:" + t.Name
}

// HoldingName names the ClusterRole, and its binding, marking the
// namespaces the tenant holds.
func HoldingName(t *v1alpha1.Tenant) string {
	return "landlord-holding:" + t.Name
}

// markerRules grant verbs on the tenant by name and, for member, on
// tenants.
func markerRules(tenant string, verbs ...string) []rbacv1.PolicyRule {
	var rules []rbacv1.PolicyRule
	for _, verb := range verbs {
		rule := rbacv1.PolicyRule{APIGroups: []string{v1alpha1.GroupVersion.Group}, Resources: []string{IdentityResource}, Verbs: []string{verb}}
		if verb != MemberVerb {
			rule.ResourceNames = []string{tenant}
		}
		rules = append(rules, rule)
	}
	return rules
}

// Markers are the tenant's markers as Objects renders them: the controller
// applies them alone while the rest of a render waits on a refused role,
// so that the API server goes on judging by the spec.
func Markers(t *v1alpha1.Tenant, h Holdings) []client.Object {
	return h.keep(markers(t, h.Namespaces(t)))
}

// markers are the ClusterRoles and bindings the in-process rules ask the
// API server's authorizer about: the tenant's identities, its reconciler
// in every namespace it holds and its owners (the identities
// policy.Tenants.ForUser answers with), act for it; the default account
// of each namespace it holds holds it.
func markers(t *v1alpha1.Tenant, all []string) []client.Object {
	holding := make([]rbacv1.Subject, len(all))
	for i, ns := range all {
		holding[i] = rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: HoldingAccount}
	}
	var objects []client.Object
	for _, m := range []struct {
		name     string
		rules    []rbacv1.PolicyRule
		subjects []rbacv1.Subject
	}{
		{IdentityName(t), markerRules(t.Name, ActForVerb, MemberVerb), append(reconcilerSubjects(t, all), ownerSubjects(t)...)},
		{HoldingName(t), markerRules(t.Name, HoldVerb), holding},
	} {
		objects = append(objects,
			&rbacv1.ClusterRole{TypeMeta: typeMeta(rbacv1.SchemeGroupVersion, "ClusterRole"), ObjectMeta: meta(t, m.name, ""), Rules: m.rules},
			&rbacv1.ClusterRoleBinding{TypeMeta: typeMeta(rbacv1.SchemeGroupVersion, "ClusterRoleBinding"), ObjectMeta: meta(t, m.name, ""), Subjects: m.subjects, RoleRef: clusterRoleRef(m.name)})
	}
	return objects
}
