package lint_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/fleet"
	"github.com/landlord-dev/landlord/internal/lint"
)

// benchTenants is the size of the generated fleet: the 1,000
// tenants, each synced by two clusters.
const benchTenants = 1000

// generatedFleet writes a fleet of n tenants, each with its own namespace
// and a path per cluster, with the fleet package as `landlord tenant create
// --export --fleet` does, and each tenant's repository as `landlord init
// tenant` does.
func generatedFleet(tb testing.TB, n int) (dir string, repos []lint.TenantRepo) {
	tb.Helper()
	dir = tb.TempDir()
	root := filepath.Join(dir, "fleet")
	if _, err := fleet.InitFleet(root, fleet.DefaultClusters, fleet.FullInstall); err != nil {
		tb.Fatal(err)
	}
	envs := []fleet.EnvPath{{Env: "staging", Path: "./staging"}, {Env: "production", Path: "./production"}}
	for i := range n {
		name := fmt.Sprintf("team-%04d", i)
		repo := filepath.Join(dir, name)
		if _, err := fleet.InitTenantRepo(repo, fleet.Podinfo); err != nil {
			tb.Fatal(err)
		}
		t, err := fleet.NewTenant(fleet.TenantOptions{
			Name:       name,
			Namespaces: []string{name + "-apps"},
			GitURL:     "https://git.example.com/org/" + name,
			Ref:        v1alpha1.GitRef{Branch: "main"},
		})
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := fleet.AddTenant(root, t, envs); err != nil {
			tb.Fatal(err)
		}
		repos = append(repos, lint.TenantRepo{Tenant: name, Dir: repo})
	}
	return root, repos
}

// BenchmarkLintFleet lints a generated fleet of 1,000 tenants × 2 clusters
// with every tenant's repository: run it with -benchtime=1x, one lint takes
// seconds.
func BenchmarkLintFleet(b *testing.B) {
	dir, repos := generatedFleet(b, benchTenants)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		findings, err := lint.Lint(context.Background(), lint.Options{Dir: dir, TenantRepos: repos})
		if err != nil {
			b.Fatal(err)
		}
		if len(findings) > 0 {
			b.Fatalf("generated fleet: %d findings, first %s", len(findings), findings[0])
		}
	}
}
