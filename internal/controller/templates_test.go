package controller_test

import (
	"fmt"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

// TestTemplateCredentialsOutOfTenantReach (issue 10, class 10): a template
// source's Flux objects and Secrets live in landlord-templates, where the
// tenant's owner and reconciler can neither read nor replace the platform's
// Git credentials or decryption key; the account the template applies as
// holds the tenant role in the tenant's namespaces only; deleting the
// Tenant removes the platform-side objects.
func TestTemplateCredentialsOutOfTenantReach(t *testing.T) {
	t.Parallel()
	tenant := newTenant("stamped", "stamped-a", "stamped-b")
	tenant.Spec.Owners = []v1alpha1.Owner{{Kind: "Group", Name: "stamped-team"}}
	tenant.Spec.Sources = []v1alpha1.Source{{
		Name:       "base",
		Template:   &v1alpha1.GitSource{URL: "https://git.example.com/platform/base", SecretRef: "platform-git"},
		Decryption: &v1alpha1.Decryption{Provider: "sops", SecretRef: "platform-sops"},
	}}
	neighbour := newTenant("unstamped", "unstamped-a")
	create(t, tenant)
	create(t, neighbour)
	t.Cleanup(func() { deleteTenant(t, tenant.Name); deleteTenant(t, neighbour.Name) })

	key := render.FluxKey(tenant, "base")
	repo := &sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
	ks := &kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
	account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: render.TemplatesNamespace, Name: tenant.Name}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "stamped-b", Name: render.TemplatesBinding}}
	for _, obj := range []client.Object{repo, ks, account, binding} {
		eventually(t, fmt.Sprintf("%T %s", obj, client.ObjectKeyFromObject(obj)), func() error { return exists(obj) })
	}
	if key.Namespace != render.TemplatesNamespace || ks.Spec.ServiceAccountName != tenant.Name || ks.Spec.TargetNamespace != "stamped-a" || ks.Spec.Decryption.SecretRef.Name != "platform-sops" {
		t.Errorf("template Kustomization %s: runs as %q into %q, decrypting with %v", key, ks.Spec.ServiceAccountName, ks.Spec.TargetNamespace, ks.Spec.Decryption)
	}
	if repo.Spec.SecretRef == nil || repo.Spec.SecretRef.Name != "platform-git" {
		t.Errorf("template GitRepository %s: secretRef %v, want platform-git beside it", key, repo.Spec.SecretRef)
	}

	// The platform puts the credentials beside the template's objects.
	for _, name := range []string{"platform-git", "platform-sops"} {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: render.TemplatesNamespace, Name: name}, StringData: map[string]string{"password": "s3cret"}}
		if err := k8s.Create(ctx, secret); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(ctx, secret) })
	}

	reconciler := impersonate("system:serviceaccount:stamped-a:"+tenant.ReconcilerName(), "system:serviceaccounts", "system:serviceaccounts:stamped-a", "system:authenticated")
	owner := impersonate("sam", "stamped-team", "system:authenticated")
	templates := impersonate("system:serviceaccount:"+render.TemplatesNamespace+":"+tenant.Name,
		"system:serviceaccounts", "system:serviceaccounts:"+render.TemplatesNamespace, "system:authenticated")
	for who, c := range map[string]client.Client{"reconciler": reconciler, "owner": owner, "template account": templates} {
		for _, name := range []string{"platform-git", "platform-sops"} {
			secret := &corev1.Secret{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: render.TemplatesNamespace, Name: name}, secret); !apierrors.IsForbidden(err) {
				t.Errorf("%s reading Secret %s/%s: err = %v, want Forbidden", who, render.TemplatesNamespace, name, err)
			}
			replaced := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: render.TemplatesNamespace, Name: name}, StringData: map[string]string{"password": "mine"}}
			if err := c.Update(ctx, replaced, client.DryRunAll); !apierrors.IsForbidden(err) {
				t.Errorf("%s replacing Secret %s/%s: err = %v, want Forbidden", who, render.TemplatesNamespace, name, err)
			}
		}
		// Nor can they point the template elsewhere.
		edited := ks.DeepCopy()
		edited.Spec.ServiceAccountName = "default"
		if err := c.Update(ctx, edited, client.DryRunAll); !apierrors.IsForbidden(err) {
			t.Errorf("%s editing Kustomization %s: err = %v, want Forbidden", who, key, err)
		}
	}

	// The template applies as the tenant, in its namespaces only.
	if err := templates.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "stamped-b", Name: "from-template"}}, client.DryRunAll); err != nil {
		t.Errorf("template account creating a ConfigMap in the tenant's namespace: %v", err)
	}
	for _, ns := range []string{"unstamped-a", render.TemplatesNamespace, "default"} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "escape"}}
		if err := templates.Create(ctx, cm, client.DryRunAll); !apierrors.IsForbidden(err) {
			t.Errorf("template account creating a ConfigMap in %s: err = %v, want Forbidden", ns, err)
		}
	}

	deleteTenant(t, tenant.Name)
	for _, obj := range []client.Object{repo, ks, account, binding} {
		eventually(t, fmt.Sprintf("%T %s gone", obj, client.ObjectKeyFromObject(obj)), func() error { return gone(obj) })
	}
}
