package cli_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// createReady creates a tenant through the CLI and waits for it to be Ready.
func createReady(t *testing.T, name string, namespaces ...string) {
	t.Helper()
	stdout, stderr, err := landlordLive("tenant", "create", name, "--namespace", strings.Join(namespaces, ","),
		"--wait", "--timeout", "3m")
	if err != nil {
		t.Fatalf("tenant create %s --wait: %v\nstderr:\n%s", name, err, stderr)
	}
	if want := "tenant/" + name + " created\ntenant/" + name + " is Ready\n"; stdout != want {
		t.Errorf("tenant create %s stdout:\n%s\nwant:\n%s", name, stdout, want)
	}
	if !strings.Contains(stderr, "waiting for tenant/"+name+" to be Ready") || !strings.Contains(stderr, "  Ready=True Provisioned: ") {
		t.Errorf("tenant create %s --wait printed no progress ending in Ready=True:\n%s", name, stderr)
	}
}

// waitFor reads the tenant until done holds; the bound only keeps a broken
// controller from hanging the run.
func waitFor(t *testing.T, name string, done func(*v1alpha1.Tenant) bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		tenant := &v1alpha1.Tenant{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: name}, tenant); err != nil {
			return false, err
		}
		return done(tenant), nil
	})
	if err != nil {
		t.Fatalf("tenant %s: %v", name, err)
	}
}

// tableRow finds the row of name in a table, split into its cells.
func tableRow(t *testing.T, table, name string) []string {
	t.Helper()
	for _, line := range strings.Split(table, "\n") {
		if cells := strings.Fields(line); len(cells) > 0 && cells[0] == name {
			return cells
		}
	}
	t.Fatalf("no row %s in:\n%s", name, table)
	return nil
}

func TestTenantCreateList(t *testing.T) {
	t.Parallel()
	startLandlord(t)
	createReady(t, "list-a", "list-a-apps", "list-a-jobs")

	out, _, err := landlordLive("tenant", "create", "list-a", "--namespace", "list-a-apps,list-a-jobs")
	if err != nil || out != "tenant/list-a unchanged\n" {
		t.Errorf("the same create again: %q, %v; want unchanged", out, err)
	}
	out, _, err = landlordLive("tenant", "create", "list-a", "--namespace", "list-a-apps,list-a-jobs", "--quota", "pods=10")
	if err != nil || out != "tenant/list-a configured\n" {
		t.Errorf("create with a quota added: %q, %v; want configured", out, err)
	}

	out, _, err = landlordLive("tenant", "list")
	if err != nil {
		t.Fatal(err)
	}
	if header := strings.Fields(strings.SplitN(out, "\n", 2)[0]); strings.Join(header, " ") != "NAME NAMESPACES READY REVISION MESSAGE AGE" {
		t.Errorf("header = %v", header)
	}
	row := tableRow(t, out, "list-a")
	if row[1] != "list-a-apps,list-a-jobs" || row[2] != "True" || row[3] != "<none>" {
		t.Errorf("row = %v, want namespaces list-a-apps,list-a-jobs, Ready True, no revision", row)
	}

	for _, format := range []string{"json", "yaml"} {
		out, _, err = landlordLive("tenant", "list", "-o", format)
		if err != nil {
			t.Fatalf("-o %s: %v", format, err)
		}
		list := &v1alpha1.TenantList{}
		if err := decode(format, out, list); err != nil {
			t.Fatalf("-o %s: %v\n%s", format, err, out)
		}
		if list.Kind != "TenantList" || !containsTenant(list.Items, "list-a") {
			t.Errorf("-o %s: kind %q, items %d, want a TenantList with list-a", format, list.Kind, len(list.Items))
		}
	}

	// As kubectl get: -o wide adds columns, -o name prints KIND.GROUP/NAME,
	// -o jsonpath= what the template selects.
	out, _, err = landlordLive("tenant", "list", "-o", "wide")
	if err != nil {
		t.Fatal(err)
	}
	if header := strings.Join(strings.Fields(strings.SplitN(out, "\n", 2)[0]), " "); header != "NAME NAMESPACES READY REVISION MESSAGE AGE OWNERS SOURCES" {
		t.Errorf("-o wide header = %s", header)
	}
	if row := tableRow(t, out, "list-a"); len(row) < 8 || row[len(row)-1] != "<none>" || row[len(row)-2] != "<none>" {
		t.Errorf("-o wide row = %v, want no owners and no sources", row)
	}
	out, _, err = landlordLive("tenant", "list", "-o", "name")
	if err != nil || !strings.Contains(out, "tenant.landlord.dev/list-a\n") {
		t.Errorf("-o name: %v\n%s", err, out)
	}
	out, _, err = landlordLive("tenant", "list", "-o", `jsonpath={range .items[*]}{.metadata.name}={.status.namespaces[*].name}{"\n"}{end}`)
	if err != nil || !strings.Contains(out, "list-a=list-a-apps list-a-jobs\n") {
		t.Errorf("-o jsonpath: %v\n%s", err, out)
	}
}

func containsTenant(items []v1alpha1.Tenant, name string) bool {
	for _, item := range items {
		if item.Name == name && item.Kind == "Tenant" && len(item.ManagedFields) == 0 {
			return true
		}
	}
	return false
}

