package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// complete runs cobra's hidden __complete command and returns the
// completions and the directive line.
func complete(t *testing.T, args ...string) (completions []string, directive string) {
	t.Helper()
	out, _, err := landlordLive(append([]string{"__complete"}, args...)...)
	if err != nil {
		t.Fatalf("__complete %s: %v", strings.Join(args, " "), err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1]
}

func TestCompletionTenantNames(t *testing.T) {
	t.Parallel()
	startLandlord(t)
	for _, name := range []string{"complete-a", "complete-b"} {
		if _, _, err := landlordLive("tenant", "create", name, "--namespace", name); err != nil {
			t.Fatal(err)
		}
	}
	// ShellCompDirectiveNoFileComp is 4: tenant names, never file names;
	// 6 adds NoSpace, so that jsonpath= is followed by its template.
	for name, tc := range map[string]struct {
		args      []string
		want      string
		directive string
	}{
		"get":               {[]string{"tenant", "get", "complete-"}, "complete-a complete-b", ""},
		"delete":            {[]string{"tenant", "delete", "complete-b"}, "complete-b", ""},
		"no match":          {[]string{"tenant", "get", "nobody"}, "", ""},
		"one argument only": {[]string{"tenant", "get", "complete-a", ""}, "", ""},
		"list takes none":   {[]string{"tenant", "list", ""}, "", ""},
		"output formats":    {[]string{"tenant", "list", "-o", ""}, "table wide yaml json name jsonpath=", ":6"},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.directive == "" {
				tc.directive = ":4"
			}
			got, directive := complete(t, tc.args...)
			if strings.Join(got, " ") != tc.want || directive != tc.directive {
				t.Errorf("completions %q, directive %s; want %q, %s", got, directive, tc.want, tc.directive)
			}
		})
	}
}

// TestCompletionWithoutCluster fails the completion, not the shell, when
// no cluster answers.
func TestCompletionWithoutCluster(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	// Port 1 on loopback refuses at once.
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: gone, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: gone, user: {}}]
contexts: [{name: gone, context: {cluster: gone, user: gone}}]
current-context: gone
`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := run("__complete", "--kubeconfig="+kubeconfig, "tenant", "get", "")
	// The reason goes to the process's stderr, as cobra's CompErrorln writes.
	if err != nil || !strings.HasPrefix(out, ":1\n") {
		t.Errorf("__complete without a cluster: %v\n%s\nwant no completions and directive :1 (error)", err, out)
	}
}

func TestCompletionCommand(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		out, err := run("completion", shell)
		if err != nil || !strings.Contains(out, "landlord") {
			t.Errorf("completion %s: %v\n%.200s", shell, err, out)
		}
	}
}
