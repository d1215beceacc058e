package lint

import (
	"fmt"
	"path/filepath"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/fleet"
)

// WriteBenchFleet writes below dir the fleet lint is benchmarked on, by
// BenchmarkLintFleet and make bench: n tenants, each with its own namespace
// and a path per cluster (staging, production), written with the fleet
// package as `landlord tenant create --export --fleet` does, and each
// tenant's repository as `landlord init tenant` does.
func WriteBenchFleet(dir string, n int) (fleetDir string, repos []TenantRepo, err error) {
	fleetDir = filepath.Join(dir, "fleet")
	if _, err := fleet.InitFleet(fleetDir, fleet.DefaultClusters, fleet.FullInstall); err != nil {
		return "", nil, err
	}
	envs := []fleet.EnvPath{{Env: "staging", Path: "./staging"}, {Env: "production", Path: "./production"}}
	for i := range n {
		name := fmt.Sprintf("team-%04d", i)
		repo := filepath.Join(dir, name)
		if _, err := fleet.InitTenantRepo(repo, fleet.Podinfo); err != nil {
			return "", nil, err
		}
		t, err := fleet.NewTenant(fleet.TenantOptions{
			Name:       name,
			Namespaces: []string{name + "-apps"},
			GitURL:     "https://git.example.com/org/" + name,
			Ref:        v1alpha1.GitRef{Branch: "main"},
		})
		if err != nil {
			return "", nil, err
		}
		if _, err := fleet.AddTenant(fleetDir, t, envs); err != nil {
			return "", nil, err
		}
		repos = append(repos, TenantRepo{Tenant: name, Dir: repo})
	}
	return fleetDir, repos, nil
}
