package cli_test

import (
	"strings"
	"testing"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

func TestTenantGet(t *testing.T) {
	t.Parallel()
	startLandlord(t)
	createReady(t, "get-a", "get-a-apps", "get-a-jobs")

	for _, format := range []string{"json", "yaml"} {
		out, _, err := landlordLive("tenant", "get", "get-a", "-o", format)
		if err != nil {
			t.Fatalf("-o %s: %v", format, err)
		}
		got := &v1alpha1.Tenant{}
		if err := decode(format, out, got); err != nil {
			t.Fatalf("-o %s does not parse to a Tenant: %v\n%s", format, err, out)
		}
		if got.Kind != "Tenant" || got.APIVersion != v1alpha1.GroupVersion.String() || got.Name != "get-a" ||
			strings.Join(got.NamespaceNames(), ",") != "get-a-apps,get-a-jobs" || len(got.ManagedFields) > 0 {
			t.Errorf("-o %s: %s %s %s namespaces %v, %d managed fields; want Tenant get-a with its namespaces, no managed fields",
				format, got.APIVersion, got.Kind, got.Name, got.NamespaceNames(), len(got.ManagedFields))
		}
	}

	out, _, err := landlordLive("tenant", "get", "get-a", "-o", "jsonpath={.status.namespaces[*].name}")
	if err != nil || out != "get-a-apps get-a-jobs" {
		t.Errorf("-o jsonpath: %q, %v; want the namespaces", out, err)
	}
	out, _, err = landlordLive("tenant", "get", "get-a", "-o", "name")
	if err != nil || out != "tenant.landlord.dev/get-a\n" {
		t.Errorf("-o name: %q, %v", out, err)
	}
	out, _, err = landlordLive("tenant", "get", "get-a")
	if err != nil {
		t.Fatal(err)
	}
	if row := tableRow(t, out, "get-a"); row[1] != "get-a-apps,get-a-jobs" || row[2] != "True" {
		t.Errorf("row = %v, want get-a's namespaces, Ready True", row)
	}
	for _, want := range [][]string{
		{"NAMESPACE", "ORIGIN", "READY", "MESSAGE"},
		{"get-a-apps", "Platform", "True"},
		{"get-a-jobs", "Platform", "True"},
		{"CONDITION", "STATUS", "REASON", "MESSAGE", "AGE"},
	} {
		if row := tableRow(t, out, want[0]); strings.Join(row[:len(want)], " ") != strings.Join(want, " ") {
			t.Errorf("row %v, want it to start %v in:\n%s", row, want, out)
		}
	}
	if row := tableRow(t, out, "Ready"); strings.Join(row[:3], " ") != "Ready True Provisioned" {
		t.Errorf("Ready condition row = %v, want True Provisioned", row)
	}
	if strings.Contains(out, "SOURCE") {
		t.Errorf("a tenant without sources shows a SOURCE block:\n%s", out)
	}
}

// TestTenantGetSources shows the sources block of a tenant whose source
// Flux has not synced, as no Flux runs here.
func TestTenantGetSources(t *testing.T) {
	t.Parallel()
	startLandlord(t)
	if _, _, err := landlordLive("tenant", "create", "get-src", "--namespace", "get-src",
		"--git-url", "https://git.example.com/get-src"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "get-src", func(tenant *v1alpha1.Tenant) bool { return len(tenant.Status.Sources) == 1 })
	out, _, err := landlordLive("tenant", "get", "get-src")
	if err != nil {
		t.Fatal(err)
	}
	if row := tableRow(t, out, "SOURCE"); strings.Join(row, " ") != "SOURCE REVISION READY MESSAGE" {
		t.Errorf("sources header = %v", row)
	}
	// The tenant's one source is named after it, so its row follows the
	// tenant's own.
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, "SOURCE") {
			if cells := strings.Fields(lines[i+1]); cells[0] != "get-src" || cells[1] != "<none>" || cells[2] != "False" {
				t.Errorf("source row = %v, want get-src, no revision, not ready", cells)
			}
		}
	}
}

func TestTenantGetErrors(t *testing.T) {
	t.Parallel()
	startLandlord(t)
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"unknown tenant": {[]string{"tenant", "get", "nobody"}, "tenant nobody not found: 'landlord tenant list' shows the tenants"},
		"bad output":     {[]string{"tenant", "get", "nobody", "-o", "xml"}, `--output "xml": want one of table, wide, yaml, json, name, jsonpath=`},
		"no name":        {[]string{"tenant", "get"}, "accepts 1 arg(s), received 0"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := landlordLive(tc.args...)
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v, want %s", err, tc.want)
			}
		})
	}
}
