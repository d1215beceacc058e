package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landlord-dev/landlord/config"
)

// TestReferenceUpToDate fails when docs/api.md is not what the CRDs give.
func TestReferenceUpToDate(t *testing.T) {
	crds, err := config.LandlordCRDs()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", File))
	if err != nil {
		t.Fatal(err)
	}
	want := Reference(crds)
	if string(got) != string(want) {
		t.Errorf("%s differs from what the CRDs in config/crd/bases give: run make generate", File)
	}
	// Every field of the Go types reaches the reference: a sample of the
	// Tenant's, each with its validation.
	for _, row := range []string{
		"| `spec.sources[].git.url` | string | yes |",
		"| `spec.quota` |",
		"| `status.conditions[].reason` | string | yes |",
	} {
		if !strings.Contains(string(want), row) {
			t.Errorf("the reference lacks a row starting %q", row)
		}
	}
}
