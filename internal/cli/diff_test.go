package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// diffFleet scaffolds a fleet of one cluster, staging, with tenants dev-team
// and ops, commits it in a new Git repository and returns its directory.
func diffFleet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	landlord(t, "init", "fleet", dir, "--clusters", "staging")
	landlord(t, append(devTeam("dev-team"), "--export", "--fleet", dir, "--env", "staging=./staging")...)
	landlord(t, "tenant", "create", "ops", "--namespace", "ops", "--owner", "Group:ops",
		"--git-url", "https://git.example.com/org/ops", "--branch", "main", "--export", "--fleet", dir)
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "base")
	return dir
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=test", "-c", "user.email=test@example.com"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// edit replaces old, which must be there, with new in the fleet's file.
func edit(t *testing.T, dir, file, old, new string) {
	t.Helper()
	path := filepath.Join(dir, file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s lacks %q:\n%s", file, old, data)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

const (
	devTeamFile = "tenants/base/dev-team/tenant.yaml"
	opsFile     = "tenants/base/ops/tenant.yaml"
)

// TestDiffGolden: each change to the fleet, the diff it shows and the exit
// code: 1 for changes, 2 for destructive ones.
func TestDiffGolden(t *testing.T) {
	for name, tc := range map[string]struct {
		change func(t *testing.T, dir string)
		code   int
	}{
		"added-tenant": {code: 1, change: func(t *testing.T, dir string) {
			landlord(t, "tenant", "create", "web", "--namespace", "web", "--export", "--fleet", dir)
		}},
		"removed-tenant": {code: 2, change: func(t *testing.T, dir string) {
			edit(t, dir, "tenants/base/kustomization.yaml", "- dev-team\n", "")
		}},
		"lowered-quota": {code: 2, change: func(t *testing.T, dir string) {
			edit(t, dir, devTeamFile, `requests.cpu: "4"`, `requests.cpu: "2"`)
		}},
		"raised-quota": {code: 1, change: func(t *testing.T, dir string) {
			edit(t, dir, devTeamFile, `requests.cpu: "4"`, `requests.cpu: "8"`)
		}},
		"moved-namespace": {code: 2, change: func(t *testing.T, dir string) {
			edit(t, dir, devTeamFile, "  - name: dev-team-jobs\n", "")
			edit(t, dir, opsFile, "  - name: ops\n", "  - name: ops\n  - name: dev-team-jobs\n")
		}},
		"source-repointed": {code: 2, change: func(t *testing.T, dir string) {
			edit(t, dir, opsFile, "https://git.example.com/org/ops", "https://git.example.com/other/ops")
		}},
		"owner-removed": {code: 2, change: func(t *testing.T, dir string) {
			edit(t, dir, opsFile, "  owners:\n  - kind: Group\n    name: ops\n", "")
		}},
	} {
		t.Run(name, func(t *testing.T) {
			dir := diffFleet(t)
			tc.change(t, dir)
			code, out, errOut := execute("diff", dir, "--base", "HEAD")
			if code != tc.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tc.code, errOut)
			}
			golden(t, "diff/"+name, out)
		})
	}
}

func TestDiffNoChange(t *testing.T) {
	dir := diffFleet(t)
	code, out, errOut := execute("diff", dir, "--base", "HEAD")
	if code != 0 || out != "no changes\n" {
		t.Errorf("exit code %d, output %q, want 0 and no changes; stderr:\n%s", code, out, errOut)
	}
}

// TestDiffAllowDestructive: destructive changes exit 1 when allowed, and
// still come first.
func TestDiffAllowDestructive(t *testing.T) {
	dir := diffFleet(t)
	edit(t, dir, "tenants/base/kustomization.yaml", "- dev-team\n", "")
	code, out, _ := execute("diff", dir, "--base", "HEAD", "--allow-destructive")
	if code != 1 || !strings.HasPrefix(out, "DESTRUCTIVE:\n") {
		t.Errorf("exit code %d, want 1, and the destructive changes first:\n%s", code, out)
	}
}

