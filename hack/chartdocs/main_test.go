package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMEUpToDate fails when charts/landlord/README.md is not what
// values.yaml and values.schema.json generate.
func TestREADMEUpToDate(t *testing.T) {
	dir := filepath.Join("..", "..", chartDir)
	want, err := README(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s/README.md differs from what values.yaml and values.schema.json give: run make generate", chartDir)
	}
}

// TestREADMERefuses: a value without a comment or a schema type stops
// generation, naming the value.
func TestREADMERefuses(t *testing.T) {
	const schema = `{"type": "object", "properties": {
		"replicas": {"type": "integer"},
		"untyped": {},
		"image": {"type": "object", "properties": {"tag": {"type": "string"}}}}}`
	for name, tc := range map[string]struct{ values, want string }{
		"no comment":       {"# Intro.\n\n# Replicas.\nreplicas: 2\n# The image.\nimage:\n  tag: v1\n", "image.tag: no comment"},
		"not in schema":    {"# Intro.\n\n# Replicas.\nreplicas: 2\n# Unknown.\nreplica: 2\n", "replica: values.schema.json has no such property"},
		"untyped":          {"# Intro.\n\n# Untyped.\nuntyped: 1\n", "untyped: values.schema.json gives it no type"},
		"no introduction":  {"# Replicas.\nreplicas: 2\n", "opens with no comment"},
		"documented group": {"# Intro.\n\n# The image.\nimage:\n  # Its tag.\n  tag: v1\n", ""},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "values.yaml"), []byte(tc.values), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "values.schema.json"), []byte(schema), 0o644); err != nil {
				t.Fatal(err)
			}
			readme, err := README(dir)
			if tc.want == "" {
				if err != nil || !strings.Contains(string(readme), "| `image.tag` | string | `\"v1\"` | Its tag. |") {
					t.Errorf("error %v, README:\n%s", err, readme)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
