package policy

import (
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/internal/render"
)

// grant is one permission a role may not hand a tenant.
type grant struct {
	verbs     []string
	groups    []string
	resources []string
	what      string
	// verbPrefixes are verbs by prefix, on any group and resource.
	verbPrefixes []string
}

// everywhere are the grants no tenant role may hold, namespaced or not:
// each mints or borrows another identity, or writes RBAC past the
// escalation check.
var everywhere = []grant{
	{[]string{"create"}, []string{""}, []string{"serviceaccounts/token"}, "create on serviceaccounts/token (mints any service account's token, the reconciler's too)", nil},
	{[]string{"impersonate"}, []string{"", "authentication.k8s.io"}, []string{"users", "groups", "serviceaccounts", "uids", "userextras/*"}, "impersonate (acts as any identity)", nil},
	{[]string{"escalate"}, []string{rbacv1.GroupName}, []string{"roles", "clusterroles"}, "escalate on roles (grants what the holder lacks)", nil},
	{[]string{"bind"}, []string{rbacv1.GroupName}, []string{"roles", "clusterroles"}, "bind on roles (binds what the holder lacks)", nil},
	// Kubernetes 1.36's constrained impersonation spells the verb with a
	// mode and the verbs it may use: impersonate:serviceaccount,
	// impersonate-on:serviceaccount:create.
	{nil, []string{"*any*"}, []string{"*any*"}, "constrained impersonation (acts as other identities)", []string{"impersonate:", "impersonate-on:"}},
}

// clusterWide are the further grants a ClusterRoleBinding may not hand a
// tenant: reading every namespace's secrets, reaching kubelets, and any
// write, which would reach other tenants' and the platform's namespaces.
var clusterWide = []grant{
	{[]string{"get", "list", "watch"}, []string{""}, []string{"secrets"}, "read secrets cluster-wide", nil},
	{[]string{"get", "create"}, []string{""}, []string{"nodes/proxy"}, "nodes/proxy (commands on every node's kubelet)", nil},
	{writeVerbs, []string{"*any*"}, []string{"*any*"}, "writes cluster-wide", nil},
}

// writeVerbs are the verbs that change what they name.
var writeVerbs = []string{"create", "update", "patch", "delete", "deletecollection"}

// RoleGrants is rule LL018: the rules of the ClusterRole a Tenant binds
// (spec.role in each namespace, spec.extraClusterRoles cluster-wide) are
// judged for what they grant, not for the role's name, so that admin,
// edit and the system:aggregate-to-* roles, which mint tokens and
// impersonate, are refused like cluster-admin.
func RoleGrants(p *field.Path, role string, rules []rbacv1.PolicyRule, clusterWideBinding bool) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	judge := func(g grant) {
		if seen[g.what] {
			return
		}
		for _, r := range rules {
			if len(r.NonResourceURLs) > 0 && len(r.Resources) == 0 || bindsOnlyBindable(r, g) {
				continue
			}
			verbs := anyMatch(r.Verbs, g.verbs) || slices.ContainsFunc(r.Verbs, func(v string) bool {
				return slices.ContainsFunc(g.verbPrefixes, func(p string) bool { return strings.HasPrefix(v, p) })
			})
			if verbs && (g.groups[0] == "*any*" || anyMatch(r.APIGroups, g.groups)) && (g.resources[0] == "*any*" || anyResource(r.Resources, g.resources)) {
				seen[g.what] = true
				errs = append(errs, forbidden(ruleRoleGrants, p, "ClusterRole "+role+grantDetail(g, clusterWideBinding)))
				return
			}
		}
	}
	for _, g := range everywhere {
		judge(g)
	}
	if clusterWideBinding {
		for _, g := range clusterWide {
			judge(g)
		}
	}
	return errs
}

// bindsOnlyBindable reports whether r, judged for the bind grant, binds
// nothing but render.BindableClusterRoles, by name: what the tenant role
// gives so that tenants may bind Kubernetes' view.
func bindsOnlyBindable(r rbacv1.PolicyRule, g grant) bool {
	return slices.Equal(g.verbs, []string{"bind"}) && slices.Equal(r.Verbs, []string{"bind"}) &&
		slices.Equal(r.APIGroups, []string{rbacv1.GroupName}) && slices.Equal(r.Resources, []string{"clusterroles"}) &&
		len(r.ResourceNames) > 0 && !slices.ContainsFunc(r.ResourceNames, func(n string) bool { return !slices.Contains(render.BindableClusterRoles, n) })
}

// grantDetail follows a role's name in the denial of g.
func grantDetail(g grant, clusterWideBinding bool) string {
	detail := " grants " + g.what + "; allowed: roles without token creation, impersonation, escalate or bind"
	if !clusterWideBinding {
		return detail
	}
	return detail + ", and, bound cluster-wide, read-only roles without secrets or nodes/proxy"
}

// anyMatch reports whether a rule's list, where "*" is every value, holds
// one of want.
func anyMatch(list, want []string) bool {
	return slices.Contains(list, "*") || slices.ContainsFunc(want, func(w string) bool { return slices.Contains(list, w) })
}

// anyResource is anyMatch for resources, where "x/*" is every subresource
// of x and "*/y" subresource y of every resource.
func anyResource(list, want []string) bool {
	for _, have := range list {
		for _, w := range want {
			name, sub, _ := strings.Cut(w, "/")
			h, hsub, _ := strings.Cut(have, "/")
			switch {
			case have == "*" || have == w:
				return true
			case sub != "" && (h == name || h == "*") && (hsub == "*" || hsub == sub):
				return true
			case strings.HasSuffix(w, "/*") && h == name:
				return true
			}
		}
	}
	return false
}
