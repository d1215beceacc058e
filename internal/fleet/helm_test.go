package fleet_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/landlord-dev/landlord/internal/fleet"
)

// TestHelmInstall builds the infrastructure of a fleet installing Landlord's
// chart from each kind of repository.
func TestHelmInstall(t *testing.T) {
	for url, want := range map[string][]string{
		"oci://registry.example.com/charts": {"HelmRelease/landlord", "Namespace/landlord-system", "OCIRepository/landlord"},
		"https://charts.example.com":        {"HelmRelease/landlord", "HelmRepository/landlord", "Namespace/landlord-system"},
	} {
		t.Run(url, func(t *testing.T) {
			dir := t.TempDir()
			chart := fleet.Chart{Name: "landlord", RepositoryURL: url, Version: "1.2.3"}
			if _, err := fleet.InitFleetWith(dir, fleet.FleetOptions{Clusters: []string{"dev"}, Install: fleet.HelmInstall, Chart: chart}); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, res := range build(t, filepath.Join(dir, "infrastructure", "landlord")).Resources() {
				got = append(got, res.GetKind()+"/"+res.GetName())
				if res.GetKind() == "Namespace" {
					if res.GetLabels()["pod-security.kubernetes.io/enforce"] != "restricted" {
						t.Errorf("namespace labels %v, want config/default's", res.GetLabels())
					}
					continue
				}
				if res.GetNamespace() != fleet.FluxNamespace {
					t.Errorf("%s in namespace %q, want %s", res.CurId(), res.GetNamespace(), fleet.FluxNamespace)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("infrastructure/landlord builds %v, want %v", got, want)
			}
		})
	}
	_, err := fleet.InitFleetWith(t.TempDir(), fleet.FleetOptions{Clusters: []string{"dev"}, Install: fleet.HelmInstall,
		Chart: fleet.Chart{Name: "landlord", RepositoryURL: "http://charts.example.com", Version: "1.2.3"}})
	checkErr(t, "http://", err, `chart repository "http://charts.example.com": want oci://… or https://…`)
}
