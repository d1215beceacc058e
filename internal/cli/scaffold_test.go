package cli_test

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landlord-dev/landlord/internal/cli"
	"github.com/landlord-dev/landlord/internal/fleet"
	"github.com/landlord-dev/landlord/internal/render"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// elided are left out of golden trees: generated manifests, which the
// fleet package's tests compare with the embedded ones.
var elided = map[string]string{
	fleet.CRDFile:     "(the Tenant CRD)",
	fleet.InstallFile: "(landlord install --export)",
	// Its landlord version changes with each release; TestInitFleetWorkflow
	// checks it.
	fleet.WorkflowFile: "(the CI workflow)",
}

// landlord runs the command line and returns its output, failing on error.
func landlord(t *testing.T, args ...string) string {
	t.Helper()
	out, err := run(args...)
	if err != nil {
		t.Fatalf("landlord %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func run(args ...string) (string, error) {
	cmd := cli.NewRootCommand()
	var out bytes.Buffer
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	err := cmd.Execute()
	return out.String(), err
}

// tree lists every file below dir, in lexical order, with its content.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		b.WriteString("=== " + rel + "\n")
		if text, ok := elided[rel]; ok {
			b.WriteString(text + "\n")
			return nil
		}
		data, err := os.ReadFile(path)
		b.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/cli -run %s -update to write it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update after checking):\n%s", path, got)
	}
}

func TestInitFleetGolden(t *testing.T) {
	dir := t.TempDir()
	out := landlord(t, "init", "fleet", dir)
	golden(t, "init-fleet", out+tree(t, dir))

	again := landlord(t, "init", "fleet", dir)
	if strings.Contains(again, "created") || strings.Contains(again, "updated") {
		t.Errorf("second init fleet wrote files:\n%s", again)
	}
}

func TestInitFleetClusters(t *testing.T) {
	dir := t.TempDir()
	landlord(t, "init", "fleet", dir, "--clusters", "dev")
	for _, path := range []string{"clusters/dev/tenants.yaml", "tenants/dev/kustomization.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, path)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "clusters", "staging")); err == nil {
		t.Error("clusters/staging written for --clusters dev")
	}
}

func TestInitTenantGolden(t *testing.T) {
	dir := t.TempDir()
	out := landlord(t, "init", "tenant", dir)
	golden(t, "init-tenant", out+tree(t, dir))
}

// devTeam are the flags of a tenant with every option set.
func devTeam(name string) []string {
	return []string{"tenant", "create", name,
		"--namespace", name + "-apps," + name + "-jobs",
		"--git-url", "https://git.example.com/org/" + name, "--branch", "main",
		"--secret-ref", name + "-auth",
		"--var", "CLUSTER_DOMAIN=example.com", "--var", "GREETING=a,b",
		"--quota", "requests.cpu=4,requests.memory=8Gi,pods=50",
		"--pod-security", "baseline",
	}
}

func TestTenantCreateFleetGolden(t *testing.T) {
	dir := t.TempDir()
	landlord(t, "init", "fleet", dir)
	var out strings.Builder
	out.WriteString(landlord(t, append(devTeam("dev-team"), "--export", "--fleet", dir,
		"--env", "staging=./staging,production=./production")...))
	out.WriteString(landlord(t, "tenant", "create", "ops", "--namespace", "ops",
		"--git-url", "ssh://git@git.example.com/org/ops", "--semver", ">=1.0.0",
		"--env", "staging=./clusters/staging", "--export", "--fleet", dir))
	golden(t, "tenant-create-fleet", out.String()+tree(t, filepath.Join(dir, "tenants")))

	before := tree(t, dir)
	landlord(t, append(devTeam("dev-team"), "--export", "--fleet", dir,
		"--env", "staging=./staging,production=./production")...)
	landlord(t, "init", "fleet", dir)
	if after := tree(t, dir); after != before {
		t.Errorf("running again changed the fleet:\n%s", after)
	}

	_, err := run("tenant", "create", "ops", "--namespace", "other", "--export", "--fleet", dir)
	if err == nil || !strings.Contains(err.Error(), "tenant ops already exists") {
		t.Errorf("a different tenant ops: err = %v, want a refusal", err)
	}
	if after := tree(t, dir); after != before {
		t.Errorf("the refusal changed the fleet")
	}
}

func TestTenantCreateExportGolden(t *testing.T) {
	golden(t, "tenant-create-export", landlord(t, append(devTeam("dev-team"), "--export", "--path", "./staging")...))
}

