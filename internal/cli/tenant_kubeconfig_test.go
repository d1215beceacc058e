package cli_test

import (
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// kubeconfigTenant creates a Tenant with the namespaces and owners given
// and waits until the controller made it Ready.
func kubeconfigTenant(t *testing.T, name string, namespaces []string, owners ...v1alpha1.Owner) {
	t.Helper()
	tenant := &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1alpha1.TenantSpec{Owners: owners}}
	for _, ns := range namespaces {
		tenant.Spec.Namespaces = append(tenant.Spec.Namespaces, v1alpha1.TenantNamespace{Name: ns})
	}
	mustCreate(t, tenant)
	waitFor(t, name, func(tenant *v1alpha1.Tenant) bool {
		return apimeta.IsStatusConditionTrue(tenant.Status.Conditions, v1alpha1.ReadyCondition)
	})
}

func mustCreate(t *testing.T, obj client.Object) {
	t.Helper()
	if err := k8s.Create(ctx, obj); err != nil {
		t.Fatalf("creating %T %s: %v", obj, obj.GetName(), err)
	}
}

// TestTenantKubeconfig issues a kubeconfig for a tenant the real controller
// provisioned and uses it: pods of the tenant's namespaces are listed,
// those of default and of another tenant are forbidden.
func TestTenantKubeconfig(t *testing.T) {
	t.Parallel()
	startLandlord(t)
	mustCreate(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kubecfg-owners"}})
	mustCreate(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "kubecfg-a-admin", Namespace: "kubecfg-owners"}})
	admin := v1alpha1.Owner{Kind: "ServiceAccount", Name: "kubecfg-a-admin", Namespace: "kubecfg-owners"}
	kubeconfigTenant(t, "kubecfg-a", []string{"kubecfg-a-apps", "kubecfg-a-jobs"}, v1alpha1.Owner{Kind: "Group", Name: "kubecfg-a-devs"}, admin)
	kubeconfigTenant(t, "kubecfg-b", []string{"kubecfg-b-apps"})

	stdout, stderr, err := landlordLive("tenant", "kubeconfig", "kubecfg-a", "--duration", "1h")
	if err != nil {
		t.Fatalf("tenant kubeconfig: %v\nstderr:\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "token of ServiceAccount kubecfg-owners/kubecfg-a-admin, owner of tenant kubecfg-a, expires at ") {
		t.Errorf("stderr does not say whose token it is and when it expires:\n%s", stderr)
	}
	if strings.Contains(stdout, "client-key") || strings.Contains(stdout, "client-certificate") {
		t.Errorf("the kubeconfig carries the admin's credentials:\n%s", stdout)
	}
	loaded, err := clientcmd.Load([]byte(stdout))
	if err != nil {
		t.Fatal(err)
	}
	if ns := loaded.Contexts[loaded.CurrentContext].Namespace; ns != "kubecfg-a-apps" {
		t.Errorf("context namespace %q, want the tenant's first, kubecfg-a-apps", ns)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig([]byte(stdout))
	if err != nil {
		t.Fatal(err)
	}
	tenant, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}

	review, err := tenant.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if user := review.Status.UserInfo.Username; user != "system:serviceaccount:kubecfg-owners:kubecfg-a-admin" {
		t.Errorf("the kubeconfig authenticates as %q", user)
	}
	for _, ns := range []string{"kubecfg-a-apps", "kubecfg-a-jobs"} {
		if _, err := tenant.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("listing pods in the tenant's namespace %s: %v", ns, err)
		}
	}
	for _, ns := range []string{"default", "kubecfg-b-apps", "kubecfg-owners"} {
		_, err := tenant.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if !apierrors.IsForbidden(err) {
			t.Errorf("listing pods in %s: %v, want Forbidden", ns, err)
		}
	}
}

// TestTenantKubeconfigNeedsAServiceAccountOwner covers the tenants the
// API server cannot issue a token for, and the flags.
func TestTenantKubeconfigNeedsAServiceAccountOwner(t *testing.T) {
	t.Parallel()
	startLandlord(t)
	mustCreate(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kubecfg-c-owners"}})
	for _, name := range []string{"one", "two"} {
		mustCreate(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kubecfg-c-owners"}})
	}
	kubeconfigTenant(t, "kubecfg-c", []string{"kubecfg-c-apps"}, v1alpha1.Owner{Kind: "User", Name: "ana"})
	kubeconfigTenant(t, "kubecfg-d", []string{"kubecfg-d-apps"},
		v1alpha1.Owner{Kind: "ServiceAccount", Name: "one", Namespace: "kubecfg-c-owners"},
		v1alpha1.Owner{Kind: "ServiceAccount", Name: "two", Namespace: "kubecfg-c-owners"},
		v1alpha1.Owner{Kind: "ServiceAccount", Name: "gone", Namespace: "kubecfg-c-owners"},
		v1alpha1.Owner{Kind: "Group", Name: "devs"})

	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"users only":       {[]string{"kubecfg-c"}, "tenant kubecfg-c has no owner of kind ServiceAccount (its owners: User ana): the API server issues tokens to ServiceAccounts only; add one to spec.owners"},
		"several":          {[]string{"kubecfg-d"}, "tenant kubecfg-d has 3 ServiceAccount owners: choose one with --owner (kubecfg-c-owners/one, kubecfg-c-owners/two, kubecfg-c-owners/gone)"},
		"a group":          {[]string{"kubecfg-d", "--owner", "devs"}, `--owner "devs": a Group; the API server issues tokens to ServiceAccounts only`},
		"a stranger":       {[]string{"kubecfg-d", "--owner", "eve"}, `--owner "eve": not an owner of tenant kubecfg-d`},
		"no such account":  {[]string{"kubecfg-d", "--owner", "gone"}, "ServiceAccount kubecfg-c-owners/gone, owner of tenant kubecfg-d, not found: create it"},
		"too short":        {[]string{"kubecfg-d", "--owner", "one", "--duration", "5m"}, "--duration 5m0s: must be at least 10m0s"},
		"no tenant":        {[]string{"kubecfg-nobody"}, "tenant kubecfg-nobody not found"},
		"owner ns/name":    {[]string{"kubecfg-d", "--owner", "kubecfg-c-owners/two"}, ""},
		"owner by name":    {[]string{"kubecfg-d", "--owner", "one"}, ""},
		"duration minimum": {[]string{"kubecfg-d", "--owner", "one", "--duration", "10m"}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			stdout, stderr, err := landlordLive(append([]string{"tenant", "kubeconfig"}, tc.args...)...)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("%v\nstderr:\n%s", err, stderr)
				}
				if _, err := clientcmd.Load([]byte(stdout)); err != nil {
					t.Errorf("not a kubeconfig: %v\n%s", err, stdout)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant one containing %q", err, tc.want)
			}
			if stdout != "" {
				t.Errorf("printed a kubeconfig despite the error:\n%s", stdout)
			}
		})
	}
}