func TestDiffMarkdownAndJSON(t *testing.T) {
	dir := diffFleet(t)
	edit(t, dir, devTeamFile, `requests.cpu: "4"`, `requests.cpu: "2"`)
	_, md, _ := execute("diff", dir, "--base", "HEAD", "-o", "markdown")
	golden(t, "diff/lowered-quota-markdown", md)

	_, out, _ := execute("diff", dir, "--base", "HEAD", "-o", "json")
	var report struct {
		Destructive []struct{ Overlay, Tenant, Message string }
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(report.Destructive) != 1 || report.Destructive[0].Tenant != "dev-team" || !strings.Contains(report.Destructive[0].Message, "lowered from 4 to 2") {
		t.Errorf("destructive = %+v, want dev-team's lowered quota", report.Destructive)
	}
}

// TestDiffTenantRepoStopsPassing: a namespace leaving the tenant makes its
// repository, which deploys there, fail the guard; a new tenant's
// repository is judged against the new fleet only.
func TestDiffTenantRepoStopsPassing(t *testing.T) {
	dir := diffFleet(t)
	repo := t.TempDir()
	for file, content := range map[string]string{
		"staging/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- config.yaml\n",
		"staging/config.yaml":        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: dev-team-jobs\ndata:\n  a: b\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, file)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, file), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit(t, dir, devTeamFile, "  - name: dev-team-jobs\n", "")
	// A tenant the base lacks is judged against the new fleet alone.
	landlord(t, "tenant", "create", "web", "--namespace", "web", "--git-url", "https://git.example.com/org/web", "--export", "--fleet", dir)
	code, out, errOut := execute("diff", dir, "--base", "HEAD", "--tenant-repo", "dev-team="+repo, "--tenant-repo", "web="+repo)
	if code != 2 {
		t.Errorf("exit code %d, want 2; stderr:\n%s", code, errOut)
	}
	golden(t, "diff/tenant-repo-stops-passing", out)
}

// TestDiffErrors: what diff cannot compare exits 3 with an error naming it.
func TestDiffErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		args   func(dir string) []string
		change func(t *testing.T, dir string)
		want   string
	}{
		"bad ref": {args: func(dir string) []string { return []string{"diff", dir, "--base", "no-such-branch"} },
			want: `--base "no-such-branch": not a commit`},
		"no default branch": {args: func(dir string) []string { return []string{"diff", dir} },
			want: "origin's default branch unknown"},
		"unbuildable": {args: func(dir string) []string { return []string{"diff", dir, "--base", "HEAD"} },
			change: func(t *testing.T, dir string) {
				edit(t, dir, "tenants/staging/kustomization.yaml", "- ../base\n", "- ../base\n- missing.yaml\n")
			},
			want: "does not build"},
		"output": {args: func(dir string) []string { return []string{"diff", dir, "--base", "HEAD", "-o", "yaml"} },
			want: `--output "yaml": want one of text, json, markdown`},
		"unknown flag": {args: func(dir string) []string { return []string{"diff", dir, "--bsae", "HEAD"} },
			want: "unknown flag: --bsae"},
		"two directories": {args: func(dir string) []string { return []string{"diff", dir, dir} },
			want: "accepts at most 1 arg(s), received 2"},
		"base and live": {args: func(dir string) []string { return []string{"diff", dir, "--base", "HEAD", "--live"} },
			want: "--base and --live"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := diffFleet(t)
			if tc.change != nil {
				tc.change(t, dir)
			}
			code, _, errOut := execute(tc.args(dir)...)
			if code != 3 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit code %d, stderr %q; want 3 and %q", code, errOut, tc.want)
			}
		})
	}
}

// TestDiffFleetInSubdirectory: the base revision is read from the
// repository holding the fleet, the fleet below its root.
func TestDiffFleetInSubdirectory(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "fleet")
	landlord(t, "init", "fleet", dir, "--clusters", "staging")
	landlord(t, "tenant", "create", "ops", "--namespace", "ops", "--export", "--fleet", dir)
	git(t, root, "init", "-q", "-b", "main")
	git(t, root, "add", ".")
	git(t, root, "commit", "-q", "-m", "base")
	landlord(t, "tenant", "create", "web", "--namespace", "web", "--export", "--fleet", dir)
	code, out, errOut := execute("diff", dir, "--base", "HEAD")
	if code != 1 || !strings.Contains(out, "tenant web added\n") || strings.Contains(out, "tenant ops") {
		t.Errorf("exit code %d, want 1 and web added, ops unchanged:\n%s%s", code, out, errOut)
	}
}

// TestDiffDefaultBase: without --base, a clone compares with the merge base
// of HEAD and origin's default branch, so the commits of the branch count.
func TestDiffDefaultBase(t *testing.T) {
	origin := diffFleet(t)
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, origin, "clone", "-q", origin, clone)
	git(t, clone, "checkout", "-q", "-b", "change")
	landlord(t, "tenant", "create", "web", "--namespace", "web", "--export", "--fleet", clone)
	git(t, clone, "add", ".")
	git(t, clone, "commit", "-q", "-m", "add web")
	code, out, errOut := execute("diff", clone)
	if code != 1 || !strings.Contains(out, "tenant web added\n") {
		t.Errorf("exit code %d, want 1 and web added:\n%s%s", code, out, errOut)
	}
}
