package node

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fluxcd/pkg/ssa/utils"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/cli"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/render"
	"github.com/landlord-dev/landlord/internal/testenv"
)

const (
	controllerImage = "landlord.test/landlord-controller"
	controllerTag   = "node-test"
	systemNamespace = "landlord-system"
	leaseName       = "landlord-controller.landlord.dev"
)

// TestLandlordInCluster installs Landlord from its own chart on a cluster
// of its own (its image built by hack/image, as make image does, and
// imported into the node), two replicas behind the webhook Service. The
// replica that leads is killed (its pod deleted at once): admission is
// asked all along, and a new leader and a new pod must come.
func TestLandlordInCluster(t *testing.T) {
	cluster, err := testenv.Start(ctx, testenv.Options{Node: true, Workloads: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cluster.Stop(); err != nil {
			t.Error(err)
		}
	})
	archive := buildControllerImage(t)
	if err := cluster.Node.ImportImage(ctx, archive); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cluster.Config, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	if err := install.Prerequisites(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: systemNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	objects := renderChart(t, map[string]any{"image": map[string]any{"repository": controllerImage, "tag": controllerTag}})
	if _, err := install.Apply(ctx, c, io.Discard, objects...); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	waitReplicas(t, cs, 2, 3*time.Minute)
	t.Logf("2 replicas Ready %s after the chart was applied", time.Since(start).Round(time.Second))

	// The leader reconciles a Tenant: the controller works from inside.
	tenant := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "gamma"},
		Spec: v1alpha1.TenantSpec{
			Namespaces: []v1alpha1.TenantNamespace{{Name: "gamma-web"}},
			Owners:     []v1alpha1.Owner{{Kind: "Group", Name: "gamma-owners"}},
		},
	}
	if err := c.Create(ctx, tenant); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, func() error {
		var np networkingv1.NetworkPolicy
		return c.Get(ctx, types.NamespacedName{Namespace: "gamma-web", Name: render.NetworkPolicyName}, &np)
	})
	owner, err := kubernetes.NewForConfig(cluster.ConfigFor("dev@gamma", "gamma-owners", "system:authenticated"))
	if err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, func() error { return admission(owner) })

	// The audit an admin runs against a cluster passes against this one:
	// the tenant's access, the guard's escapes, what Landlord holds.
	var audit bytes.Buffer
	if code := cli.Execute([]string{"audit", "--kubeconfig", cluster.KubeconfigPath}, &audit, &audit); code != 0 {
		t.Fatalf("landlord audit exited %d:\n%s", code, audit.String())
	}
	t.Logf("landlord audit against the in-cluster Landlord: %s", auditSummary(audit.String()))

	// A drain deletes a pod gracefully: admission must never fail. A crash
	// gives no warning: a call the API server sends to the killed replica's
	// address before kube-proxy drops it fails (EOF, which it does not
	// retry), so within killWindow such failures are counted, not refused.
	const killWindow = time.Second
	for _, kill := range []struct {
		name   string
		grace  *int64
		window time.Duration
	}{{"deleted", nil, 0}, {"killed", ptr.To(int64(0)), killWindow}} {
		leader := leaseHolder(t, cs)
		pod := podOf(t, cs, leader)
		if err := cs.CoreV1().Pods(systemNamespace).Delete(ctx, pod, metav1.DeleteOptions{GracePeriodSeconds: kill.grace}); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		var asked, tolerated int
		var failures []string
		var lastFailure, leaderAfter, replacedAfter time.Duration
		var newLeader string
		for time.Since(killed) < 2*time.Minute && (leaderAfter == 0 || replacedAfter == 0 || time.Since(killed) < 20*time.Second) {
			asked++
			if err := admission(owner); err != nil {
				lastFailure = time.Since(killed)
				if lastFailure < kill.window && strings.Contains(err.Error(), "failed calling webhook") {
					tolerated++
				} else {
					failures = append(failures, fmt.Sprintf("%s: %v", lastFailure.Round(time.Millisecond), err))
				}
			}
			if holder := leaseHolderOrEmpty(cs); leaderAfter == 0 && holder != "" && holder != leader {
				newLeader, leaderAfter = holder, time.Since(killed)
			}
			if now := readyPods(cs); replacedAfter == 0 && len(now) == 2 && !now[pod] {
				replacedAfter = time.Since(killed)
			}
			time.Sleep(250 * time.Millisecond)
		}
		t.Logf("leader %s %s: new leader %s after %s; a new replica Ready after %s; admission asked %d times in %s: %d failed within %s of the kill, %d after",
			pod, kill.name, newLeader, leaderAfter.Round(time.Millisecond), replacedAfter.Round(time.Millisecond),
			asked, time.Since(killed).Round(time.Second), tolerated, kill.window, len(failures))
		if leaderAfter == 0 {
			t.Errorf("%s: the lease stayed with %s, or nobody, for 2m", kill.name, leader)
		}
		if replacedAfter == 0 {
			t.Errorf("%s: no second replica Ready within 2m", kill.name)
		}
		if len(failures) > 0 {
			t.Errorf("%s: admission failed %d of %d times:\n%s", kill.name, len(failures), asked, strings.Join(failures, "\n"))
		}
	}
}