// TestTenantCreateConflict applies over a Tenant another manager set up, as
// Flux would from a fleet repository.
func TestTenantCreateConflict(t *testing.T) {
	t.Parallel()
	startLandlord(t)
	flux := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": v1alpha1.GroupVersion.String(),
		"kind":       "Tenant",
		"metadata":   map[string]any{"name": "conflict"},
		"spec": map[string]any{
			"namespaces":  []any{map[string]any{"name": "conflict-apps"}},
			"podSecurity": "baseline",
		},
	}}
	if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(flux), client.FieldOwner("kustomize-controller")); err != nil {
		t.Fatal(err)
	}

	_, _, err := landlordLive("tenant", "create", "conflict", "--namespace", "conflict-apps", "--pod-security", "restricted")
	if err == nil || !strings.Contains(err.Error(), "--force-conflicts") || !strings.Contains(err.Error(), "kustomize-controller") {
		t.Fatalf("err = %v, want a conflict with kustomize-controller naming --force-conflicts", err)
	}
	out, _, err := landlordLive("tenant", "create", "conflict", "--namespace", "conflict-apps", "--pod-security", "restricted", "--force-conflicts")
	if err != nil || out != "tenant/conflict configured\n" {
		t.Fatalf("--force-conflicts: %q, %v; want configured", out, err)
	}
	got := &v1alpha1.Tenant{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: "conflict"}, got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.PodSecurity != v1alpha1.PodSecurityRestricted {
		t.Errorf("podSecurity = %s after --force-conflicts, want restricted", got.Spec.PodSecurity)
	}
}

// TestTenantCreateWaitTimeout waits on a tenant whose source never syncs,
// as no Flux runs here, and fails with the last Ready message.
func TestTenantCreateWaitTimeout(t *testing.T) {
	t.Parallel()
	startLandlord(t)
	args := []string{"tenant", "create", "unsynced", "--namespace", "unsynced", "--git-url", "https://git.example.com/unsynced"}
	if _, _, err := landlordLive(args...); err != nil {
		t.Fatal(err)
	}
	// Once the controller recorded the source's state, nothing changes it.
	waitFor(t, "unsynced", func(tenant *v1alpha1.Tenant) bool {
		ready := apimeta.FindStatusCondition(tenant.Status.Conditions, v1alpha1.ReadyCondition)
		return ready != nil && ready.Reason == "SourceNotReady" && ready.ObservedGeneration == tenant.Generation
	})

	out, stderr, err := landlordLive(append(args, "--wait", "--timeout", "2s")...)
	if err == nil {
		t.Fatalf("--wait on a tenant that cannot be Ready succeeded:\n%s", out)
	}
	want := "tenant/unsynced: gave up after --timeout 2s; last: Ready=False SourceNotReady: source unsynced: "
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v\nwant it to start %q", err, want)
	}
	if out != "tenant/unsynced unchanged\n" || !strings.Contains(stderr, "  Ready=False SourceNotReady: ") {
		t.Errorf("stdout %q, stderr:\n%s", out, stderr)
	}
}

// TestTenantCreateWaitStalled ends the wait at once on a spec the
// controller cannot apply: waiting longer would not help.
func TestTenantCreateWaitStalled(t *testing.T) {
	t.Parallel()
	startLandlord(t)
	_, _, err := landlordLive("tenant", "create", "stalled", "--namespace", "stalled", "--quota", "foo=1", "--wait", "--timeout", "3m")
	want := "tenant/stalled is stalled until its spec changes: InvalidSpec: creating ResourceQuota stalled/landlord-quota: "
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v\nwant it to start %q", err, want)
	}
}

func TestTenantListErrors(t *testing.T) {
	t.Parallel()
	startCluster(t)
	_, _, err := landlordLive("tenant", "list", "-o", "xml")
	if want := `--output "xml": want one of table, wide, yaml, json, name, jsonpath=`; err == nil || err.Error() != want {
		t.Errorf("-o xml: err = %v, want %s", err, want)
	}
	_, _, err = landlordLive("tenant", "list", "-o", "jsonpath={.items[")
	if want := `--output jsonpath={.items[:`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("-o jsonpath with a broken template: err = %v, want %s…", err, want)
	}
}

// decode reads -o json or yaml output.
func decode(format, out string, into any) error {
	if format == "json" {
		return json.Unmarshal([]byte(out), into)
	}
	return yaml.UnmarshalStrict([]byte(out), into)
}

// TestTenantCreateLiveFlagErrors checks the flags of the live apply, which
// fail before any cluster is asked.
func TestTenantCreateLiveFlagErrors(t *testing.T) {
	base := []string{"tenant", "create", "team", "--namespace", "apps"}
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"export and render":       {[]string{"--export", "--render"}, "set at most one of --export (the Tenant as YAML) or --render (the objects it creates); neither applies it to the cluster"},
		"wait with export":        {[]string{"--export", "--wait"}, "--wait and --force-conflicts apply to the cluster: drop --export and --render to use them"},
		"force with render":       {[]string{"--render", "--force-conflicts"}, "--wait and --force-conflicts apply to the cluster: drop --export and --render to use them"},
		"timeout without wait":    {[]string{"--timeout", "1m"}, "--timeout needs --wait"},
		"negative timeout":        {[]string{"--wait", "--timeout", "-1s"}, "--timeout -1s: must be positive"},
		"timeout without a value": {[]string{"--wait", "--timeout", "soon"}, `invalid argument "soon" for "--timeout" flag`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := run(append(base, tc.args...)...)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to start %q", err, tc.want)
			}
		})
	}
}
