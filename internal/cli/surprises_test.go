package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landlord-dev/landlord/internal/fleet"
	"github.com/landlord-dev/landlord/internal/lockdown"
)

// TestSurprises holds the CLI to what a user of kubectl and flux expects,
// one case for each surprise a new user met (issue 25): each failed before
// the change that fixed it.
func TestSurprises(t *testing.T) {
	for name, tc := range map[string]struct {
		// setup prepares dir and returns the command line to run in it.
		setup func(t *testing.T, dir string) []string
		code  int
		// out must appear in stdout or stderr; not must not.
		out, not []string
	}{
		"a typo in a subcommand fails": {
			setup: func(*testing.T, string) []string { return []string{"tenant", "lst"} },
			code:  1, out: []string{`unknown command "lst" for "landlord tenant"`, "Did you mean this?", "\tlist\n"},
		},
		"init fleet adds a cluster to its own fleet": {
			setup: func(t *testing.T, dir string) []string {
				landlord(t, "init", "fleet", dir, "--clusters", "staging,production")
				return []string{"init", "fleet", dir, "--clusters", "staging,production,qa"}
			},
			out: []string{"updated README.md", "created clusters/qa/tenants.yaml", "created tenants/qa/kustomization.yaml"},
		},
		"lint points at the file that does not parse": {
			setup: func(t *testing.T, dir string) []string {
				landlord(t, "init", "fleet", dir, "--clusters", "staging")
				landlord(t, "tenant", "create", "dev", "--namespace", "dev", "--export", "--fleet", dir)
				writeFile(t, filepath.Join(dir, "tenants", "base", "dev", "tenant.yaml"), "apiVersion: landlord.dev/v1alpha1\nkind: Tenant\nmetadata:\n  name: dev\nspec:\n  namespaces: [{name: dev}\n  - bad\n")
				return []string{"lint", dir}
			},
			code: 1, out: []string{"tenants/base/dev/tenant.yaml:5: LINT001"}, not: []string{"kustomization.yaml:4"},
		},
		"install's example writes the file the fleet lists": {
			setup: func(t *testing.T, dir string) []string {
				landlord(t, "init", "fleet", dir)
				list, err := os.ReadFile(filepath.Join(dir, "infrastructure", "landlord", fleet.KustomizationFile))
				if err != nil || !strings.Contains(string(list), "- "+filepath.Base(fleet.InstallFile)+"\n") {
					t.Fatalf("the fleet does not list %s (%v):\n%s", fleet.InstallFile, err, list)
				}
				return []string{"install", "--help"}
			},
			out: []string{"landlord install --export > fleet/" + fleet.InstallFile + " "},
		},
		"tenant create names what the user wrote": {
			setup: func(*testing.T, string) []string {
				return []string{"tenant", "create", "Dev_Team", "--namespace", "apps", "--git-url", "https://git.example.com/dev", "--export"}
			},
			code: 1, out: []string{`NAME "Dev_Team": want a DNS label`, "such as dev-team"}, not: []string{"spec.sources", "regex used"},
		},
		"an scp-style Git address gets its ssh:// form": {
			setup: func(*testing.T, string) []string {
				return []string{"tenant", "create", "dev", "--namespace", "apps", "--git-url", "git@github.com:org/dev.git", "--export"}
			},
			code: 1, out: []string{"write it ssh://git@github.com/org/dev.git"}, not: []string{"should match"},
		},
		"-o is a format, the import directory --output-dir": {
			setup: func(*testing.T, string) []string { return []string{"tenant", "import", ".", "-o", "imported"} },
			code:  1, out: []string{"unknown shorthand flag: 'o'"},
		},
		"dry runs ask the server, not the user's file": {
			setup: func(*testing.T, string) []string {
				return []string{"tenant", "create", "dev", "--namespace", "apps", "--export", "--dry-run=server"}
			},
			code: 1, out: []string{"--dry-run=server asks the cluster; --export and --render do not"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			code, stdout, stderr := execute(tc.setup(t, dir)...)
			out := stdout + stderr
			if code != tc.code {
				t.Errorf("exit code %d, want %d:\n%s", code, tc.code, out)
			}
			for _, want := range tc.out {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			for _, unwanted := range tc.not {
				if strings.Contains(out, unwanted) {
					t.Errorf("output has %q:\n%s", unwanted, out)
				}
			}
		})
	}
}

// TestInstallHelpListsTheLockdown: the help says everything --flux-lockdown
// sets, read from the table it sets.
func TestInstallHelpListsTheLockdown(t *testing.T) {
	help := landlord(t, "install", "--help")
	for _, s := range lockdown.Settings() {
		if line := "  " + s.Flag.String() + " on " + strings.Join(s.Controllers, ", ") + "\n"; !strings.Contains(help, line) {
			t.Errorf("install --help lacks %q", line)
		}
	}
}

// TestDryRunServer: a server dry run is judged by the API server and the
// guard and leaves nothing behind.
func TestDryRunServer(t *testing.T) {
	t.Parallel()
	startLandlord(t)
	out, _, err := landlordLive("tenant", "create", "dry-a", "--namespace", "dry-a", "--dry-run=server")
	if err != nil || out != "tenant/dry-a created (server dry run)\n" {
		t.Errorf("create --dry-run=server: %q, %v", out, err)
	}
	if _, _, err := landlordLive("tenant", "get", "dry-a"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("a dry run stored tenant dry-a: %v", err)
	}
	// The guard judges a dry run: a namespace of the platform is refused.
	if _, _, err := landlordLive("tenant", "create", "dry-b", "--namespace", "kube-system", "--dry-run=server"); err == nil {
		t.Error("create --dry-run=server of a tenant of kube-system was admitted")
	}
	createReady(t, "dry-c", "dry-c")
	out, _, err = landlordLive("tenant", "create", "dry-c", "--namespace", "dry-c", "--quota", "pods=5", "--dry-run=server")
	if err != nil || out != "tenant/dry-c configured (server dry run)\n" {
		t.Errorf("create --dry-run=server of a change: %q, %v", out, err)
	}
	out, _, err = landlordLive("tenant", "delete", "dry-c", "--dry-run=server")
	if err != nil || !strings.HasPrefix(out, "tenant/dry-c would be marked for deletion (server dry run;") {
		t.Errorf("delete --dry-run=server: %q, %v", out, err)
	}
	out, _, err = landlordLive("tenant", "get", "dry-c", "-o", "jsonpath={.metadata.deletionTimestamp}{.spec.quota}")
	if err != nil || out != "" {
		t.Errorf("after dry runs, dry-c has deletionTimestamp/quota %q (%v), want neither", out, err)
	}
	if _, _, err := landlordLive("tenant", "delete", "dry-c", "--dry-run=server", "--wait"); err == nil || !strings.Contains(err.Error(), "use one or the other") {
		t.Errorf("--dry-run=server --wait: %v", err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
