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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/render"
	"github.com/landlord-dev/landlord/internal/testenv"
)

var env *localcluster.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunMain(m, func(e *localcluster.Env) error {
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

// TestTenantDefaults runs the binary with the defaults config/ installs: a
// Tenant written without quota or limits, as the README's first example
// less its quota, gets the shipped tenant-wide quota and container
// defaults; a Tenant with its own quota keeps exactly its own.
func TestTenantDefaults(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "landlord-controller")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building: %v\n%s", err, out)
	}
	shipped, err := os.ReadFile(filepath.Join("..", "..", "config", "manager", "tenant-defaults.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{}
	if err := yaml.Unmarshal([]byte(strings.SplitN(string(shipped), "---\n", 2)[1]), cm); err != nil {
		t.Fatal(err)
	}
	defaults := filepath.Join(t.TempDir(), "tenant-defaults.yaml")
	if err := os.WriteFile(defaults, []byte(cm.Data["tenant-defaults.yaml"]), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("quota: {hard: {pods: lots}}"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--kubeconfig", env.KubeconfigPath, "--tenant-defaults", bad).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "quota.hard") {
		t.Errorf("a bad defaults file: err %v, output %s; want the key named", err, out)
	}

	cmd := exec.Command(bin, "--kubeconfig", env.KubeconfigPath, "--metrics-bind-address", "0", "--health-probe-bind-address", "0",
		"--tenant-defaults", defaults)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })

	k8s, err := client.New(env.Config, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	plain := &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "dev-team"}, Spec: v1alpha1.TenantSpec{
		Namespaces: []v1alpha1.TenantNamespace{{Name: "dev-team-apps"}, {Name: "dev-team-jobs"}},
		Owners:     []v1alpha1.Owner{{Kind: "Group", Name: "dev-team"}},
	}}
	own := &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "own-quota"}, Spec: v1alpha1.TenantSpec{
		Namespaces: []v1alpha1.TenantNamespace{{Name: "own-quota-apps"}},
		Quota:      &v1alpha1.Quota{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("3")}},
	}}
	for _, tenant := range []*v1alpha1.Tenant{plain, own} {
		if err := k8s.Create(context.Background(), tenant); err != nil {
			t.Fatal(err)
		}
	}
	quota := func(ns string) (*corev1.ResourceQuota, error) {
		q := &corev1.ResourceQuota{}
		return q, k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: render.QuotaName}, q)
	}
	testenv.Eventually(t, 60*time.Second, func() error {
		for _, ns := range []string{"dev-team-apps", "dev-team-jobs"} {
			q, err := quota(ns)
			if err != nil {
				return err
			}
			for _, r := range []corev1.ResourceName{corev1.ResourceRequestsCPU, corev1.ResourceLimitsMemory, corev1.ResourceRequestsEphemeralStorage, corev1.ResourcePods, corev1.ResourceServicesLoadBalancers, corev1.ResourceSecrets} {
				if _, ok := q.Spec.Hard[r]; !ok {
					return fmt.Errorf("%s: quota %v lacks %s", ns, q.Spec.Hard, r)
				}
			}
			if q.Labels["landlord.dev/quota-scope"] != string(v1alpha1.QuotaScopeTenant) {
				return fmt.Errorf("%s: quota labels %v, want the tenant-wide scope", ns, q.Labels)
			}
			if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: render.LimitRangeName}, &corev1.LimitRange{}); err != nil {
				return err
			}
		}
		q, err := quota("own-quota-apps")
		if err != nil {
			return err
		}
		if len(q.Spec.Hard) != 1 || q.Spec.Hard.Pods().Value() != 3 {
			return fmt.Errorf("own-quota-apps: quota %v, want the tenant's own pods: 3", q.Spec.Hard)
		}
		return nil
	})
}
