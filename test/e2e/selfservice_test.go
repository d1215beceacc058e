package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

// TestSelfService: a tenant's repository declares a namespace with its
// self-service prefix; Flux creates it as the tenant and Landlord adopts it
// with every guard rail. One more, over the tenant's limit, is refused and
// the refusal reported.
func TestSelfService(t *testing.T) {
	t.Parallel()
	const tenant = "crew"
	crew := gitTenant(tenant, &v1alpha1.SelfService{Prefix: "crew-", MaxNamespaces: 1})
	crew.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("10")}}
	files := map[string]string{
		"app.yaml":           configMap("app", tenant),
		"kustomization.yaml": kustomizationOf("app.yaml"),
	}
	createGitTenant(t, crew, files)

	files["preview.yaml"] = selfServiceNamespace("crew-preview", tenant)
	files["kustomization.yaml"] = kustomizationOf("app.yaml", "preview.yaml")
	revision := pushFiles(t, tenant, files, "a preview namespace")
	if ready := attempted(t, k8s, tenant, tenant, revision); ready.Status != metav1.ConditionTrue {
		t.Fatalf("Kustomization %s/%s refused the tenant's own self-service namespace crew-preview: %s", tenant, tenant, ready.Message)
	}
	eventually(t, k8s, "crew-preview adopted with its guard rails", guardRails(k8s, tenant, "crew-preview"))
	eventually(t, k8s, "Tenant lists crew-preview as SelfService", func(ctx context.Context) error {
		got := &v1alpha1.Tenant{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: tenant}, got); err != nil {
			return err
		}
		want := v1alpha1.NamespaceStatus{Name: "crew-preview", Origin: v1alpha1.NamespaceOriginSelfService, Ready: true}
		if !slices.Contains(got.Status.Namespaces, want) {
			return fmt.Errorf("status.namespaces = %+v, want %+v among them", got.Status.Namespaces, want)
		}
		return nil
	})

	files["extra.yaml"] = selfServiceNamespace("crew-extra", tenant)
	files["kustomization.yaml"] = kustomizationOf("app.yaml", "preview.yaml", "extra.yaml")
	revision = pushFiles(t, tenant, files, "one namespace too many")
	ready := attempted(t, k8s, tenant, tenant, revision)
	if err := absent(t.Context(), k8s, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "crew-extra"}}); err != nil {
		t.Error(err)
	}
	want := []string{"Namespace/crew-extra dry-run failed", "denied the request",
		"LL009: tenant crew has 1 self-service namespaces; allowed: at most spec.selfService.maxNamespaces=1"}
	for _, w := range want {
		if ready.Status != metav1.ConditionFalse || !strings.Contains(ready.Message, w) {
			t.Errorf("Kustomization %s/%s Ready=%s, want a refusal with %q:\n%s", tenant, tenant, ready.Status, w, ready.Message)
		}
	}
}

// selfServiceNamespace is a Namespace manifest as a tenant writes one.
func selfServiceNamespace(name, tenant string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n  labels:\n    %s: %s\n", name, v1alpha1.TenantLabel, tenant)
}

// pushFiles commits files as the tenant's repository and has Flux fetch it.
func pushFiles(t *testing.T, tenant string, files map[string]string, message string) string {
	t.Helper()
	dir := t.TempDir()
	if err := writeFiles(dir, maps.Clone(files)); err != nil {
		t.Fatal(err)
	}
	return pushTenant(t, k8s, public, tenant, tenant, tenant, dir, message)
}

// guardRails holds once namespace is the tenant's, managed by Landlord as
// self-service, with Pod Security, quota, isolation, the reconciler and its
// binding, and the self-service binding letting the tenant delete it.
func guardRails(c client.Client, tenant, namespace string) func(context.Context) error {
	return func(ctx context.Context) error {
		ns := &corev1.Namespace{}
		if err := c.Get(ctx, client.ObjectKey{Name: namespace}, ns); err != nil {
			return err
		}
		for k, v := range map[string]string{
			v1alpha1.TenantLabel:                 tenant,
			v1alpha1.ManagedByLabel:              v1alpha1.ManagedByValue,
			v1alpha1.OriginLabel:                 string(v1alpha1.NamespaceOriginSelfService),
			"pod-security.kubernetes.io/enforce": string(v1alpha1.PodSecurityRestricted),
		} {
			if ns.Labels[k] != v {
				return fmt.Errorf("namespace %s labels %v, want %s=%s", namespace, ns.Labels, k, v)
			}
		}
		for _, obj := range []client.Object{
			&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: render.QuotaName}},
			&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: render.NetworkPolicyName}},
			&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: tenant}},
			&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: render.ReconcilerBinding}},
			&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: render.SelfServiceBinding}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.VariablesConfigMap}},
		} {
			if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: obj.GetName()}, obj); err != nil {
				return fmt.Errorf("guard rail %T %s/%s: %w", obj, namespace, obj.GetName(), err)
			}
			if obj.GetLabels()[v1alpha1.ManagedByLabel] != v1alpha1.ManagedByValue {
				return fmt.Errorf("%T %s/%s is not Landlord's: labels %v", obj, namespace, obj.GetName(), obj.GetLabels())
			}
		}
		return nil
	}
}
