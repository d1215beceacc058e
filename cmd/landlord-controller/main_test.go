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

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
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

// TestTenantDefaults runs the binary with the defaults config/ installs.
// The README's Tenant, whose quota sets two keys, gets every other key of
// the shipped quota: its owners and its reconciler find cpu, memory and
// storage capped in each namespace (MTB-PL1-CC-FNS-1) and object counts
// (MTB-PL1-CC-FNS-2), Leases among them, which the quota then refuses
// past the count. A Tenant without quota or limits gets the shipped
// tenant-wide quota and container defaults.
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
	readme := readmeTenant(t)
	plain := &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "plain"}, Spec: v1alpha1.TenantSpec{
		Namespaces: []v1alpha1.TenantNamespace{{Name: "plain-apps"}},
	}}
	for _, tenant := range []*v1alpha1.Tenant{readme, plain} {
		if err := k8s.Create(context.Background(), tenant); err != nil {
			t.Fatal(err)
		}
	}
	// FNS-1: cpu, memory, storage; FNS-2: the objects it names.
	fairness := []corev1.ResourceName{
		corev1.ResourceRequestsCPU, corev1.ResourceLimitsCPU, corev1.ResourceRequestsMemory, corev1.ResourceLimitsMemory,
		corev1.ResourceRequestsStorage, corev1.ResourceRequestsEphemeralStorage,
		corev1.ResourcePods, corev1.ResourcePersistentVolumeClaims, corev1.ResourceServicesLoadBalancers, corev1.ResourceServicesNodePorts,
		corev1.ResourceServices, corev1.ResourceSecrets, corev1.ResourceConfigMaps, "count/leases.coordination.k8s.io",
	}
	reconciler := "system:serviceaccount:" + readme.HomeNamespace() + ":" + readme.ReconcilerName()
	readers := map[string]*rest.Config{
		"owner":      env.ConfigFor("alice", "dev-team", "system:authenticated"),
		"reconciler": env.ConfigFor(reconciler, "system:serviceaccounts", "system:serviceaccounts:"+readme.HomeNamespace(), "system:authenticated"),
	}
	quota := func(c client.Client, ns string) (*corev1.ResourceQuota, error) {
		q := &corev1.ResourceQuota{}
		return q, c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: render.QuotaName}, q)
	}
	for who, cfg := range readers {
		c, err := client.New(cfg, client.Options{Scheme: manager.Scheme()})
		if err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 60*time.Second, func() error {
			for _, ns := range []string{"dev-team-apps", "dev-team-jobs"} {
				q, err := quota(c, ns)
				if err != nil {
					return fmt.Errorf("%s reading %s: %w", who, ns, err)
				}
				for _, r := range fairness {
					if _, ok := q.Spec.Hard[r]; !ok {
						return fmt.Errorf("%s reads %s's quota %v, which lacks %s", who, ns, q.Spec.Hard, r)
					}
					if _, ok := q.Status.Hard[r]; !ok {
						return fmt.Errorf("%s reads %s's quota, whose %s the quota controller does not track yet", who, ns, r)
					}
				}
				if q.Spec.Hard.Pods().Value() != 50 {
					return fmt.Errorf("%s: %s holds pods %s, want the Tenant's own 50", who, ns, q.Spec.Hard.Pods())
				}
			}
			return nil
		})
	}

	// The third review stored 40 Leases of 200 KiB; the count stops them.
	owner, err := client.New(readers["owner"], client.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	var refused error
	for i := 0; i < 60 && refused == nil; i++ {
		refused = owner.Create(context.Background(), &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("hoard-%d", i), Namespace: "dev-team-apps"}})
		if refused == nil {
			t.Logf("lease %d stored", i)
		}
	}
	if refused == nil || !strings.Contains(refused.Error(), render.QuotaName) {
		t.Errorf("60 Leases: %v; want the quota's refusal, naming %s", refused, render.QuotaName)
	}

	testenv.Eventually(t, 60*time.Second, func() error {
		q, err := quota(k8s, "plain-apps")
		if err != nil {
			return err
		}
		if q.Labels["landlord.dev/quota-scope"] != string(v1alpha1.QuotaScopeTenant) {
			return fmt.Errorf("plain-apps: quota labels %v, want the tenant-wide scope", q.Labels)
		}
		return k8s.Get(context.Background(), client.ObjectKey{Namespace: "plain-apps", Name: render.LimitRangeName}, &corev1.LimitRange{})
	})
}

// readmeTenant is the Tenant the README shows first.
func readmeTenant(t *testing.T) *v1alpha1.Tenant {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(data), "```yaml\napiVersion: landlord.dev/v1alpha1\nkind: Tenant\n")
	block, _, _ = strings.Cut(block, "```")
	tenant := &v1alpha1.Tenant{}
	if err := yaml.UnmarshalStrict([]byte("apiVersion: landlord.dev/v1alpha1\nkind: Tenant\n"+block), tenant); !ok || err != nil {
		t.Fatalf("the README's first Tenant: found %v, %v", ok, err)
	}
	return tenant
}
