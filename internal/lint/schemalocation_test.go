package lint_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/landlord-dev/landlord/internal/lint"
)

// clusterPolicySchema is a JSON schema, as kubeconform's registries hold
// them, of part of Kyverno's ClusterPolicy.
const clusterPolicySchema = `{
  "type": "object",
  "properties": {
    "spec": {
      "type": "object",
      "properties": {
        "validationFailureAction": {"enum": ["Audit", "Enforce"]},
        "rules": {"type": "array", "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}}
      }
    }
  }
}`

// policies are two ClusterPolicies, whose CRD comes with Kyverno's
// HelmRelease: the second with a rule without a name (line 16) and an
// action Kyverno does not know (line 13).
const policies = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: good
spec:
  rules: [{name: only-github}]
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: bad
spec:
  validationFailureAction: Block
  rules:
  - name: ok
  - match: {}
`

// TestSchemaLocations finds the JSON schema of a kind lint has none of as
// kubeconform does, in a directory laid out as kubernetes-json-schema or
// by a template, and without one warns, or fails with --strict.
func TestSchemaLocations(t *testing.T) {
	schemas := t.TempDir()
	writeFiles(t, schemas, map[string]string{
		"master-standalone/clusterpolicy-kyverno-v1.json":        clusterPolicySchema,
		"master-standalone-strict/clusterpolicy-kyverno-v1.json": clusterPolicySchema,
		"kyverno.io/clusterpolicy_v1.json":                       clusterPolicySchema,
	})
	fleetDir, _ := scaffold(t, map[string]string{"kyverno-policies/policies.yaml": policies}, nil)
	invalid := []string{"kyverno-policies/policies.yaml:13: LINT002 error", "kyverno-policies/policies.yaml:16: LINT002 error"}
	for name, tc := range map[string]struct {
		locations []string
		strict    bool
		want      []string
	}{
		"no location: a warning": {want: []string{
			"kyverno-policies/policies.yaml:1: LINT004 warning", "kyverno-policies/policies.yaml:8: LINT004 warning"}},
		"no location, strict: an error": {strict: true, want: []string{
			"kyverno-policies/policies.yaml:1: LINT004 error", "kyverno-policies/policies.yaml:8: LINT004 error"}},
		"default only": {locations: []string{"default"}, want: []string{
			"kyverno-policies/policies.yaml:1: LINT004 warning", "kyverno-policies/policies.yaml:8: LINT004 warning"}},
		"a directory":                   {locations: []string{"default", schemas}, want: invalid},
		"a directory, strict":           {locations: []string{schemas}, strict: true, want: invalid},
		"a template":                    {locations: []string{filepath.Join(schemas, "{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json")}, want: invalid},
		"the first location holding it": {locations: []string{filepath.Join(schemas, "none/{{ .ResourceKind }}.json"), filepath.Join(schemas, "{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json")}, want: invalid},
	} {
		t.Run(name, func(t *testing.T) {
			findings, err := lint.Lint(context.Background(), lint.Options{Dir: fleetDir, Strict: tc.strict, SchemaLocations: tc.locations})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range findings {
				got = append(got, fmt.Sprintf("%s:%d: %s %s", f.File, f.Line, f.Rule, f.Severity))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings:\n got %q\nwant %q", got, tc.want)
				for _, f := range findings {
					t.Log(f)
				}
			}
		})
	}
}