// auditSummary is the audit's own closing line, its counts by verdict.
func auditSummary(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

// podOf is the pod of the lease holder, whose identity starts with its name.
func podOf(t *testing.T, cs kubernetes.Interface, holder string) string {
	t.Helper()
	pods, err := cs.CoreV1().Pods(systemNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if strings.HasPrefix(holder, p.Name+"_") {
			return p.Name
		}
	}
	t.Fatalf("lease holder %q is none of the pods", holder)
	return ""
}

// admission asks the guard twice, dry run: a tenant owner's pod naming a
// node is refused with LL019, the same pod without is admitted. An error
// other than the refusal (the webhook unreachable) is a failure.
func admission(owner kubernetes.Interface) error {
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	pod := netcheckPod("gamma-web", "probe")
	if _, err := owner.CoreV1().Pods("gamma-web").Create(ctx, pod, dryRun); err != nil {
		return fmt.Errorf("the neighbour was not admitted: %w", err)
	}
	pod.Spec.NodeName = testenv.NodeName
	_, err := owner.CoreV1().Pods("gamma-web").Create(ctx, pod, dryRun)
	switch {
	case err == nil:
		return errors.New("a pod naming a node was admitted")
	case !strings.Contains(err.Error(), "LL019"):
		return fmt.Errorf("a pod naming a node was refused, but not by LL019: %w", err)
	}
	return nil
}

func buildControllerImage(t *testing.T) string {
	t.Helper()
	out := t.TempDir()
	cmd := exec.CommandContext(ctx, "go", "run", "./hack/image", "-repository", controllerImage, "-version", controllerTag, "-platforms", "linux/amd64", "-out", out)
	cmd.Dir = "../.."
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/image: %v\n%s", err, output)
	}
	return filepath.Join(out, "landlord-controller-linux-amd64.tar")
}

// renderChart is helm template --include-crds of charts/landlord into
// landlord-system with values.
func renderChart(t *testing.T, values map[string]any) []client.Object {
	t.Helper()
	chart, err := loader.Load("../../charts/landlord")
	if err != nil {
		t.Fatal(err)
	}
	options := chartutil.ReleaseOptions{Name: "landlord", Namespace: systemNamespace, Revision: 1, IsInstall: true}
	renderValues, err := chartutil.ToRenderValues(chart, values, options, chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	files, err := engine.Render(chart, renderValues)
	if err != nil {
		t.Fatal(err)
	}
	var manifests []string
	for _, crd := range chart.CRDObjects() {
		manifests = append(manifests, string(crd.File.Data))
	}
	for name, content := range files {
		if strings.HasSuffix(name, ".yaml") {
			manifests = append(manifests, content)
		}
	}
	parsed, err := utils.ReadObjects(strings.NewReader(strings.Join(manifests, "\n---\n")))
	if err != nil {
		t.Fatal(err)
	}
	objects := make([]client.Object, len(parsed))
	for i, u := range parsed {
		objects[i] = u
	}
	return objects
}

func waitReplicas(t *testing.T, cs kubernetes.Interface, want int32, timeout time.Duration) {
	t.Helper()
	testenv.Eventually(t, timeout, func() error {
		if got := readyReplicas(cs); got != want {
			return fmt.Errorf("%d of %d replicas Ready", got, want)
		}
		return nil
	})
}

func readyReplicas(cs kubernetes.Interface) int32 {
	var d *appsv1.Deployment
	list, err := cs.AppsV1().Deployments(systemNamespace).List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		return -1
	}
	d = &list.Items[0]
	return d.Status.ReadyReplicas
}

// readyPods are the names of the Ready pods in landlord-system.
func readyPods(cs kubernetes.Interface) map[string]bool {
	ready := map[string]bool{}
	pods, err := cs.CoreV1().Pods(systemNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return ready
	}
	for _, p := range pods.Items {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && p.DeletionTimestamp == nil {
				ready[p.Name] = true
			}
		}
	}
	return ready
}

func leaseHolder(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	var holder string
	testenv.Eventually(t, time.Minute, func() error {
		if holder = leaseHolderOrEmpty(cs); holder == "" {
			return errors.New("no replica holds the lease")
		}
		return nil
	})
	return holder
}

func leaseHolderOrEmpty(cs kubernetes.Interface) string {
	var lease *coordinationv1.Lease
	lease, err := cs.CoordinationV1().Leases(systemNamespace).Get(ctx, leaseName, metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil {
		return ""
	}
	return *lease.Spec.HolderIdentity
}
