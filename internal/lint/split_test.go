package lint

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/resource"
)

// TestSplitPatchedFindings lints fleets whose overlay patches tenants by
// name, some patches wrong, with the overlay built whole and in parts:
// the findings are the same.
func TestSplitPatchedFindings(t *testing.T) {
	cases := map[string]struct {
		// patch rewrites the production patch of team-0001.
		patch string
		// split reports whether the build is split.
		split bool
		// tenants is how many the fleet holds, 3 when 0.
		tenants int
	}{
		"as scaffolded": {split: true},
		"a neighbour's namespace": {split: true, patch: `- op: add
  path: /spec/namespaces/-
  value: {name: team-0000-apps}
`},
		"a field the schema refuses": {split: true, patch: `- op: add
  path: /spec/colour
  value: blue
`},
		"a field the schema refuses, in three parts": {split: true, tenants: 2*splitLeaves + 1, patch: `- op: add
  path: /spec/colour
  value: blue
`},
		"a path missing": {patch: `- op: replace
  path: /spec/nothing/0
  value: x
`},
		"a rename": {patch: `- op: replace
  path: /metadata/name
  value: team-0000
`},
		"a namespace": {patch: `- op: add
  path: /metadata/namespace
  value: elsewhere
`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir, repos, err := WriteBenchFleet(t.TempDir(), cmp.Or(tc.tenants, 3))
			if err != nil {
				t.Fatal(err)
			}
			prod := filepath.Join(dir, "tenants", "production")
			if tc.patch != "" {
				if err := os.WriteFile(filepath.Join(prod, "team-0001-patch.yaml"), []byte(tc.patch), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// A patch naming no tenant matches nothing, in parts as whole.
			k, err := os.ReadFile(filepath.Join(prod, "kustomization.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			k = []byte(strings.Replace(string(k), "patches:\n", `patches:
- patch: |-
    - op: add
      path: /spec/colour
      value: blue
  target:
    kind: Tenant
    name: team-9999
`, 1))
			if err := os.WriteFile(filepath.Join(prod, "kustomization.yaml"), k, 0o644); err != nil {
				t.Fatal(err)
			}
			lint := func(split bool) []Finding {
				t.Helper()
				splitBuilds = split
				defer func() { splitBuilds = true }()
				findings, err := Lint(context.Background(), Options{Dir: dir, TenantRepos: repos})
				if err != nil {
					t.Fatal(err)
				}
				return findings
			}
			whole, parts := lint(false), lint(true)
			if !slices.Equal(whole, parts) {
				t.Errorf("findings differ:\nwhole: %v\nparts: %v", whole, parts)
			}
			if (len(whole) == 0) != (name == "as scaffolded") {
				t.Errorf("findings: %v", whole)
			}
			fleet, err := openRepo(dir, "")
			if err != nil {
				t.Fatal(err)
			}
			fleet.memo = newMemo()
			content, err := os.ReadFile(filepath.Join(prod, "kustomization.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			variant, _, err := originVariant(content)
			if err != nil {
				t.Fatal(err)
			}
			fsys, err := fleet.secureFS()
			if err != nil {
				t.Fatal(err)
			}
			m, err := fleet.kustomize(fsys, "tenants/production", "tenants/production/kustomization.yaml", variant)
			if err != nil {
				t.Fatal(err)
			}
			// Built in parts, the unpatched objects and their origins are
			// the whole build's, in its order.
			plan := fleet.splitFiles(fsys, "tenants/production", content)
			split := false
			if plan != nil {
				if unpatched, ok := fleet.unpatchedInParts(fsys, "tenants/production", "tenants/production/kustomization.yaml", plan); ok {
					if !slices.EqualFunc(unpatched, m.Resources(), sameOrigin) {
						t.Errorf("unpatched in parts: %d objects differ from the whole build's %d", len(unpatched), len(m.Resources()))
					}
				} else if tc.split {
					t.Error("unpatched build not split")
				}
				_, split = fleet.splitPatched(fsys, "tenants/production", "tenants/production/kustomization.yaml", plan, m.Resources())
			} else if tc.split {
				t.Error("unpatched build not split")
			}
			if split != tc.split {
				t.Errorf("split: %v, want %v", split, tc.split)
			}
			t.Log(whole)
		})
	}
}

// sameOrigin reports whether a and b have the same id and origin.
func sameOrigin(a, b *resource.Resource) bool {
	originA, errA := a.GetOrigin()
	originB, errB := b.GetOrigin()
	return a.CurId() == b.CurId() && errA == nil && errB == nil && originA != nil && originB != nil && *originA == *originB
}
