package main_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunMain(m, func(e *testenv.Env) error {
		env = e
		c, err := client.New(env.Config, client.Options{Scheme: manager.Scheme()})
		if err != nil {
			return err
		}
		return install.Prerequisites(context.Background(), c)
	}))
}

// TestBinaryServesProbesAndMetrics runs the real binary with its flags
// against the control plane.
func TestBinaryServesProbesAndMetrics(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "landlord-controller")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building: %v\n%s", err, out)
	}
	metrics, health := freeAddr(t), freeAddr(t)
	cmd := exec.Command(bin,
		"--kubeconfig", env.KubeconfigPath,
		"--metrics-bind-address", metrics,
		"--health-probe-bind-address", health,
		"--leader-elect", "--leader-election-namespace", "kube-system",
		"--concurrency", "2")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	waitOK(t, "http://"+health+"/readyz")
	waitOK(t, "http://"+health+"/healthz")
	// The counters appear once the replica leads and its controller runs,
	// which may be after the metrics endpoint answers.
	deadline := time.Now().Add(30 * time.Second)
	for body := waitOK(t, "http://"+metrics+"/metrics"); !strings.Contains(body, "controller_runtime_reconcile_total"); body = waitOK(t, "http://"+metrics+"/metrics") {
		if time.Now().After(deadline) {
			t.Fatal("metrics lack controller-runtime's reconcile counters")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// waitOK polls url until it answers 200 and returns the body.
func waitOK(t *testing.T, url string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return string(body)
			}
			err = fmt.Errorf("status %d: %s", resp.StatusCode, body)
		}
		last = err
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s: %v", url, last)
	return ""
}
