package cli_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/render"
)

// TestDiffLive compares a fleet with the cluster: the namespace the fleet
// drops is named with what it holds, the quota it lowers with the use the
// cluster reports.
func TestDiffLive(t *testing.T) {
	startLandlord(t)
	if _, stderr, err := landlordLive("tenant", "create", "diff-live", "--namespace", "diff-live-a,diff-live-b",
		"--quota", "configmaps=10", "--wait", "--timeout", "3m"); err != nil {
		t.Fatalf("tenant create: %v\n%s", err, stderr)
	}
	for i := range 2 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("held-%d", i), Namespace: "diff-live-b"}}
		if err := k8s.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
	}
	// Each namespace holds kube-root-ca.crt and tenant-vars; b two more.
	// Kubernetes' quota controller misses an object created while it first
	// counts a new quota until its next full resync (minutes): a deletion
	// in the namespace makes it count again.
	nudged := map[string]time.Time{}
	recount := func(ns string) {
		if time.Since(nudged[ns]) < 5*time.Second {
			return
		}
		nudged[ns] = time.Now()
		scratch := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "recount", Namespace: ns}}
		if k8s.Create(ctx, scratch) == nil {
			_ = k8s.Delete(ctx, scratch)
		}
	}
	seen := map[string]string{}
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		for ns, want := range map[string]int64{"diff-live-a": 2, "diff-live-b": 4} {
			q := &corev1.ResourceQuota{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: render.QuotaName}, q); err != nil {
				seen[ns] = err.Error()
				return false, client.IgnoreNotFound(err)
			}
			used := q.Status.Used["configmaps"]
			seen[ns] = "used " + used.String() + " of " + q.Status.Hard.Name("configmaps", resource.DecimalSI).String()
			if used.Value() != want {
				recount(ns)
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("quota use of the namespaces: %v (last seen: %v)", err, seen)
	}

	dir := t.TempDir()
	landlord(t, "init", "fleet", dir, "--clusters", "staging")
	landlord(t, "tenant", "create", "diff-live", "--namespace", "diff-live-a", "--quota", "configmaps=1", "--export", "--fleet", dir)
	code, out, errOut := execute("--kubeconfig="+env.KubeconfigPath, "diff", dir, "--live")
	if code != 2 {
		t.Errorf("exit code %d, want 2; stderr:\n%s", code, errOut)
	}
	for _, want := range []string{
		"tenants/staging: tenant diff-live: namespace diff-live-b (it holds ",
		"tenants/staging: tenant diff-live: quota configmaps is lowered from 10 to 1, below current use: diff-live-a uses 2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("diff --live lacks %q:\n%s", want, out)
		}
	}

	code, _, errOut = execute("--kubeconfig="+env.KubeconfigPath, "diff", dir, "--live", "--overlay", "tenants/nowhere")
	if code != 3 || !strings.Contains(errOut, `--overlay "tenants/nowhere": not a directory the fleet applies; want one of tenants/staging`) {
		t.Errorf("exit code %d, stderr %q; want 3 and the overlays allowed", code, errOut)
	}
}
