package incluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/audit"
	"github.com/landlord-dev/landlord/internal/cli"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/render"
	"github.com/landlord-dev/landlord/internal/tenancy"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// TestInCluster installs Landlord from its chart, then from config/default,
// and proves each install the same way: both replicas Ready on the node, a
// Tenant provisioned, the guard refusing a tenant's token of its
// reconciler through the webhook Service, the leader's pod deleted and then the next
// leader's process killed, admission answering throughout and another
// replica leading each time, and landlord audit passing.
func TestInCluster(t *testing.T) {
	for _, way := range []struct {
		name    string
		install func(*testing.T) []*unstructured.Unstructured
	}{
		{"chart", installChart},
		{"kustomize", installKustomize},
	} {
		t.Run(way.name, func(t *testing.T) {
			start := time.Now()
			objects := way.install(t)
			if err := install.Wait(ctx, k8s, logWriter{t}, objects, 3*time.Minute); err != nil {
				t.Fatal(err)
			}
			replicasReady(t, "")
			t.Logf("installed from %s: 2 replicas Ready after %s", way.name, time.Since(start).Round(time.Second))

			first := createReady(t, tenant(way.name+"-a"))
			guardRails(t, first)
			owner := reconcilerClient(t, first)
			if err := stolenToken(owner, first); err != nil {
				t.Fatal(err)
			}
			if err := plainSecret(owner, first); err != nil {
				t.Fatal(err)
			}

			failover(t, deleted, owner, first, tenant(way.name+"-b"))
			failover(t, crashed, owner, first, tenant(way.name+"-c"))
			auditPasses(t)
		})
	}
}

// tenant is name with one namespace, name-apps, and the platform's
// default quota and limits.
func tenant(name string) *v1alpha1.Tenant {
	return &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1alpha1.TenantSpec{Namespaces: []v1alpha1.TenantNamespace{{Name: name + "-apps"}}},
	}
}

// createReady creates tn, waits until it is Ready and deletes it when the
// test ends, before the controller is uninstalled: its finalizer needs it.
func createReady(t *testing.T, tn *v1alpha1.Tenant) *v1alpha1.Tenant {
	t.Helper()
	if err := k8s.Create(ctx, tn); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteTenant(t, tn.Name) })
	testenv.Eventually(t, time.Minute, func() error { return ready(tn.Name) })
	return tn
}

func deleteTenant(t *testing.T, name string) {
	t.Helper()
	if err := k8s.Delete(ctx, &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: name}}); client.IgnoreNotFound(err) != nil {
		t.Error(err)
		return
	}
	testenv.Eventually(t, time.Minute, func() error {
		err := k8s.Get(ctx, client.ObjectKey{Name: name}, &v1alpha1.Tenant{})
		if err == nil {
			return fmt.Errorf("tenant %s still there", name)
		}
		return client.IgnoreNotFound(err)
	})
}

// ready reports whether the named Tenant is Ready for its generation.
func ready(name string) error {
	tn := &v1alpha1.Tenant{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: name}, tn); err != nil {
		return err
	}
	c := apimeta.FindStatusCondition(tn.Status.Conditions, v1alpha1.ReadyCondition)
	if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != tn.Generation {
		return fmt.Errorf("tenant %s not Ready: %v", name, c)
	}
	return nil
}

// replicasReady waits until the Deployment's two replicas are Ready pods
// on the node, running the imported image, none of them named killed.
func replicasReady(t *testing.T, killed string) []corev1.Pod {
	t.Helper()
	var d appsv1.Deployment
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: tenancy.ControllerNamespace, Name: deployment}, &d); err != nil {
		t.Fatal(err)
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Fatalf("Deployment %s has replicas %v, want 2", deployment, d.Spec.Replicas)
	}
	var ready []corev1.Pod
	testenv.Eventually(t, 2*time.Minute, func() error {
		var pods corev1.PodList
		if err := k8s.List(ctx, &pods, client.InNamespace(tenancy.ControllerNamespace), controllerPods); err != nil {
			return err
		}
		ready = ready[:0]
		var states []string
		for _, p := range pods.Items {
			states = append(states, p.Name+" "+podState(&p))
			if p.Name != killed && p.DeletionTimestamp == nil && podReady(&p) {
				ready = append(ready, p)
			}
		}
		if len(ready) != 2 {
			return fmt.Errorf("want 2 Ready controller pods: %s", strings.Join(states, ", "))
		}
		return nil
	})
	for _, p := range ready {
		c := p.Spec.Containers[0]
		if p.Spec.NodeName != localcluster.NodeName || c.Image != repository+":"+tag || c.ImagePullPolicy != corev1.PullNever {
			t.Errorf("pod %s: node %q, image %s (%s), want %s and %s:%s", p.Name, p.Spec.NodeName, c.Image, c.ImagePullPolicy, localcluster.NodeName, repository, tag)
		}
	}
	return ready
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podState is the pod's phase and, while it is not Ready, why.
func podState(p *corev1.Pod) string {
	state := string(p.Status.Phase)
	for _, s := range p.Status.ContainerStatuses {
		switch {
		case s.State.Waiting != nil:
			state += " waiting: " + s.State.Waiting.Reason + " " + s.State.Waiting.Message
		case s.State.Terminated != nil:
			state += " terminated: " + s.State.Terminated.Reason
		case !s.Ready:
			state += " not ready"
		}
	}
	return state
}

