package policy

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

// judgeAggregated is the API server's verdict on the platform creating a
// ClusterRole of rules that is aggregated into the tenant role.
func judgeAggregated(rules []rbacv1.PolicyRule, user authenticationv1.UserInfo) field.ErrorList {
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "extension", Labels: map[string]string{v1alpha1.AggregateToTenantLabel: "true"}},
		Rules:      rules,
	}
	return Evaluate(Request{Operation: admissionv1.Create, Name: role.Name, Object: role, User: user}, testTenants)
}

var admin = authenticationv1.UserInfo{Username: "admin", Groups: []string{"system:masters"}}

// TestTenantRoleIsRoleGrants: the CEL the API server evaluates on an
// aggregated role, spelled from RoleGrants' table, gives RoleGrants'
// verdict and message on the cases of TestRoleGrants' kind and on a
// thousand rules drawn at random from the words that matter to it.
func TestTenantRoleIsRoleGrants(t *testing.T) {
	agree := func(t *testing.T, rules []rbacv1.PolicyRule) {
		t.Helper()
		var want []string
		for _, err := range RoleGrants(field.NewPath("rules"), "extension", rules, false) {
			want = append(want, err.Error())
		}
		var got []string
		for _, err := range judgeAggregated(rules, admin) {
			got = append(got, err.Error())
		}
		if !slices.Equal(got, want) {
			t.Fatalf("rules %+v:\nthe API server's policy: %q\nRoleGrants:               %q", rules, got, want)
		}
	}
	named := func(r rbacv1.PolicyRule, names ...string) rbacv1.PolicyRule {
		r.ResourceNames = names
		return r
	}
	for name, rules := range map[string][]rbacv1.PolicyRule{
		"the tenant role":       render.TenantRules().Rules,
		"cluster-admin":         {rule([]string{"*"}, "*", "*")},
		"tokens":                {rule([]string{"create"}, "", "serviceaccounts/token")},
		"every subresource":     {rule([]string{"create"}, "", "*/*")},
		"every token":           {rule([]string{"create"}, "", "*/token")},
		"user extras":           {rule([]string{"impersonate"}, "authentication.k8s.io", "userextras/scopes")},
		"bind view, by name":    {named(rule([]string{"bind"}, rbacv1.GroupName, "clusterroles"), "view")},
		"bind view and admin":   {named(rule([]string{"bind"}, rbacv1.GroupName, "clusterroles"), "view", "admin")},
		"non-resource URLs":     {{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
		"escalate and bind all": {rule([]string{"escalate", "bind"}, "*", "*")},
		"constrained impersonation": {rule([]string{"impersonate:serviceaccount"}, "authentication.k8s.io", "serviceaccounts"),
			rule([]string{"impersonate-on:serviceaccount:create"}, "*", "*")},
	} {
		t.Run(name, func(t *testing.T) { agree(t, rules) })
	}

	words := struct{ verbs, groups, resources, names []string }{
		verbs:     []string{"*", "get", "create", "impersonate", "escalate", "bind", "update", "impersonate:serviceaccount", "impersonate-on:user-info:list"},
		groups:    []string{"*", "", rbacv1.GroupName, "authentication.k8s.io", "apps"},
		resources: []string{"*", "*/*", "*/token", "serviceaccounts", "serviceaccounts/token", "serviceaccounts/*", "users", "userextras", "userextras/scopes", "roles", "clusterroles", "clusterroles/x", "pods"},
		names:     []string{"view", "admin"},
	}
	pick := func(r *rand.Rand, from []string) []string {
		n := 1 + r.IntN(2)
		out := make([]string, n)
		for i := range out {
			out[i] = from[r.IntN(len(from))]
		}
		return out
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		var rules []rbacv1.PolicyRule
		for range 1 + r.IntN(3) {
			pr := rbacv1.PolicyRule{Verbs: pick(r, words.verbs), APIGroups: pick(r, words.groups), Resources: pick(r, words.resources)}
			if r.IntN(3) == 0 {
				pr.ResourceNames = pick(r, words.names)
			}
			rules = append(rules, pr)
		}
		agree(t, rules)
	}
}

// TestTenantRoleJudgesWriterAndAggregation: only the platform labels a
// role into the tenant role, and such a role aggregates nothing itself.
func TestTenantRoleJudgesWriterAndAggregation(t *testing.T) {
	reads := []rbacv1.PolicyRule{rule([]string{"get"}, "monitoring.coreos.com", "servicemonitors")}
	if errs := judgeAggregated(reads, admin); len(errs) > 0 {
		t.Errorf("the platform's role of reads: %v", errs)
	}
	errs := judgeAggregated(reads, authenticationv1.UserInfo{Username: "system:serviceaccount:blue-apps:blue"})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "adds its rules to every tenant's role; allowed: the platform's identities") {
		t.Errorf("a tenant's: %v", errs)
	}
	role := &rbacv1.ClusterRole{
		ObjectMeta:      metav1.ObjectMeta{Name: "gathers", Labels: map[string]string{v1alpha1.AggregateToTenantLabel: "true"}},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"x": "y"}}}},
	}
	errs = Evaluate(Request{Operation: admissionv1.Create, Name: role.Name, Object: role, User: admin}, testTenants)
	if len(errs) != 1 || errs[0].Field != "aggregationRule" {
		t.Errorf("an aggregating role: %v", errs)
	}
	role.Labels = nil
	if errs := Evaluate(Request{Operation: admissionv1.Create, Name: role.Name, Object: role, User: admin}, testTenants); len(errs) > 0 {
		t.Errorf("an unlabelled role is not the tenant role's: %v", errs)
	}
}
