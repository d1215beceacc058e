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

	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/gitserver"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// TestDevUp runs the real binary twice on one directory: it gets ready,
// provisions the sample tenant, keeps its data across runs, and on SIGINT
// or SIGTERM stops every child and exits 0.
func TestDevUp(t *testing.T) {
	bin := buildLandlord(t)
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

// TestDevUpFlux runs the binary with --flux: source-controller fetches a
// repository of a local Git server, and on SIGINT every Flux controller stops
// with the rest.
func TestDevUpFlux(t *testing.T) {
	bin := buildLandlord(t)
	dir := t.TempDir()
	git, err := gitserver.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := git.Serve(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = git.Close() })
	url, err := git.CreateRepo("app")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := git.PushDir(t.Context(), "app", "../../config/samples", "samples"); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(bin, "dev", "up", "--dir", dir, "--flux")
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

	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	repo := &sourcev1.GitRepository{
		ObjectMeta: metav1.ObjectMeta{Namespace: testenv.FluxNamespace, Name: "app"},
		Spec: sourcev1.GitRepositorySpec{
			URL:       url,
			Reference: &sourcev1.GitRepositoryRef{Branch: gitserver.Branch},
			Interval:  metav1.Duration{Duration: time.Minute},
		},
	}
	if err := c.Create(t.Context(), repo); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	for {
		err := c.Get(ctx, client.ObjectKeyFromObject(repo), repo)
		if err == nil && apimeta.IsStatusConditionTrue(repo.Status.Conditions, fluxmeta.ReadyCondition) && repo.Status.Artifact != nil {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("GitRepository app not Ready with an artifact: %v, conditions %+v", err, repo.Status.Conditions)
		case <-time.After(200 * time.Millisecond):
		}
	}
	for _, name := range []string{"source-controller", "kustomize-controller", "helm-controller"} {
		if _, err := os.Stat(filepath.Join(dir, name+".log")); err != nil {
			t.Errorf("%s log: %v", name, err)
		}
	}

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("landlord dev up --flux after SIGINT: %v, want exit 0", err)
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
