package node

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/gitserver"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/nodeimage"
	"github.com/landlord-dev/landlord/internal/render"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// TestWorkloads: Flux (the real source- and kustomize-controller) applies
// a tenant's repository as the tenant's reconciler, and its Deployment's
// pods run on the node inside the tenant's quota. A commit adding a pod
// beyond the quota, and then one adding a privileged pod, is refused by
// admission, and the tenant reads why where Flux reports it: the
// Kustomization's Ready condition (and the Tenant's status). The neighbour
// of both, a restricted pod within the quota, is applied and runs.
func TestWorkloads(t *testing.T) {
	const tenant, ns = "shop", "shop"
	git, err := gitserver.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := git.Serve(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = git.Close() })
	if _, err := git.CreateRepo(tenant); err != nil {
		t.Fatal(err)
	}
	push := func(message string, files map[string]string) string {
		t.Helper()
		dir := t.TempDir()
		var resources []string
		for name, content := range files {
			resources = append(resources, name)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		kustomization := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- " + strings.Join(resources, "\n- ") + "\n"
		if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(kustomization), 0o600); err != nil {
			t.Fatal(err)
		}
		hash, err := git.PushDir(ctx, tenant, dir, message)
		if err != nil {
			t.Fatal(err)
		}
		requestReconcile(t, &sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: tenant}})
		return gitserver.Branch + "@sha1:" + hash
	}

	deployment := workloadDeployment(ns, "web", 2, "100m")
	first := push("two replicas of web", map[string]string{"web.yaml": deployment})
	createTenant(t, &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: tenant},
		Spec: v1alpha1.TenantSpec{
			Namespaces: []v1alpha1.TenantNamespace{{Name: ns}},
			Quota: &v1alpha1.Quota{Hard: corev1.ResourceList{
				corev1.ResourcePods:        resource.MustParse("3"),
				corev1.ResourceRequestsCPU: resource.MustParse("300m"),
			}},
			Sources: []v1alpha1.Source{{
				Name:     tenant,
				Git:      &v1alpha1.GitSource{URL: git.RepoURL(tenant), Ref: &v1alpha1.GitRef{Branch: gitserver.Branch}},
				Interval: &metav1.Duration{Duration: 10 * time.Second},
			}},
		},
	})
	if ready := attempt(t, ns, tenant, first); ready.Status != metav1.ConditionTrue {
		t.Fatalf("Kustomization %s/%s at %s: Ready=%s %s", ns, tenant, first, ready.Status, ready.Message)
	}
	web := runningPods(t, ns, "web", 2)
	quotaUsed(t, ns, "2", "200m")
	for _, p := range web {
		resp, err := env.Node.HTTPClient(2 * time.Second).Get("http://" + podAddr(&p) + "/")
		if err != nil {
			t.Fatalf("pod %s/%s: %v", ns, p.Name, err)
		}
		resp.Body.Close()
		t.Logf("pod %s/%s Running on %s at %s as %s, answers %s", ns, p.Name, p.Spec.NodeName, p.Status.PodIP, p.Spec.ServiceAccountName, resp.Status)
	}

	t.Run("a pod beyond the quota is refused, as the Kustomization reports", func(t *testing.T) {
		revision := push("a pod asking for more cpu than is left", map[string]string{
			"web.yaml": deployment, "extra.yaml": workloadPod(ns, "extra", "200m", false),
		})
		ready := attempt(t, ns, tenant, revision)
		wantRefusal(t, ready, "exceeded quota: "+render.QuotaName, "requested: requests.cpu=200m, used: requests.cpu=200m, limited: requests.cpu=300m")
		tenantReports(t, tenant, render.QuotaName)
		podAbsent(t, ns, "extra")
		runningPods(t, ns, "web", 2)
	})

	t.Run("a privileged pod is refused, as the Kustomization reports", func(t *testing.T) {
		revision := push("a privileged pod that fits the quota", map[string]string{
			"web.yaml": deployment, "debug.yaml": workloadPod(ns, "debug", "100m", true),
		})
		ready := attempt(t, ns, tenant, revision)
		wantRefusal(t, ready, `violates PodSecurity "restricted:latest"`, `privileged (container "debug" must not set securityContext.privileged=true)`)
		tenantReports(t, tenant, "violates PodSecurity")
		podAbsent(t, ns, "debug")
		runningPods(t, ns, "web", 2)
	})

	t.Run("neighbour: a restricted pod within the quota is applied and runs", func(t *testing.T) {
		revision := push("the same pod, restricted", map[string]string{
			"web.yaml": deployment, "debug.yaml": workloadPod(ns, "debug", "100m", false),
		})
		if ready := attempt(t, ns, tenant, revision); ready.Status != metav1.ConditionTrue {
			t.Fatalf("Kustomization %s/%s at %s: Ready=%s %s", ns, tenant, revision, ready.Status, ready.Message)
		}
		runningPods(t, ns, "debug", 1)
		quotaUsed(t, ns, "3", "300m")
	})
}

// podTemplate is a restricted pod spec of the netcheck image, indented for
// a pod (depth 1) or a Deployment's template (depth 3).
func podTemplate(name, cpu string, privileged bool, indent string) string {
	security := "allowPrivilegeEscalation: false\n    capabilities: {drop: [ALL]}"
	if privileged {
		security = "privileged: true"
	}
	return strings.ReplaceAll(fmt.Sprintf(`automountServiceAccountToken: false
terminationGracePeriodSeconds: 1
securityContext:
  runAsNonRoot: true
  seccompProfile: {type: RuntimeDefault}
containers:
- name: %s
  image: %s
  imagePullPolicy: Never
  ports: [{containerPort: %d}]
  resources: {requests: {cpu: %s}}
  readinessProbe: {httpGet: {path: /, port: %d}, periodSeconds: 1}
  securityContext:
    %s`, name, nodeimage.Netcheck, netcheckPort, cpu, netcheckPort, security), "\n", "\n"+indent)
}

