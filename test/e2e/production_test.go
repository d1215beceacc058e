package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/manager"
)

// devUpTimeout bounds the start of the production cluster: a control
// plane, three Flux controllers and Landlord.
const devUpTimeout = 3 * time.Minute

// TestProduction: a second cluster bootstrapped on clusters/production of
// the same fleet gets the production overlay of each tenant repository —
// releases only, two replicas, no staging-only ConfigMap — while staging
// keeps its own.
func TestProduction(t *testing.T) {
	t.Parallel()
	prod := startProductionCluster(t)
	if err := bootstrap(t.Context(), prod, "production"); err != nil {
		t.Fatal(err)
	}
	for _, tenant := range appTenants {
		ns := tenant.name
		eventually(t, prod, "tenant "+tenant.name+" Ready in production", tenantReady(prod, tenant.name))
		eventually(t, prod, "podinfo from the production overlay", configMapData(prod, ns, "podinfo", map[string]string{
			"chartVersion": releaseVersion, "replicaCount": "2",
		}))
		if err := absent(t.Context(), prod, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "settings"}}); err != nil {
			t.Errorf("production has staging's ConfigMap: %v", err)
		}
		eventually(t, k8s, "staging keeps its overlay", configMapData(k8s, ns, "podinfo", map[string]string{
			"chartVersion": prereleaseVersion, "replicaCount": "1",
		}))
	}
}

// startProductionCluster runs this test binary as `landlord dev up --flux`
// and returns an admin client of the cluster once it is ready; the cluster
// stops with the test.
func startProductionCluster(t *testing.T) client.Client {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), devUpEnv+"="+dir)
	// Should the test binary die, the cluster goes with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "dev-up.stderr")
	stderr, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("landlord dev up: %v\n%s", err, tail(logPath, 2000))
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("landlord dev up did not stop within 30s of SIGTERM")
		}
		stderr.Close()
	})

	kubeconfig := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			if path, ok := strings.CutPrefix(lines.Text(), "ready: kubeconfig="); ok {
				kubeconfig <- path
			}
		}
		exited <- cmd.Wait()
	}()
	var path string
	select {
	case path = <-kubeconfig:
	case err := <-exited:
		exited <- err
		t.Fatalf("landlord dev up exited before ready: %v\n%s", err, tail(logPath, 3000))
	case <-time.After(devUpTimeout):
		t.Fatalf("landlord dev up not ready within %s\n%s", devUpTimeout, tail(logPath, 3000))
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("production cluster:\n%s", diagnosticsOf(context.Background(), c, dir))
		}
	})
	return c
}
