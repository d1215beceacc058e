package webhook_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// blueScheduling is blue's spec.scheduling: its own priority class, node
// pool and dedicated-node taint.
var blueScheduling = &v1alpha1.Scheduling{
	PriorityClasses: []string{"blue-batch"},
	NodeLabels:      []v1alpha1.NodeLabel{{Key: "pool", Values: []string{"blue"}}},
	Tolerations:     []v1alpha1.AllowedToleration{{Key: "dedicated", Value: "blue", Effect: corev1.TaintEffectNoSchedule}},
}

// TestAttacksWorkloads sends what pods, claims, services, Ingresses and
// budgets can reach beyond the tenant (LL019-LL023, LL011's anonymous
// user), each beside its legitimate neighbour. Red holds an Ingress for
// shop.apps.example.com, a domain both tenants may serve.
func TestAttacksWorkloads(t *testing.T) {
	attackWorld(t)
	batch := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "blue-batch"}, Value: 1000}
	held := ingress("red-apps", "shop", "shop.apps.example.com")
	for _, obj := range []client.Object{batch, held} {
		if err := k8s.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(ctx, obj) })
	}
	// The guard learns red's hostname from its cache, a moment later.
	testenv.Eventually(t, 30*time.Second, func() error {
		if err := identities["reconciler"].Create(ctx, ingress("blue-apps", "shop", "shop.apps.example.com"), dry); err == nil || !strings.Contains(err.Error(), "LL022:") {
			return errors.New("red's hostname not yet known to the guard")
		}
		return nil
	})

	podWith := func(edit func(*corev1.PodSpec)) *corev1.Pod {
		p := pod("default")
		edit(&p.Spec)
		return p
	}
	withClass := func(ing *networkingv1.Ingress, class string) *networkingv1.Ingress {
		ing.Spec.IngressClassName = &class
		return ing
	}
	externalName := service(corev1.ServiceTypeExternalName, nil)
	externalName.Spec.ExternalName = "web.red-apps.svc.cluster.local"
	externalName.Spec.Selector, externalName.Spec.Ports = nil, nil
	budget := func(maxUnavailable string) *policyv1.PodDisruptionBudget {
		v := intstr.Parse(maxUnavailable)
		return &policyv1.PodDisruptionBudget{ObjectMeta: blueMeta("web"), Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable: &v, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		}}
	}
	const (
		ownPriority = "pod of its own priority class"
		ownNodes    = "pod selecting its os and its pool"
		ownTaint    = "pod tolerating its dedicated nodes"
		ownClaim    = "claim of a new volume"
		ownClass    = "claim of its storage class"
		ownService  = "ClusterIP service"
		ownHost     = "ingress for a free hostname of the shared domain"
		ownIngClass = "ingress of its class"
		ownBudget   = "budget allowing one eviction"
		ownBinding  = "bind its own service account"
		ownView     = "bind view to its own service account"
	)
	runAttacks(t, map[string]attack{
		// LL019: priority, pinning, node selection, tolerations.
		ownPriority:                              {as: "owner", do: create(podWith(func(p *corev1.PodSpec) { p.PriorityClassName = "blue-batch" }))},
		"pod preempting as system-node-critical": {as: "owner", do: create(podWith(func(p *corev1.PodSpec) { p.PriorityClassName = "system-node-critical" })), want: "LL019", near: ownPriority},
		"deployment preempting as cluster-critical": {as: "reconciler", do: create(deployment("app", func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.PriorityClassName = "system-cluster-critical"
		})), want: "LL019", near: ownPriority},
		"pod pinned to a node by name": {as: "owner", do: create(podWith(func(p *corev1.PodSpec) { p.NodeName = "worker-1" })), want: "LL019", near: ownNodes},
		ownNodes: {as: "owner", do: create(podWith(func(p *corev1.PodSpec) {
			p.NodeSelector = map[string]string{corev1.LabelOSStable: "linux", "pool": "blue"}
		}))},
		"pod selecting red's pool": {as: "owner", do: create(podWith(func(p *corev1.PodSpec) { p.NodeSelector = map[string]string{"pool": "red"} })), want: "LL019", near: ownNodes},
		"pod selecting the control plane": {as: "reconciler", do: create(podWith(func(p *corev1.PodSpec) {
			p.NodeSelector = map[string]string{"node-role.kubernetes.io/control-plane": ""}
		})), want: "LL019", near: ownNodes},
		ownTaint: {as: "owner", do: create(podWith(func(p *corev1.PodSpec) {
			p.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "blue", Effect: corev1.TaintEffectNoSchedule}}
		}))},
		"pod tolerating the node conditions": {as: "owner", do: create(podWith(func(p *corev1.PodSpec) {
			p.Tolerations = []corev1.Toleration{{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](60)}}
		}))},
		"pod tolerating a platform taint": {as: "owner", do: create(podWith(func(p *corev1.PodSpec) {
			p.Tolerations = []corev1.Toleration{{Key: "node-role.kubernetes.io/control-plane", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
		})), want: "LL019", near: ownTaint},
		"pod tolerating every taint": {as: "reconciler", do: create(podWith(func(p *corev1.PodSpec) {
			p.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
		})), want: "LL019", near: ownTaint},

		// LL020: existing volumes and storage classes.
		ownClaim:                           {as: "owner", do: create(claim("1Gi", ""))},
		"claim binding an existing volume": {as: "owner", do: create(claim("1Gi", "pv-red-data")), want: "LL020", near: ownClaim},
		ownClass:                           {as: "reconciler", do: create(withStorageClass(claim("1Gi", ""), "blue-fast"))},
		"claim of a storage class not its": {as: "reconciler", do: create(withStorageClass(claim("1Gi", ""), "premium")), want: "LL020", near: ownClass},

		// LL021: a DNS alias into red.
		ownService:             {as: "reconciler", do: create(service(corev1.ServiceTypeClusterIP, nil))},
		"ExternalName service": {as: "reconciler", do: create(externalName), want: "LL021", near: ownService},

		// LL022: hostnames, collisions, classes.
		ownHost:                            {as: "reconciler", do: create(ingress("blue-apps", "blog", "blog.apps.example.com"))},
		"ingress for red's hostname":       {as: "reconciler", do: create(ingress("blue-apps", "shop", "shop.apps.example.com")), want: "LL022", near: ownHost},
		"ingress outside blue's hostnames": {as: "owner", do: create(ingress("blue-apps", "web", "www.example.org")), want: "LL022", near: ownHost},
		"ingress answering for every host": {as: "owner", do: create(ingress("blue-apps", "web", "")), want: "LL022", near: ownHost},
		ownIngClass:                        {as: "owner", do: create(withClass(ingress("blue-apps", "web", "web.blue.example.com"), "blue-edge"))},
		"ingress of a class not blue's":    {as: "owner", do: create(withClass(ingress("blue-apps", "web", "web.blue.example.com"), "public")), want: "LL022", near: ownIngClass},

		// LL023: a budget that allows no eviction blocks every drain.
		ownBudget:                     {as: "reconciler", do: create(budget("1"))},
		"budget allowing no eviction": {as: "reconciler", do: create(budget("0")), want: "LL023", near: ownBudget},

		// LL011: whoever sends no credentials.
		ownBinding:                 {as: "reconciler", do: create(roleBinding(v1alpha1.DefaultRole, rbacv1.Subject{Kind: "ServiceAccount", Name: "ci", Namespace: "blue-jobs"}))},
		"bind the anonymous user":  {as: "owner", do: create(roleBinding(v1alpha1.DefaultRole, rbacv1.Subject{Kind: rbacv1.UserKind, Name: "system:anonymous", APIGroup: rbacv1.GroupName})), want: "LL011", near: ownBinding},
		"bind the unauthenticated": {as: "owner", do: create(roleBinding(v1alpha1.DefaultRole, rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "system:unauthenticated", APIGroup: rbacv1.GroupName})), want: "LL011", near: ownBinding},

		// Kubernetes' view, bound to the tenant's own account, though it
		// reads what the tenant role does not (the tenant role's bind on it);
		// edit, which impersonates service accounts, stays out of reach.
		ownView:                                {as: "owner", do: create(roleBinding("view", rbacv1.Subject{Kind: "ServiceAccount", Name: "ci", Namespace: "blue-apps"}))},
		"bind edit to its own service account": {as: "owner", do: create(roleBinding("edit", rbacv1.Subject{Kind: "ServiceAccount", Name: "ci", Namespace: "blue-apps"})), want: rbacDenied, near: ownView},
		"bind view to red's service account":   {as: "owner", do: create(roleBinding("view", rbacv1.Subject{Kind: "ServiceAccount", Name: "ci", Namespace: "red-apps"})), want: "LL011", near: ownView},
	})
}

// ingress serves host in ns; "" answers for every host.
func ingress(ns, name, host string) *networkingv1.Ingress {
	prefix := networkingv1.PathTypePrefix
	return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: networkingv1.IngressSpec{
		Rules: []networkingv1.IngressRule{{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
			Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &prefix, Backend: networkingv1.IngressBackend{
				Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}},
			}}},
		}}}},
	}}
}

func withStorageClass(c *corev1.PersistentVolumeClaim, class string) *corev1.PersistentVolumeClaim {
	c.Spec.StorageClassName = &class
	return c
}