func workloadDeployment(ns, name string, replicas int, cpu string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  namespace: %[2]s
spec:
  replicas: %[3]d
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      %[4]s
`, name, ns, replicas, podTemplate("netcheck", cpu, false, "      "))
}

func workloadPod(ns, name, cpu string, privileged bool) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %[1]s
  namespace: %[2]s
  labels: {app: %[1]s}
spec:
  %[3]s
`, name, ns, podTemplate(name, cpu, privileged, "  "))
}

// requestReconcile has Flux fetch obj now, as flux reconcile does.
func requestReconcile(t *testing.T, obj client.Object) {
	t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, meta.ReconcileRequestAnnotation, time.Now().Format(time.RFC3339Nano))
	if err := k8s.Patch(ctx, obj, client.RawPatch("application/merge-patch+json", []byte(patch))); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("request reconciliation of %s: %v", obj.GetName(), err)
	}
}

// attempt waits until the Kustomization has applied revision or failed at
// it, and returns its Ready condition then.
func attempt(t *testing.T, ns, name, revision string) *metav1.Condition {
	t.Helper()
	var ready *metav1.Condition
	testenv.Eventually(t, 2*time.Minute, func() error {
		var k kustomizev1.Kustomization
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &k); err != nil {
			return err
		}
		if k.Status.LastAttemptedRevision != revision {
			return fmt.Errorf("Kustomization %s/%s attempted %q, want %s", ns, name, k.Status.LastAttemptedRevision, revision)
		}
		ready = apimeta.FindStatusCondition(k.Status.Conditions, meta.ReadyCondition)
		if ready == nil || ready.ObservedGeneration != k.Generation || ready.Status == metav1.ConditionUnknown {
			return fmt.Errorf("Kustomization %s/%s still reconciling %s", ns, name, revision)
		}
		return nil
	})
	return ready
}

// wantRefusal fails t unless ready is False with each of want in its message.
func wantRefusal(t *testing.T, ready *metav1.Condition, want ...string) {
	t.Helper()
	if ready.Status != metav1.ConditionFalse {
		t.Fatalf("Kustomization Ready=%s %s: %s, want False", ready.Status, ready.Reason, ready.Message)
	}
	wantMessage(t, "the Kustomization's Ready condition ("+ready.Reason+")", ready.Message, want)
}

// tenantReports waits until the Tenant's status names want for its source,
// where the platform sees the tenant's failure.
func tenantReports(t *testing.T, name, want string) {
	t.Helper()
	testenv.Eventually(t, time.Minute, func() error {
		var tenant v1alpha1.Tenant
		if err := k8s.Get(ctx, client.ObjectKey{Name: name}, &tenant); err != nil {
			return err
		}
		for _, s := range tenant.Status.Sources {
			if !s.Ready && strings.Contains(s.Message, want) {
				t.Logf("Tenant %s status.sources[%s]: %s", name, s.Name, s.Message)
				return nil
			}
		}
		return fmt.Errorf("Tenant %s status.sources %+v, want a source not Ready naming %q", name, tenant.Status.Sources, want)
	})
}

// runningPods waits until exactly n pods labelled app=app run Ready on the
// node, and returns them.
func runningPods(t *testing.T, ns, app string, n int) []corev1.Pod {
	t.Helper()
	var pods []corev1.Pod
	testenv.Eventually(t, 2*time.Minute, func() error {
		list, err := core.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
		if err != nil {
			return err
		}
		pods = list.Items
		if len(pods) != n {
			return fmt.Errorf("%d pods app=%s in %s, want %d", len(pods), app, ns, n)
		}
		for _, p := range pods {
			ready := false
			for _, c := range p.Status.Conditions {
				ready = ready || c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue
			}
			if p.Status.Phase != corev1.PodRunning || !ready || p.Spec.NodeName != localcluster.NodeName {
				return fmt.Errorf("pod %s/%s is %s on %q, Ready %t", ns, p.Name, p.Status.Phase, p.Spec.NodeName, ready)
			}
		}
		return nil
	})
	return pods
}

// quotaUsed waits until the tenant's quota in ns counts pods and cpu
// requests as used.
func quotaUsed(t *testing.T, ns, pods, cpu string) {
	t.Helper()
	testenv.Eventually(t, time.Minute, func() error {
		q, err := core.CoreV1().ResourceQuotas(ns).Get(ctx, render.QuotaName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		used, hard := q.Status.Used, q.Status.Hard
		if p, c := used[corev1.ResourcePods], used[corev1.ResourceRequestsCPU]; p.Cmp(resource.MustParse(pods)) != 0 || c.Cmp(resource.MustParse(cpu)) != 0 {
			return fmt.Errorf("quota %s/%s used pods=%s requests.cpu=%s, want %s and %s", ns, q.Name, p.String(), c.String(), pods, cpu)
		}
		p, c := hard[corev1.ResourcePods], hard[corev1.ResourceRequestsCPU]
		t.Logf("quota %s/%s: pods %s of %s, requests.cpu %s of %s", ns, q.Name, pods, p.String(), cpu, c.String())
		return nil
	})
}

func podAbsent(t *testing.T, ns, name string) {
	t.Helper()
	if _, err := core.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("pod %s/%s: %v, want NotFound", ns, name, err)
	}
	if ids := nodeContainers(t, ns, name); len(ids) > 0 {
		t.Errorf("the node holds containers of pod %s/%s: %v", ns, name, ids)
	}
}
