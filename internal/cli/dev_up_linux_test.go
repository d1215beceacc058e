package cli_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/manager"
)

// TestDevUp runs the real binary twice on one directory: it gets ready,
// provisions the sample tenant, keeps its data across runs, and on SIGINT
// or SIGTERM stops every child and exits 0.
func TestDevUp(t *testing.T) {
	bin := buildLandlord(t)
	dir := t.TempDir()

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, stdout := runBinary(t, bin, "dev", "up", "--dir", dir, "--apply", "../../config/samples")
			kubeconfig := waitReadyLine(t, bufio.NewScanner(stdout))
			if want := filepath.Join(dir, "kubeconfig"); kubeconfig != want {
				t.Errorf("kubeconfig = %s, want %s", kubeconfig, want)
			}
			sampleProvisioned(t, kubeconfig)

			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("landlord dev up after %s: %v, want exit 0", sig, err)
			}
			if left := processesUsing(t, dir); len(left) > 0 {
				t.Errorf("processes left running: %v", left)
			}
		})
	}
}

// TestDevUpDemo runs what `make demo` runs: Flux syncs a fleet from the
// local Git server, both tenants become Ready with their staging overlay,
// chart and variables, the audit passes every check, an escape is refused,
// and on SIGINT every process stops.
func TestDevUpDemo(t *testing.T) {
	bin := buildLandlord(t)
	dir := t.TempDir()
	cmd, stdout := runBinary(t, bin, "dev", "up", "--demo", "--dir", dir)
	var output strings.Builder
	kubeconfig := waitReadyLine(t, bufio.NewScanner(io.TeeReader(stdout, &output)))

	shown := output.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^frontend +frontend,frontend-jobs +True +main@sha1:`),
		regexp.MustCompile(`(?m)^backend +backend,backend-jobs +True +main@sha1:`),
		regexp.MustCompile(`(?m)^(\d+) checks: (\d+) PASS, 0 FAIL, 0 SKIP$`),
		regexp.MustCompile(`denied request: spec.sourceRef.namespace: Forbidden: LL002: cross-namespace references are denied`),
	} {
		if !want.MatchString(shown) {
			t.Errorf("demo output lacks %s:\n%s", want, shown)
		}
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	welcome := &corev1.ConfigMap{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: "frontend", Name: "welcome"}, welcome); err != nil {
		t.Fatalf("the staging overlay's ConfigMap: %v", err)
	}
	if got, want := welcome.Data["message"], "Hello from frontend, in frontend"; got != want {
		t.Errorf("welcome message %q, want %q with the tenant's variables", got, want)
	}
	// The chart from the tenant's own HelmRepository, installed by
	// helm-controller as the tenant's reconciler.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	for {
		release := &corev1.ConfigMap{}
		err := c.Get(ctx, client.ObjectKey{Namespace: "backend", Name: "hello-hello"}, release)
		if err == nil {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the hello chart's ConfigMap in backend: %v", err)
		case <-time.After(500 * time.Millisecond):
		}
	}

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("landlord dev up --demo after SIGINT: %v, want exit 0", err)
	}
	if left := processesUsing(t, dir); len(left) > 0 {
		t.Errorf("processes left running: %v", left)
	}
}

func buildLandlord(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "landlord")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/landlord")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building landlord: %v\n%s", err, out)
	}
	return bin
}

// runBinary runs the binary with args, its stderr passed through; the
// test ends it if it is still running.
func runBinary(t *testing.T, bin string, args ...string) (*exec.Cmd, io.Reader) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, stdout
}

func waitReadyLine(t *testing.T, lines *bufio.Scanner) string {
	t.Helper()
	found := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if path, ok := strings.CutPrefix(lines.Text(), "ready: kubeconfig="); ok {
				found <- path
			}
		}
	}()
	select {
	case path := <-found:
		return path
	case <-time.After(2 * time.Minute):
		t.Fatal("no ready line within 2 minutes")
		return ""
	}
}

// sampleProvisioned waits, through the written kubeconfig, for the sample
// tenant's first namespace with its quota.
func sampleProvisioned(t *testing.T, kubeconfig string) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		tenant := &v1alpha1.Tenant{}
		quota := &corev1.ResourceQuota{}
		errT := c.Get(ctx, client.ObjectKey{Name: "dev-team"}, tenant)
		errQ := c.Get(ctx, client.ObjectKey{Namespace: "dev-team-apps", Name: "landlord-quota"}, quota)
		if errT == nil && errQ == nil && tenant.Status.ObservedGeneration == tenant.Generation {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("sample tenant not provisioned: tenant: %v, quota: %v", errT, errQ)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// processesUsing lists live processes whose command line or environment
// mentions dir: the Flux controllers find their kubeconfig through
// $KUBECONFIG.
func processesUsing(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue // not a process, or gone
		}
		environ, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		line := strings.ReplaceAll(string(cmdline), "\x00", " ")
		if strings.Contains(line, dir) || strings.Contains(string(environ), dir) {
			found = append(found, fmt.Sprintf("%s: %s", e.Name(), line))
		}
	}
	return found
}
