package render

import (
	"reflect"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	k8slabels "k8s.io/apimachinery/pkg/labels"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// grants reports whether the role allows verb on group/resource.
func grants(role *rbacv1.ClusterRole, verb, group, resource string) bool {
	for _, r := range role.Rules {
		if matches(r.Verbs, verb) && matches(r.APIGroups, group) && matches(r.Resources, resource) {
			return true
		}
	}
	return false
}

func matches(list []string, s string) bool {
	return slices.Contains(list, s) || slices.Contains(list, "*")
}

func TestTenantClusterRoleGuardRails(t *testing.T) {
	role := TenantRules()
	if role.Name != TenantRulesRole || role.Labels[v1alpha1.ManagedByLabel] != v1alpha1.ManagedByValue || role.Labels[v1alpha1.AggregateToTenantLabel] != "true" {
		t.Errorf("role %s labels %v", role.Name, role.Labels)
	}
	tenant := TenantClusterRole()
	if tenant.Name != v1alpha1.DefaultRole || len(tenant.Rules) > 0 || tenant.AggregationRule == nil ||
		!k8slabels.SelectorFromSet(tenant.AggregationRule.ClusterRoleSelectors[0].MatchLabels).Matches(k8slabels.Set(role.Labels)) {
		t.Errorf("role %s does not aggregate %s: %+v", tenant.Name, role.Name, tenant)
	}
	if role.Kind != "ClusterRole" || role.APIVersion != "rbac.authorization.k8s.io/v1" {
		t.Errorf("role TypeMeta = %+v", role.TypeMeta)
	}
	// The one named exception: bind on BindableClusterRoles, by name.
	bindable := rbacv1.PolicyRule{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"clusterroles"}, Verbs: []string{"bind"}, ResourceNames: BindableClusterRoles}
	for _, r := range role.Rules {
		if reflect.DeepEqual(r, bindable) {
			continue
		}
		if slices.Contains(r.Verbs, "*") || slices.Contains(r.Verbs, "impersonate") ||
			slices.Contains(r.Verbs, "escalate") || slices.Contains(r.Verbs, "bind") {
			t.Errorf("rule %+v grants a wildcard, impersonate, escalate or bind verb", r)
		}
		if slices.Contains(r.APIGroups, "*") || len(r.NonResourceURLs) > 0 || len(r.ResourceNames) > 0 {
			t.Errorf("rule %+v is not a plain namespaced rule", r)
		}
		if slices.Contains(r.APIGroups, "") && slices.Contains(r.Resources, "*") {
			t.Errorf("rule %+v grants every core resource", r)
		}
	}

	denied := map[string]struct{ verb, group, resource string }{
		"write resourcequotas":         {"update", "", "resourcequotas"},
		"patch resourcequotas":         {"patch", "", "resourcequotas"},
		"delete resourcequotas":        {"delete", "", "resourcequotas"},
		"write resourcequotas/status":  {"update", "", "resourcequotas/status"},
		"create limitranges":           {"create", "", "limitranges"},
		"update limitranges":           {"update", "", "limitranges"},
		"delete limitranges":           {"delete", "", "limitranges"},
		"delete namespaces":            {"delete", "", "namespaces"},
		"patch namespaces":             {"patch", "", "namespaces"},
		"mint a token":                 {"create", "", "serviceaccounts/token"},
		"impersonate serviceaccounts":  {"impersonate", "", "serviceaccounts"},
		"write endpoints":              {"create", "", "endpoints"},
		"write events":                 {"create", "", "events"},
		"clusterrolebindings":          {"create", "rbac.authorization.k8s.io", "clusterrolebindings"},
		"bind roles":                   {"bind", "rbac.authorization.k8s.io", "roles"},
		"escalate roles":               {"escalate", "rbac.authorization.k8s.io", "roles"},
		"customresourcedefinitions":    {"create", "apiextensions.k8s.io", "customresourcedefinitions"},
		"write endpointslices":         {"create", "discovery.k8s.io", "endpointslices"},
		"approve certificate requests": {"update", "certificates.k8s.io", "certificatesigningrequests/approval"},
		// Flux's controllers trust their status: an artifact's URL and path.
		"forge a git artifact":           {"update", "source.toolkit.fluxcd.io", "gitrepositories/status"},
		"patch an OCI artifact":          {"patch", "source.toolkit.fluxcd.io", "ocirepositories/status"},
		"forge an external artifact":     {"update", "source.toolkit.fluxcd.io", "externalartifacts/status"},
		"forge a applied revision":       {"patch", "kustomize.toolkit.fluxcd.io", "kustomizations/status"},
		"forge a release status":         {"update", "helm.toolkit.fluxcd.io", "helmreleases/status"},
		"forge a receiver's path":        {"update", "notification.toolkit.fluxcd.io", "receivers/status"},
		"forge a latest image":           {"patch", "image.toolkit.fluxcd.io", "imagepolicies/status"},
		"a Flux kind Landlord lists not": {"create", "source.toolkit.fluxcd.io", "someday"},
	}
	for name, c := range denied {
		if grants(role, c.verb, c.group, c.resource) {
			t.Errorf("%s: role grants %s %s/%s", name, c.verb, c.group, c.resource)
		}
	}

	allowed := map[string]struct{ verb, group, resource string }{
		"create deployments":     {"create", "apps", "deployments"},
		"scale statefulsets":     {"update", "apps", "statefulsets/scale"},
		"create configmaps":      {"create", "", "configmaps"},
		"create secrets":         {"create", "", "secrets"},
		"exec into pods":         {"create", "", "pods/exec"},
		"read pod logs":          {"get", "", "pods/log"},
		"port-forward":           {"create", "", "pods/portforward"},
		"create cronjobs":        {"create", "batch", "cronjobs"},
		"create hpa":             {"create", "autoscaling", "horizontalpodautoscalers"},
		"create pdb":             {"create", "policy", "poddisruptionbudgets"},
		"create ingresses":       {"create", "networking.k8s.io", "ingresses"},
		"create networkpolicies": {"create", "networking.k8s.io", "networkpolicies"},
		"create rolebindings":    {"create", "rbac.authorization.k8s.io", "rolebindings"},
		"create leases":          {"update", "coordination.k8s.io", "leases"},
		"create serviceaccounts": {"create", "", "serviceaccounts"},
		"create pvcs":            {"create", "", "persistentvolumeclaims"},
		"read quotas":            {"get", "", "resourcequotas"},
		"read limitranges":       {"list", "", "limitranges"},
		"read endpoints":         {"watch", "", "endpoints"},
		"read events":            {"list", "events.k8s.io", "events"},
		"create helmreleases":    {"create", "helm.toolkit.fluxcd.io", "helmreleases"},
		"create kustomizations":  {"create", "kustomize.toolkit.fluxcd.io", "kustomizations"},
		"create gitrepositories": {"create", "source.toolkit.fluxcd.io", "gitrepositories"},
		"create alerts":          {"create", "notification.toolkit.fluxcd.io", "alerts"},
		"create imagepolicies":   {"create", "image.toolkit.fluxcd.io", "imagepolicies"},
		"read a source's status": {"get", "source.toolkit.fluxcd.io", "gitrepositories/status"},
	}
	for name, c := range allowed {
		if !grants(role, c.verb, c.group, c.resource) {
			t.Errorf("%s: role does not grant %s %s/%s", name, c.verb, c.group, c.resource)
		}
	}
}

func TestTenantClusterRoleIsFresh(t *testing.T) {
	a := TenantRules()
	a.Rules[0].Verbs[0] = "mutated"
	a.Labels["mutated"] = "yes"
	b := TenantRules()
	if b.Rules[0].Verbs[0] == "mutated" || b.Labels["mutated"] != "" || slices.Contains(allVerbs, "mutated") {
		t.Error("TenantClusterRole returns shared state")
	}
}
