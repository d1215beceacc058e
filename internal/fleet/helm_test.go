package fleet_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/landlord-dev/landlord/internal/apivalidation"
	"github.com/landlord-dev/landlord/internal/fleet"
)

// TestHelmInstall builds the infrastructure of a fleet installing Landlord's
// chart from each kind of repository; every object passes its kind's schema,
// as the API server would judge it.
func TestHelmInstall(t *testing.T) {
	schemas, err := apivalidation.NewSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		chart fleet.Chart
		want  []string
		// verified says the source carries the release's signing identity.
		verified bool
	}{
		"oci, verified":   {fleet.Chart{RepositoryURL: "oci://registry.example.com/charts", Verify: true}, []string{"HelmRelease/landlord", "Namespace/landlord-system", "OCIRepository/landlord"}, true},
		"oci, unverified": {fleet.Chart{RepositoryURL: "oci://registry.example.com/charts"}, []string{"HelmRelease/landlord", "Namespace/landlord-system", "OCIRepository/landlord"}, false},
		"https":           {fleet.Chart{RepositoryURL: "https://charts.example.com"}, []string{"HelmRelease/landlord", "HelmRepository/landlord", "Namespace/landlord-system"}, false},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			tc.chart.Name, tc.chart.Version = "landlord", "1.2.3"
			if _, err := fleet.InitFleetWith(dir, fleet.FleetOptions{Clusters: []string{"dev"}, Install: fleet.HelmInstall, Chart: tc.chart}); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, res := range build(t, filepath.Join(dir, "infrastructure", "landlord")).Resources() {
				got = append(got, res.GetKind()+"/"+res.GetName())
				// As the API server reads it: JSON numbers, not kustomize's ints.
				raw, err := res.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				var obj map[string]any
				if err := json.Unmarshal(raw, &obj); err != nil {
					t.Fatal(err)
				}
				kind, err := schemas.Lookup(schema.FromAPIVersionAndKind(res.GetApiVersion(), res.GetKind()))
				if err != nil || kind == nil {
					t.Fatalf("%s: no schema (%v)", res.CurId(), err)
				}
				if r := kind.Validate(context.Background(), obj, res.GetNamespace()); len(r.Unknown)+len(r.Schema)+len(r.Rules) > 0 {
					t.Errorf("%s refused by its schema: %+v", res.CurId(), r)
				}
				if res.GetKind() == "OCIRepository" {
					identities, _ := res.GetSlice("spec.verify.matchOIDCIdentity")
					want := []any{map[string]any{"issuer": fleet.ReleaseIssuer, "subject": fleet.ReleaseSubject}}
					if verified := reflect.DeepEqual(identities, want); verified != tc.verified {
						t.Errorf("OCIRepository verifies %v, want the release's identity: %v", identities, tc.verified)
					}
				}
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
			if !slices.Equal(got, tc.want) {
				t.Errorf("infrastructure/landlord builds %v, want %v", got, tc.want)
			}
		})
	}
	_, err = fleet.InitFleetWith(t.TempDir(), fleet.FleetOptions{Clusters: []string{"dev"}, Install: fleet.HelmInstall,
		Chart: fleet.Chart{Name: "landlord", RepositoryURL: "http://charts.example.com", Version: "1.2.3"}})
	checkErr(t, "http://", err, `chart repository "http://charts.example.com": want oci://… or https://…`)
	_, err = fleet.InitFleetWith(t.TempDir(), fleet.FleetOptions{Clusters: []string{"dev"}, Install: fleet.HelmInstall,
		Chart: fleet.Chart{Name: "landlord", RepositoryURL: "https://charts.example.com", Version: "1.2.3", Verify: true}})
	checkErr(t, "https:// verified", err, `Flux verifies signatures of charts in OCI repositories only`)
}

// TestREADMEVerifiesTheReleaseIdentity: the cosign commands a user copies
// check the identity the scaffolded fleet has Flux check.
func TestREADMEVerifiesTheReleaseIdentity(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--certificate-oidc-issuer-regexp '" + fleet.ReleaseIssuer + "'", "--certificate-identity-regexp '" + fleet.ReleaseSubject + "'"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md lacks %s", want)
		}
	}
}
