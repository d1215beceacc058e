package policy

import (
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/internal/render"
)

func rule(verbs []string, group string, resources ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, APIGroups: []string{group}, Resources: resources}
}

func TestRoleGrants(t *testing.T) {
	read := []string{"get", "list", "watch"}
	for name, tc := range map[string]struct {
		rules       []rbacv1.PolicyRule
		clusterWide bool
		want        string // a substring of the one message, "" for allowed
	}{
		"the tenant role":           {rules: render.TenantRules().Rules},
		"a view-like role":          {rules: []rbacv1.PolicyRule{rule(read, "", "pods", "configmaps"), rule(read, "apps", "*")}},
		"view, cluster-wide":        {rules: []rbacv1.PolicyRule{rule(read, "", "pods", "configmaps")}, clusterWide: true},
		"cluster-admin":             {rules: []rbacv1.PolicyRule{rule([]string{"*"}, "*", "*")}, want: "serviceaccounts/token"},
		"admin-like: tokens":        {rules: []rbacv1.PolicyRule{rule([]string{"create"}, "", "serviceaccounts/token")}, want: "serviceaccounts/token"},
		"edit-like: impersonate":    {rules: []rbacv1.PolicyRule{rule([]string{"impersonate"}, "", "serviceaccounts")}, want: "impersonate"},
		"constrained impersonation": {rules: []rbacv1.PolicyRule{rule([]string{"impersonate:serviceaccount"}, "authentication.k8s.io", "serviceaccounts")}, want: "constrained impersonation"},
		"impersonating for a verb":  {rules: []rbacv1.PolicyRule{rule([]string{"impersonate-on:user-info:create"}, "", "configmaps")}, want: "constrained impersonation"},
		"every subresource":         {rules: []rbacv1.PolicyRule{rule([]string{"create"}, "", "serviceaccounts/*")}, want: "serviceaccounts/token"},
		"escalate":                  {rules: []rbacv1.PolicyRule{rule([]string{"escalate"}, rbacv1.GroupName, "roles")}, want: "escalate"},
		"bind":                      {rules: []rbacv1.PolicyRule{rule([]string{"bind"}, rbacv1.GroupName, "clusterroles")}, want: "bind"},
		"bind view, by name":        {rules: []rbacv1.PolicyRule{named(rule([]string{"bind"}, rbacv1.GroupName, "clusterroles"), "view")}},
		"bind view and admin":       {rules: []rbacv1.PolicyRule{named(rule([]string{"bind"}, rbacv1.GroupName, "clusterroles"), "view", "admin")}, want: "bind"},
		"bind and read view":        {rules: []rbacv1.PolicyRule{named(rule([]string{"bind", "get"}, rbacv1.GroupName, "clusterroles"), "view")}, want: "bind"},
		"bind roles named view":     {rules: []rbacv1.PolicyRule{named(rule([]string{"bind"}, rbacv1.GroupName, "roles"), "view")}, want: "bind"},
		"every verb on rbac":        {rules: []rbacv1.PolicyRule{rule([]string{"*"}, rbacv1.GroupName, "roles")}, want: "escalate"},
		"secrets in a namespace":    {rules: []rbacv1.PolicyRule{rule(read, "", "secrets")}},
		"secrets cluster-wide":      {rules: []rbacv1.PolicyRule{rule(read, "", "secrets")}, clusterWide: true, want: "read secrets cluster-wide"},
		"kubelets":                  {rules: []rbacv1.PolicyRule{rule([]string{"get"}, "", "nodes/proxy")}, clusterWide: true, want: "nodes/proxy"},
		"writes cluster-wide":       {rules: []rbacv1.PolicyRule{rule([]string{"create"}, "apps", "deployments")}, clusterWide: true, want: "writes cluster-wide"},
		"non-resource URLs":         {rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}}}, clusterWide: true},
		"impersonate other group":   {rules: []rbacv1.PolicyRule{rule([]string{"impersonate"}, "example.com", "widgets")}},
	} {
		t.Run(name, func(t *testing.T) {
			errs := RoleGrants(field.NewPath("spec", "role"), "r", tc.rules, tc.clusterWide)
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Fatalf("refused: %v", errs)
			case tc.want != "" && (len(errs) == 0 || !strings.Contains(errs.ToAggregate().Error(), tc.want)):
				t.Fatalf("got %v, want a refusal naming %q", errs, tc.want)
			}
			for _, e := range errs {
				if RuleID(e) != "LL018" || !strings.Contains(e.Detail, "ClusterRole r grants") {
					t.Errorf("message names no rule or role: %v", e)
				}
			}
		})
	}
}

func named(r rbacv1.PolicyRule, names ...string) rbacv1.PolicyRule {
	r.ResourceNames = names
	return r
}

// TestBindableRolesAreBindable: what the tenant role lets tenants bind
// without holding it, LL015 lets them bind.
func TestBindableRolesAreBindable(t *testing.T) {
	for _, name := range render.BindableClusterRoles {
		if !slices.Contains(builtinRoles, name) {
			t.Errorf("the tenant role binds %s, which LL015 refuses", name)
		}
	}
}
