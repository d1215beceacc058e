package cli_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	bin := filepath.Join(t.TempDir(), "landlord")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/landlord")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building landlord: %v\n%s", err, out)
	}
	dir := t.TempDir()

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "dev", "up", "--dir", dir, "--apply", "../../config/samples")
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill() })

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

// processesUsing lists live processes whose command line mentions dir.
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
		if line := strings.ReplaceAll(string(cmdline), "\x00", " "); strings.Contains(line, dir) {
			found = append(found, fmt.Sprintf("%s: %s", e.Name(), line))
		}
	}
	return found
}