func TestTenantCreateRenderGolden(t *testing.T) {
	golden(t, "tenant-create-render", landlord(t, append(devTeam("dev-team"), "--render")...))
}

// TestTenantCreateRenderWithDefaults: --render with the controller's
// defaults file renders the quota and limits the controller would give a
// Tenant that sets none, and a Tenant's own quota instead of them.
func TestTenantCreateRenderWithDefaults(t *testing.T) {
	defaults := filepath.Join(t.TempDir(), "defaults.yaml")
	profile := "quota: {scope: Tenant, hard: {pods: '7'}}\nlimitRange: {limits: [{type: Container, defaultRequest: {cpu: 50m}}]}\n"
	if err := os.WriteFile(defaults, []byte(profile), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"tenant", "create", "team", "--namespace", "team-apps", "--render", "--tenant-defaults", defaults}
	out := landlord(t, base...)
	for _, want := range []string{"name: " + render.QuotaName, "pods: \"7\"", "name: " + render.LimitRangeName, "cpu: 50m"} {
		if !strings.Contains(out, want) {
			t.Errorf("render with defaults lacks %q:\n%s", want, out)
		}
	}
	if out := landlord(t, append(base, "--quota", "pods=3")...); strings.Contains(out, "pods: \"7\"") || !strings.Contains(out, "pods: \"3\"") {
		t.Errorf("a Tenant's own quota did not win over the defaults:\n%s", out)
	}
}

func TestTenantCreateFlagErrors(t *testing.T) {
	base := []string{"tenant", "create", "team", "--namespace", "apps", "--git-url", "https://git.example.com/team"}
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"export and render":    {[]string{"--export", "--render"}, "set at most one of --export"},
		"fleet without export": {[]string{"--render", "--fleet", "x"}, "--fleet needs --export"},
		"env without fleet":    {[]string{"--export", "--env", "staging=./s"}, "--env needs --fleet"},
		"bad var":              {[]string{"--export", "--var", "1X=y"}, "--var: spec.variables: Invalid value: spec.variables keys must be shell-style names"},
		"var without value":    {[]string{"--export", "--var", "X"}, `--var "X": want K=V`},
		"bad quota":            {[]string{"--export", "--quota", "pods=many"}, `--quota "pods=many"`},
		"quota without value":  {[]string{"--export", "--quota", "pods"}, `--quota "pods"`},
		"bad pod security":     {[]string{"--export", "--pod-security", "strict"}, `--pod-security: spec.podSecurity: Unsupported value: "strict": supported values: "privileged", "baseline", "restricted"`},
		"two refs":             {[]string{"--export", "--branch", "main", "--tag", "v1"}, "--branch, --tag or --semver: spec.sources[0].git.ref"},
		"bad namespace":        {[]string{"--export", "--namespace", "Apps"}, "--namespace: spec.namespaces[1].name"},
		"templates namespace":  {[]string{"--export", "--namespace", "landlord-templates"}, "--namespace: spec.namespaces[1].name: Forbidden"},
		"bad env":              {[]string{"--export", "--fleet", "x", "--env", "staging"}, `--env "staging": want cluster=path`},
		"env twice":            {[]string{"--export", "--fleet", "x", "--env", "a=./a,a=./b"}, "--env"},
		"bad git url":          {[]string{"--export", "--git-url", "git.example.com/team"}, "--git-url: spec.sources[0].git.url"},
		"bad path":             {[]string{"--export", "--path", "../x"}, "--path: spec.sources[0].path"},
		"defaults, no render":  {[]string{"--export", "--tenant-defaults", "d.yaml"}, "--tenant-defaults needs --render"},
		"bad defaults":         {[]string{"--render", "--tenant-defaults", "testdata/no-such-defaults.yaml"}, "--tenant-defaults: reading the tenant defaults"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := run(append(base, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"no namespace":       {[]string{"tenant", "create", "team", "--export"}, "--namespace: spec.namespaces: Required value"},
		"name not a label":   {[]string{"tenant", "create", "te.am", "--namespace", "a", "--export"}, `NAME "te.am": want a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters, such as te-am`},
		"ref without url":    {[]string{"tenant", "create", "team", "--namespace", "a", "--tag", "v1", "--export"}, "--tag needs --git-url"},
		"secret without url": {[]string{"tenant", "create", "team", "--namespace", "a", "--secret-ref", "s", "--export"}, "--secret-ref needs --git-url"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := run(tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
