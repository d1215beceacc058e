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
	// The reconciler of each namespace the tenant holds is one: asked of
	// the account the namespace's landlord.dev/reconciler label names, it
	// says the tenant holds the namespace.
	ActForVerb = "act-for"
	// MemberVerb, on tenants with no name, marks an identity of any tenant:
	// RBAC cannot ask "some name other than this one".
	MemberVerb = "member"
	// IdentityResource is the resource of every marker.
	IdentityResource = "tenants"
	// WildcardProbe is a name no tenant can take (not a DNS label): who
	// acts for it holds a wildcard grant, such as cluster-admin, which
	// makes RBAC's answers about tenants say nothing.
	WildcardProbe = "-"
)

// IdentityName names the ClusterRole, and its binding, marking the tenant's
// identities; no name of ClusterRoleBindingName or OwnerViewName (both
// landlord:<tenant>...) takes it.
func IdentityName(t *v1alpha1.Tenant) string {
	return "landlord-identity:" + t.Name
}

// Admission is what the API server's policies read of the tenant, as
// Objects renders it: its markers and its namespaces, whose labels and
// annotations carry its allowances. The controller applies them alone
// while the rest of a render waits, so that the API server goes on judging
// by the spec: a narrowed allowedSources reaches it even then.
func Admission(t *v1alpha1.Tenant, h Holdings) []client.Object {
	objects := namespaces(t, h)
	// Pods may not run as a stamped account even while a stamp that no
	// longer decodes stalls the render: each that does is listed.
	var accounts []client.Object
	for _, ns := range h.Namespaces(t) {
		for _, s := range h.Stamps {
			if obj, err := stamped(t, ns, []Stamp{s}); err == nil {
				accounts = append(accounts, obj...)
			}
		}
	}
	stampAccounts(append(objects, accounts...))
	return h.keep(append(objects, markers(t, h.Namespaces(t))...))
}

// markers are the ClusterRole and binding the in-process rules ask the
// API server's authorizer about: the tenant's identities, its reconciler
// in every namespace it holds and its owners (the identities
// policy.Tenants.ForUser answers with), act for it. One binding a tenant:
// RBAC reads every ClusterRoleBinding to authorize any request it refuses
// or grants through a RoleBinding.
func markers(t *v1alpha1.Tenant, all []string) []client.Object {
	name := IdentityName(t)
	rule := rbacv1.PolicyRule{APIGroups: []string{v1alpha1.GroupVersion.Group}, Resources: []string{IdentityResource}}
	actFor, member := rule, rule
	actFor.ResourceNames, actFor.Verbs = []string{t.Name}, []string{ActForVerb}
	member.Verbs = []string{MemberVerb}
	return []client.Object{
		&rbacv1.ClusterRole{TypeMeta: typeMeta(rbacv1.SchemeGroupVersion, "ClusterRole"), ObjectMeta: meta(t, name, ""), Rules: []rbacv1.PolicyRule{actFor, member}},
		&rbacv1.ClusterRoleBinding{TypeMeta: typeMeta(rbacv1.SchemeGroupVersion, "ClusterRoleBinding"), ObjectMeta: meta(t, name, ""),
			Subjects: append(reconcilerSubjects(t, all), ownerSubjects(t)...), RoleRef: clusterRoleRef(name)},
	}
}
