package node

import (
	"fmt"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// TestNetworkIsolation sends packets between two tenants' pods and two
// platform namespaces, one of them in the first tenant's network.allowFrom.
// Each blocked case stands beside the neighbour that must still work, so a
// block is the policy's and not a pod that answers nobody.
func TestNetworkIsolation(t *testing.T) {
	createTenant(t, &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "alpha"},
		Spec: v1alpha1.TenantSpec{
			Namespaces:  []v1alpha1.TenantNamespace{{Name: "alpha-web"}, {Name: "alpha-jobs"}},
			Network:     v1alpha1.Network{AllowFrom: []string{"ingress"}},
			SelfService: &v1alpha1.SelfService{Prefix: "alpha-dev-", MaxNamespaces: 1},
		},
	})
	createTenant(t, &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "beta"},
		Spec:       v1alpha1.TenantSpec{Namespaces: []v1alpha1.TenantNamespace{{Name: "beta-web"}}},
	})
	createNamespace(t, "ingress")
	createNamespace(t, "monitoring")

	alphaServer := startPod(t, "alpha-web", "server")
	alphaClient := startPod(t, "alpha-web", "client")
	alphaJobs := startPod(t, "alpha-jobs", "client")
	betaServer := startPod(t, "beta-web", "server")
	betaClient := startPod(t, "beta-web", "client")
	ingress := startPod(t, "ingress", "client")
	monitoring := startPod(t, "monitoring", "client")
	alphaService := exposeService(t, alphaServer)
	betaService := exposeService(t, betaServer)

	// The enforcer learns of policies and pods from its own watch: wait
	// until it holds for one pair, then judge every case once.
	waitBlocked(t, betaClient, podAddr(alphaServer))

	t.Run("a tenant's pod reaches its own pods and Service", func(t *testing.T) {
		reaches(t, alphaClient, podAddr(alphaServer), "alpha's pod")
		reaches(t, alphaClient, alphaService, "alpha's Service")
		reaches(t, alphaJobs, podAddr(alphaServer), "alpha's pod, from alpha's other namespace")
		reaches(t, alphaJobs, alphaService, "alpha's Service, from alpha's other namespace")
	})
	t.Run("a tenant's pod does not reach another tenant's pods or Service", func(t *testing.T) {
		blocked(t, alphaClient, podAddr(betaServer), "beta's pod")
		blocked(t, alphaClient, betaService, "beta's Service")
		reaches(t, betaClient, podAddr(betaServer), "beta's pod, from beta (neighbour)")
		reaches(t, betaClient, betaService, "beta's Service, from beta (neighbour)")
		blocked(t, betaClient, podAddr(alphaServer), "alpha's pod")
		blocked(t, betaClient, alphaService, "alpha's Service")
	})
	t.Run("a namespace in network.allowFrom reaches the tenant, and no other", func(t *testing.T) {
		reaches(t, ingress, podAddr(alphaServer), "alpha's pod")
		reaches(t, ingress, alphaService, "alpha's Service")
		blocked(t, ingress, podAddr(betaServer), "beta's pod, which does not list it")
		blocked(t, monitoring, podAddr(alphaServer), "alpha's pod, from a platform namespace not listed (neighbour)")
	})
	t.Run("a self-service namespace gets the same rules once adopted", func(t *testing.T) {
		adopted := createSelfService(t, "alpha", "alpha-dev-one")
		devServer := startPod(t, adopted, "server")
		waitBlocked(t, betaClient, podAddr(devServer))
		reaches(t, alphaClient, podAddr(devServer), "alpha's self-service pod")
		reaches(t, startPod(t, adopted, "client"), podAddr(alphaServer), "alpha's pod, from alpha's self-service namespace")
		blocked(t, betaClient, podAddr(devServer), "alpha's self-service pod")
	})
	t.Run("a NetworkPolicy deleted by hand comes back and blocks again", func(t *testing.T) {
		key := types.NamespacedName{Namespace: "alpha-web", Name: render.NetworkPolicyName}
		var before networkingv1.NetworkPolicy
		if err := k8s.Get(ctx, key, &before); err != nil {
			t.Fatal(err)
		}
		if err := k8s.Delete(ctx, &before); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		testenv.Eventually(t, 30*time.Second, func() error {
			var after networkingv1.NetworkPolicy
			if err := k8s.Get(ctx, key, &after); err != nil {
				return err
			}
			if after.UID == before.UID {
				return fmt.Errorf("%s not deleted yet", key)
			}
			return nil
		})
		t.Logf("%s recreated by the controller after %s", key, time.Since(start).Round(time.Millisecond))
		waitBlocked(t, betaClient, podAddr(alphaServer))
		blocked(t, betaClient, alphaService, "alpha's Service")
		reaches(t, alphaClient, podAddr(alphaServer), "alpha's pod (neighbour)")
	})
}

func createTenant(t *testing.T, tenant *v1alpha1.Tenant) {
	t.Helper()
	if err := k8s.Create(ctx, tenant); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, func() error {
		for _, ns := range tenant.Spec.Namespaces {
			var np networkingv1.NetworkPolicy
			if err := k8s.Get(ctx, types.NamespacedName{Namespace: ns.Name, Name: render.NetworkPolicyName}, &np); err != nil {
				return err
			}
			if _, err := core.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{}); err != nil {
				return err
			}
			// The authorizer learns of the owners' bindings from its informer, a moment on.
			for _, o := range tenant.Spec.Owners {
				if err := ownerMayCreatePods(o, ns.Name); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// ownerMayCreatePods asks the API server's authorizer whether an owner who
// is a user may create pods in ns yet; the tests here name only users.
func ownerMayCreatePods(o v1alpha1.Owner, ns string) error {
	if o.Kind != "User" {
		return nil
	}
	sar, err := core.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               o.Name,
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "create", Resource: "pods"},
	}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	if !sar.Status.Allowed {
		return fmt.Errorf("owner %s %s may not create pods in %s yet: %s", o.Kind, o.Name, ns, sar.Status.Reason)
	}
	return nil
}

// createSelfService creates name as the tenant's reconciler would, labelled
// for it, and waits for the controller to adopt it.
func createSelfService(t *testing.T, tenant, name string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1alpha1.TenantLabel: tenant}}}
	if _, err := core.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, func() error {
		var np networkingv1.NetworkPolicy
		if err := k8s.Get(ctx, types.NamespacedName{Namespace: name, Name: render.NetworkPolicyName}, &np); err != nil {
			return err
		}
		_, err := core.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
		return err
	})
	return name
}

// waitBlocked waits, within a bound, until from no longer reaches addr.
func waitBlocked(t *testing.T, from *corev1.Pod, addr string) {
	t.Helper()
	start := time.Now()
	testenv.Eventually(t, 30*time.Second, func() error {
		switch r := dial(t, from, addr); {
		case r.Reached:
			return fmt.Errorf("%s/%s still reaches %s", from.Namespace, from.Name, addr)
		case r.Failure != "timeout" && r.Failure != "refused":
			return fmt.Errorf("%s/%s -> %s failed, but not as a policy drops: %s", from.Namespace, from.Name, addr, r.Error)
		}
		return nil
	})
	t.Logf("enforced: %s/%s no longer reaches %s after %s", from.Namespace, from.Name, addr, time.Since(start).Round(time.Millisecond))
}
