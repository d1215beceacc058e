package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/landlord-dev/landlord/internal/cli"
	"github.com/landlord-dev/landlord/internal/lint"
)

// Lint fixtures: dirty holds one instance of every kind of finding, clean
// the legitimate neighbours of each.
const (
	dirtyFleet = "testdata/lint/dirty/fleet"
	dirtyRepo  = "dev-team=testdata/lint/dirty/dev-team"
	cleanFleet = "testdata/lint/clean/fleet"
	cleanRepo  = "dev-team=testdata/lint/clean/dev-team"
)

// execute runs the command line as main does and returns its exit code and
// outputs.
func execute(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = cli.Execute(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestLintDirtyFleetGolden asserts every finding of the dirty fixture,
// file, line, rule and message, and that it holds every kind of finding.
func TestLintDirtyFleetGolden(t *testing.T) {
	code, stdout, stderr := execute("lint", dirtyFleet, "--tenant-repo", dirtyRepo)
	if code != 1 {
		t.Errorf("exit code %d, want 1; stderr: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if want := "error: lint: " + strconv.Itoa(len(lines)) + " findings\n"; stderr != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
	lintGolden(t, "lint/dirty.golden", stdout)

	rules := map[string]bool{}
	for _, line := range lines {
		parts := strings.SplitN(line, ": ", 3)
		if len(parts) < 3 {
			t.Fatalf("line %q is not file:line: RULE: message", line)
		}
		rules[parts[1]] = true
	}
	want := []string{"LL002", "LL011", "LL013", "LL014"}
	for _, r := range lint.Rules {
		want = append(want, r.ID)
	}
	for _, id := range want {
		if !rules[id] {
			t.Errorf("no %s finding in the dirty fixture", id)
		}
	}
}

// TestLintJSON prints the same findings as a list of objects.
func TestLintJSON(t *testing.T) {
	_, text, _ := execute("lint", dirtyFleet, "--tenant-repo", dirtyRepo)
	code, stdout, _ := execute("lint", dirtyFleet, "--tenant-repo", dirtyRepo, "-o", "json")
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	var findings []map[string]any
	if err := json.Unmarshal([]byte(stdout), &findings); err != nil {
		t.Fatalf("-o json: %v\n%s", err, stdout)
	}
	var lines []string
	for _, f := range findings {
		for _, key := range []string{"file", "line", "rule", "message"} {
			if _, ok := f[key]; !ok {
				t.Fatalf("finding %v has no %s", f, key)
			}
		}
		lines = append(lines, f["file"].(string)+":"+strconv.Itoa(int(f["line"].(float64)))+": "+f["rule"].(string)+": "+f["message"].(string))
		if repo, _ := f["repo"].(string); strings.HasPrefix(f["message"].(string), "tenant dev-team: ") != (repo == "dev-team") {
			t.Errorf("finding %v: repo and message disagree on whose repository it is in", f)
		}
	}
	if got := strings.Join(lines, "\n") + "\n"; got != text {
		t.Errorf("-o json says\n%s\n-o text says\n%s", got, text)
	}
}

func TestLintCleanFleetPasses(t *testing.T) {
	for _, output := range []string{"text", "json"} {
		code, stdout, stderr := execute("lint", cleanFleet, "--tenant-repo", cleanRepo, "-o", output)
		want := ""
		if output == "json" {
			want = "[]\n"
		}
		if code != 0 || stdout != want || stderr != "" {
			t.Errorf("-o %s: exit code %d, stdout %q, stderr %q; want 0, %q and nothing", output, code, stdout, stderr, want)
		}
	}
}

// TestLintScaffoldedFleetPasses makes a fleet and tenant repositories with
// the real commands only, and lints them.
func TestLintScaffoldedFleetPasses(t *testing.T) {
	dir := t.TempDir()
	fleetDir := filepath.Join(dir, "fleet")
	commands := [][]string{
		{"init", "fleet", fleetDir, "--clusters", "staging,production"},
		{"tenant", "create", "dev-team", "--namespace", "apps,apps-jobs", "--git-url", "https://git.example.com/org/dev-team",
			"--branch", "main", "--env", "staging=./staging,production=./production", "--var", "CLUSTER_DOMAIN=example.com",
			"--quota", "requests.cpu=4,pods=50", "--export", "--fleet", fleetDir},
		{"tenant", "create", "ops", "--namespace", "ops", "--git-url", "ssh://git@git.example.com/org/ops", "--tag", "v1.2.0",
			"--env", "staging=./staging,production=./production", "--pod-security", "baseline", "--export", "--fleet", fleetDir},
		{"init", "tenant", filepath.Join(dir, "dev-team")},
		{"init", "tenant", filepath.Join(dir, "ops")},
	}
	for _, args := range commands {
		if code, _, stderr := execute(args...); code != 0 {
			t.Fatalf("landlord %s: exit code %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
	code, stdout, stderr := execute("lint", fleetDir,
		"--tenant-repo", "dev-team="+filepath.Join(dir, "dev-team"), "--tenant-repo", "ops="+filepath.Join(dir, "ops"))
	if code != 0 || stdout != "" || stderr != "" {
		t.Errorf("lint of a scaffolded fleet: exit code %d\n%s%s", code, stdout, stderr)
	}
}

func TestLintUsageErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"unknown output":      {[]string{"lint", cleanFleet, "-o", "yaml"}, `--output "yaml": want one of text, json`},
		"tenant repo no dir":  {[]string{"lint", cleanFleet, "--tenant-repo", "dev-team"}, `want TENANT=DIR or TENANT/SOURCE=DIR`},
		"tenant repo no name": {[]string{"lint", cleanFleet, "--tenant-repo", "=x"}, `want TENANT=DIR`},
		"unknown tenant":      {[]string{"lint", cleanFleet, "--tenant-repo", "nobody=testdata/lint/clean/dev-team"}, "no Tenant nobody"},
		"missing fleet":       {[]string{"lint", "testdata/lint/none"}, "repository testdata/lint/none"},
		"two fleets":          {[]string{"lint", cleanFleet, dirtyFleet}, "accepts at most 1 arg"},
	} {
		t.Run(name, func(t *testing.T) {
			code, _, stderr := execute(tc.args...)
			if code != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit code %d, stderr %q; want 1 and %q", code, stderr, tc.want)
			}
		})
	}
}

// TestLintHelpListsRules documents every rule id in --help.
func TestLintHelpListsRules(t *testing.T) {
	_, stdout, _ := execute("lint", "--help")
	for _, r := range lint.Rules {
		if !strings.Contains(stdout, r.ID+"  "+r.Name) {
			t.Errorf("--help does not list %s %s", r.ID, r.Name)
		}
	}
	for _, id := range []string{"LL001", "LL017"} {
		if !strings.Contains(stdout, id) {
			t.Errorf("--help does not list the guard's %s", id)
		}
	}
}

// lintGolden compares got with testdata/name, rewriting it with -update.
func lintGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", filepath.FromSlash(name))
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		gotLines, wantLines := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for _, l := range gotLines {
			if !slices.Contains(wantLines, l) {
				t.Errorf("unexpected: %s", l)
			}
		}
		for _, l := range wantLines {
			if !slices.Contains(gotLines, l) {
				t.Errorf("missing:    %s", l)
			}
		}
		t.Errorf("%s differs; run go test -run Lint -update to accept", path)
	}
}