// guardRails checks what the controller provisioned in each namespace of
// tn: the tenant's label and pod-security level, its reconciler bound,
// the isolation policy, and the platform's default quota and limits,
// which the install's tenant defaults file gives.
func guardRails(t *testing.T, tn *v1alpha1.Tenant) {
	t.Helper()
	for _, ns := range tn.Spec.Namespaces {
		var namespace corev1.Namespace
		if err := k8s.Get(ctx, client.ObjectKey{Name: ns.Name}, &namespace); err != nil {
			t.Fatal(err)
		}
		if got := namespace.Labels[v1alpha1.TenantLabel]; got != tn.Name {
			t.Errorf("namespace %s: label %s=%q, want %q", ns.Name, v1alpha1.TenantLabel, got, tn.Name)
		}
		if got := namespace.Labels["pod-security.kubernetes.io/enforce"]; got != "restricted" {
			t.Errorf("namespace %s: pod security enforce %q, want restricted", ns.Name, got)
		}
		for _, obj := range []client.Object{
			&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "landlord-reconciler"}},
			&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: render.NetworkPolicyName}},
			&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: render.QuotaName}},
			&corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: render.LimitRangeName}},
		} {
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: obj.GetName()}, obj); err != nil {
				t.Errorf("namespace %s: %T %s: %v", ns.Name, obj, obj.GetName(), err)
			}
		}
	}
}

// reconcilerClient acts as tn's reconciler, the identity Flux applies the
// tenant's repository as.
func reconcilerClient(t *testing.T, tn *v1alpha1.Tenant) client.Client {
	t.Helper()
	ns := tn.Spec.Namespaces[0].Name
	c, err := client.New(env.ConfigFor("system:serviceaccount:"+ns+":"+tn.Name), client.Options{Scheme: k8s.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// stolenToken sends, as a dry run, a token Secret of the reconciler in
// tn's namespace: nil when the guard's webhook refuses it with LL012, else
// what answered instead.
func stolenToken(c client.Client, tn *v1alpha1.Tenant) error {
	err := c.Create(ctx, secret(tn, corev1.SecretTypeServiceAccountToken), client.DryRunAll)
	if err == nil {
		return fmt.Errorf("a token of the reconciler in %s was admitted", tn.Spec.Namespaces[0].Name)
	}
	if msg := err.Error(); !strings.Contains(msg, "denied the request") || !strings.Contains(msg, "LL012") {
		return fmt.Errorf("a token of the reconciler: want the guard's LL012, got %w", err)
	}
	return nil
}

// plainSecret sends an Opaque Secret, the neighbour the webhook admits.
func plainSecret(c client.Client, tn *v1alpha1.Tenant) error {
	if err := c.Create(ctx, secret(tn, corev1.SecretTypeOpaque), client.DryRunAll); err != nil {
		return fmt.Errorf("an Opaque Secret: want admitted, got %w", err)
	}
	return nil
}

// secret is a Secret of kind in tn's namespace, annotated as the
// reconciler's: only a token Secret is one.
func secret(tn *v1alpha1.Tenant, kind corev1.SecretType) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: tn.Spec.Namespaces[0].Name, GenerateName: "probe-",
			Annotations: map[string]string{corev1.ServiceAccountNameKey: tn.ReconcilerName()},
		},
		Type: kind,
	}
}

// auditPasses runs landlord audit against the environment's kubeconfig as
// the CLI does: it exits 0, and every tenant's escape attempts were made
// and refused.
func auditPasses(t *testing.T) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Execute([]string{"audit", "--kubeconfig", env.KubeconfigPath, "-o", "json"}, &out, &errOut)
	var checks []audit.Check
	if err := json.Unmarshal(out.Bytes(), &checks); err != nil {
		t.Fatalf("landlord audit -o json (exit %d): %v\n%s%s", code, err, out.String(), errOut.String())
	}
	counts := map[audit.Result]int{}
	escapes := map[string]int{}
	for _, c := range checks {
		counts[c.Result]++
		switch {
		case c.Result == audit.Fail:
			t.Errorf("audit: %s %s %s: %s", c.Tenant, c.Kind, c.Name, c.Detail)
		case c.Result == audit.Skip && c.Kind != "flux":
			// Only Flux's lockdown has nothing to read here: no Flux runs.
			t.Errorf("audit skipped %s %s %s: %s", c.Tenant, c.Kind, c.Name, c.Detail)
		case c.Kind == "escape":
			escapes[c.Tenant]++
		}
	}
	if code != 0 {
		t.Errorf("landlord audit exited %d: %s", code, errOut.String())
	}
	var tenants v1alpha1.TenantList
	if err := k8s.List(ctx, &tenants); err != nil {
		t.Fatal(err)
	}
	for _, tn := range tenants.Items {
		if escapes[tn.Name] == 0 {
			t.Errorf("audit refused no escape of tenant %s", tn.Name)
		}
	}
	t.Logf("landlord audit: exit %d, %d checks: %d PASS, %d FAIL, %d SKIP (Flux's lockdown: no Flux here); escapes refused by tenant: %v",
		code, len(checks), counts[audit.Pass], counts[audit.Fail], counts[audit.Skip], escapes)
}
