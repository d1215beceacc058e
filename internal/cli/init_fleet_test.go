package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/charts"
	"github.com/landlord-dev/landlord/internal/cli"
	"github.com/landlord-dev/landlord/internal/fleet"
)

// TestInitFleetHelmGolden names the chart version, so that a release
// leaves the golden file as it is.
func TestInitFleetHelmGolden(t *testing.T) {
	dir := t.TempDir()
	args := []string{"init", "fleet", dir, "--install", "helm", "--clusters", "production", "--chart-version", "1.2.3"}
	out := landlord(t, args...)
	golden(t, "init-fleet-helm", out+tree(t, dir))

	again := landlord(t, args...)
	if strings.Contains(again, "created") || strings.Contains(again, "updated") {
		t.Errorf("second init fleet wrote files:\n%s", again)
	}
}

// TestInitFleetHelmDefaultsToThisRelease: without --chart-version the
// fleet installs the chart this binary embeds.
func TestInitFleetHelmDefaultsToThisRelease(t *testing.T) {
	chart, err := charts.Chart()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	landlord(t, "init", "fleet", dir, "--install", "helm")
	source, err := os.ReadFile(filepath.Join(dir, fleet.HelmSourceFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := "    tag: " + chart.Version + "\n"; !strings.Contains(string(source), want) || chart.Version == "" {
		t.Errorf("%s lacks %q:\n%s", fleet.HelmSourceFile, want, source)
	}
}

func TestInitFleetChartNeedsHelm(t *testing.T) {
	_, err := run("init", "fleet", t.TempDir(), "--chart-repository", "oci://registry.example.com/charts")
	if err == nil || !strings.Contains(err.Error(), "--chart-repository, --chart-version and --chart-verify need --install helm") {
		t.Errorf("error %v, want one naming --install helm", err)
	}
}

// TestInitFleetChartVerify: an oci:// chart is verified unless told not to;
// an https:// one cannot be, so it is not unless asked, which is refused.
func TestInitFleetChartVerify(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		verified bool
		err      string
	}{
		{args: nil, verified: true},
		{args: []string{"--chart-repository", "oci://mirror.example.com/charts"}, verified: true},
		{args: []string{"--chart-verify=false"}, verified: false},
		{args: []string{"--chart-repository", "https://charts.example.com"}, verified: false},
		{args: []string{"--chart-repository", "https://charts.example.com", "--chart-verify"}, err: "Flux verifies signatures of charts in OCI repositories only"},
	} {
		dir := t.TempDir()
		_, err := run(append([]string{"init", "fleet", dir, "--install", "helm"}, tc.args...)...)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: error %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		source, err := os.ReadFile(filepath.Join(dir, fleet.HelmSourceFile))
		if err != nil {
			t.Fatal(err)
		}
		if verified := strings.Contains(string(source), "subject: "+fleet.ReleaseSubject); verified != tc.verified {
			t.Errorf("%v: source verifies the release's signature: %v, want %v\n%s", tc.args, verified, tc.verified, source)
		}
	}
}

// TestInitFleetFluxOperator scaffolds a FluxInstance per cluster instead
// of the lockdown component (the live test applies it: TestInstall).
func TestInitFleetFluxOperator(t *testing.T) {
	dir := t.TempDir()
	out := landlord(t, "init", "fleet", dir, "--clusters", "staging", "--flux-operator", "--git-url", "ssh://git@git.example.com/org/fleet.git", "--branch", "trunk")
	golden(t, "init-fleet-flux-operator", out+tree(t, dir))
	if _, err := os.Stat(filepath.Join(dir, fleet.LockdownComponent)); err == nil {
		t.Errorf("the operator reverts what %s patches; it should not be written", fleet.LockdownComponent)
	}

	for args, want := range map[string]string{
		"--flux-operator":                         "--flux-operator needs --git-url: the FluxInstance syncs each cluster's directory from the fleet repository",
		"--git-url https://git.example.com/fleet": "--git-url and --branch need --flux-operator: with flux bootstrap, bootstrap sets the fleet's source",
		"--branch trunk":                          "--git-url and --branch need --flux-operator: with flux bootstrap, bootstrap sets the fleet's source",
		"--flux-operator --git-url git@git.example.com:org/fleet.git": `--git-url "git@git.example.com:org/fleet.git": an scp-style address is not a URL, which Flux needs: write it ssh://git@git.example.com/org/fleet.git`,
	} {
		out, err := run(append([]string{"init", "fleet", t.TempDir()}, strings.Fields(args)...)...)
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v\n%s\nwant %s", args, err, out, want)
		}
	}
}

// TestInitFleetWorkflow: the scaffolded workflow installs this release and
// runs landlord lint and landlord diff with flags and arguments the commands
// accept, its actions pinned by digest.
func TestInitFleetWorkflow(t *testing.T) {
	dir := t.TempDir()
	landlord(t, "init", "fleet", dir)
	data, err := os.ReadFile(filepath.Join(dir, fleet.WorkflowFile))
	if err != nil {
		t.Fatal(err)
	}
	var workflow struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string `json:"uses"`
				Run  string `json:"run"`
			} `json:"steps"`
		} `json:"jobs"`
	}
	if err := yaml.Unmarshal(data, &workflow); err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	chart, err := charts.Chart()
	if err != nil {
		t.Fatal(err)
	}
	pinned := regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40}$`)
	ran := map[string]bool{}
	for _, job := range workflow.Jobs {
		for _, step := range job.Steps {
			if step.Uses != "" && !pinned.MatchString(step.Uses) {
				t.Errorf("uses %s, want owner/action@<40-hex digest>", step.Uses)
			}
			if strings.Contains(step.Run, "go install") && !strings.HasSuffix(strings.TrimSpace(step.Run), "/cmd/landlord@v"+chart.Version) {
				t.Errorf("installs %q, want landlord v%s", step.Run, chart.Version)
			}
			for _, line := range exampleLines(step.Run) {
				args := exampleArgs(t, line)
				found, rest, err := cli.NewRootCommand().Find(args)
				if err != nil {
					t.Errorf("%q: %v", line, err)
					continue
				}
				if err := found.ParseFlags(rest); err != nil {
					t.Errorf("%q: %v", line, err)
					continue
				}
				if err := found.ValidateArgs(found.Flags().Args()); err != nil {
					t.Errorf("%q: %v", line, err)
				}
				ran[found.CommandPath()] = true
			}
		}
	}
	for _, want := range []string{"landlord lint", "landlord diff"} {
		if !ran[want] {
			t.Errorf("the workflow does not run %s:\n%s", want, data)
		}
	}
}
