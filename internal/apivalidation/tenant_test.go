package apivalidation_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/apivalidation"
)

// validTenant passes every rule, defaults left to the schema as the CLI
// leaves them.
func validTenant() *v1alpha1.Tenant {
	git := &v1alpha1.GitSource{URL: "https://git.example.com/team"}
	return &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "team"},
		Spec: v1alpha1.TenantSpec{
			Namespaces:  []v1alpha1.TenantNamespace{{Name: "team-apps"}, {Name: "team-jobs"}},
			SelfService: &v1alpha1.SelfService{Prefix: "team-", MaxNamespaces: 3},
			Owners:      []v1alpha1.Owner{{Kind: "Group", Name: "team"}},
			Sources: []v1alpha1.Source{
				{Name: "apps", Git: git, TargetNamespace: "team-jobs"},
				{Name: "base", Template: git},
				{Name: "late", Git: git, DependsOn: []string{"apps"}, TargetNamespace: "team-extra",
					Decryption: &v1alpha1.Decryption{Provider: "sops", SecretRef: "sops-keys"}},
			},
			Variables: map[string]string{"CLUSTER_ENV": "staging"},
		},
	}
}

func TestValidateTenant(t *testing.T) {
	if errs := apivalidation.ValidateTenant(validTenant()); len(errs) > 0 {
		t.Fatalf("valid tenant refused: %v", errs)
	}
	for name, tc := range map[string]struct {
		mutate func(*v1alpha1.Tenant)
		field  string
		want   string
	}{
		"no name":                  {func(t *v1alpha1.Tenant) { t.Name = "" }, "metadata.name", "Required value"},
		"name not a DNS label":     {func(t *v1alpha1.Tenant) { t.Name = "a.b" }, "<nil>", "metadata.name must be a DNS label"},
		"no namespaces":            {func(t *v1alpha1.Tenant) { t.Spec.Namespaces, t.Spec.SelfService, t.Spec.Sources = nil, nil, nil }, "spec.namespaces", "at least one namespace"},
		"sources, no namespaces":   {func(t *v1alpha1.Tenant) { t.Spec.Namespaces = nil }, "spec.namespaces", "when spec.sources is set"},
		"namespace not a label":    {func(t *v1alpha1.Tenant) { t.Spec.Namespaces[0].Name = "Apps" }, "spec.namespaces[0].name", "should match"},
		"empty namespace":          {func(t *v1alpha1.Tenant) { t.Spec.Namespaces[1].Name = "" }, "spec.namespaces[1].name", "should match"},
		"templates namespace":      {func(t *v1alpha1.Tenant) { t.Spec.Namespaces[1].Name = "landlord-templates" }, "spec.namespaces[1].name", "landlord-templates"},
		"duplicate namespace":      {func(t *v1alpha1.Tenant) { t.Spec.Namespaces[1].Name = "team-apps" }, "spec.namespaces[1]", "Duplicate value"},
		"owner kind":               {func(t *v1alpha1.Tenant) { t.Spec.Owners[0].Kind = "Robot" }, "spec.owners[0].kind", `supported values: "User", "Group", "ServiceAccount"`},
		"owner without name":       {func(t *v1alpha1.Tenant) { t.Spec.Owners[0].Name = "" }, "spec.owners[0].name", "at least 1 chars long"},
		"duplicate source":         {func(t *v1alpha1.Tenant) { t.Spec.Sources[1].Name = "apps" }, "spec.sources[1]", "Duplicate value"},
		"git and template":         {func(t *v1alpha1.Tenant) { t.Spec.Sources[0].Template = t.Spec.Sources[0].Git }, "spec.sources[0]", "exactly one of git or template"},
		"neither git nor template": {func(t *v1alpha1.Tenant) { t.Spec.Sources[1].Template = nil }, "spec.sources[1]", "exactly one of git or template"},
		"no url":                   {func(t *v1alpha1.Tenant) { t.Spec.Sources[1].Template = &v1alpha1.GitSource{} }, "spec.sources[1].template.url", "should match"},
		"foreign target": {func(t *v1alpha1.Tenant) { t.Spec.Sources[2].TargetNamespace = "default" }, "spec.sources",
			"spec.sources[].targetNamespace must be a namespace of this tenant: one of spec.namespaces[].name, or starting with spec.selfService.prefix"},
		"unknown dependency": {func(t *v1alpha1.Tenant) { t.Spec.Sources[2].DependsOn = []string{"apps", "ghost"} }, "spec.sources",
			"spec.sources[].dependsOn must name another source of this tenant of the same kind"},
		"own source after a template": {func(t *v1alpha1.Tenant) { t.Spec.Sources[2].DependsOn = []string{"base"} }, "spec.sources", "spec.sources[].dependsOn must name another source"},
		"itself":                      {func(t *v1alpha1.Tenant) { t.Spec.Sources[0].DependsOn = []string{"apps"} }, "spec.sources", "spec.sources[].dependsOn must name another source"},
		"decryption without keys":     {func(t *v1alpha1.Tenant) { t.Spec.Sources[2].Decryption.SecretRef = "" }, "spec.sources[2].decryption.secretRef", "Required value"},
		"reserved variable":           {func(t *v1alpha1.Tenant) { t.Spec.Variables["TENANT_NAMESPACE"] = "x" }, "spec.variables", "Forbidden: spec.variables must not set TENANT_NAME or TENANT_NAMESPACE"},
		"variable name":               {func(t *v1alpha1.Tenant) { t.Spec.Variables["1BAD"] = "x" }, "spec.variables", "shell-style names"},
		// An entry that is no pattern would read as no list at all: any URL.
		"empty allowed source":    {func(t *v1alpha1.Tenant) { t.Spec.AllowedSources = []string{""} }, "spec.allowedSources[0]", "at least 1 chars long"},
		"allowed source of lines": {func(t *v1alpha1.Tenant) { t.Spec.AllowedSources = []string{"\n"} }, "spec.allowedSources[0]", "should match"},
		"pod security":            {func(t *v1alpha1.Tenant) { t.Spec.PodSecurity = "lax" }, "spec.podSecurity", `supported values: "privileged", "baseline", "restricted"`},
	} {
		t.Run(name, func(t *testing.T) {
			tn := validTenant()
			tc.mutate(tn)
			errs := apivalidation.ValidateTenant(tn)
			for _, err := range errs {
				if err.Field == tc.field && strings.Contains(err.Error(), tc.want) {
					return
				}
			}
			t.Errorf("errors %v, want one on %s containing %q", errs, tc.field, tc.want)
		})
	}
}

// BenchmarkValidateTenant is the cost the controller pays on each
// reconcile of a Tenant.
func BenchmarkValidateTenant(b *testing.B) {
	tn := validTenant()
	if errs := apivalidation.ValidateTenant(tn); len(errs) > 0 {
		b.Fatal(errs)
	}
	b.ReportAllocs()
	for b.Loop() {
		apivalidation.ValidateTenant(tn)
	}
}
