package lint_test

import (
	"context"
	"testing"

	"github.com/landlord-dev/landlord/internal/lint"
)

// benchTenants is the size of the generated fleet: the 1,000
// tenants, each synced by two clusters.
const benchTenants = 1000

// BenchmarkLintFleet lints a generated fleet of 1,000 tenants × 2 clusters
// with every tenant's repository: run it with -benchtime=1x, one lint takes
// seconds.
func BenchmarkLintFleet(b *testing.B) {
	dir, repos, err := lint.WriteBenchFleet(b.TempDir(), benchTenants)
	if err != nil {
		b.Fatal(err)
	}
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
