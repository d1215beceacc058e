package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// holdFinalizer keeps the tenant's Kustomization from going away once
// kustomize-controller has finalized it, freezing the cluster between
// Landlord's first deletion stage and the next for the test to look at.
const holdFinalizer = "e2e.landlord.dev/hold"

// TestTenantDeletion: deleting a Tenant deletes its Flux objects first, so
// that Flux prunes the tenant's workloads while its namespaces and identity
// exist, then everything else: nothing of the tenant is left.
func TestTenantDeletion(t *testing.T) {
	t.Parallel()
	const tenant = "temp"
	// Self-service gives the tenant a ClusterRoleBinding to be deleted too.
	temp := gitTenant(tenant, &v1alpha1.SelfService{Prefix: "temp-", MaxNamespaces: 1})
	createGitTenant(t, temp, map[string]string{
		"workload.yaml":      configMap("workload", tenant),
		"kustomization.yaml": kustomizationOf("workload.yaml"),
	})
	eventually(t, k8s, "workload applied", configMapData(k8s, tenant, "workload", map[string]string{"from": "git"}))
	bindings := &rbacv1.ClusterRoleBindingList{}
	if err := k8s.List(t.Context(), bindings, client.MatchingLabels{v1alpha1.TenantLabel: tenant}); err != nil {
		t.Fatal(err)
	}
	if len(bindings.Items) == 0 {
		t.Fatalf("tenant %s has no ClusterRoleBinding to see deleted", tenant)
	}

	ks := &kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: tenant}}
	editFinalizers(t, ks, func(f []string) []string { return append(f, holdFinalizer) })

	if _, err := landlord(t.Context(), "", "--kubeconfig", env.KubeconfigPath, "tenant", "delete", tenant); err != nil {
		t.Fatal(err)
	}
	eventually(t, k8s, "Flux pruned the workload", func(ctx context.Context) error {
		return absent(ctx, k8s, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "workload"}})
	})
	// Held in the first stage: the Kustomization is going, the rest is not.
	if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(ks), ks); err != nil || ks.DeletionTimestamp.IsZero() {
		t.Errorf("Kustomization %s/%s: want it being deleted (err %v)", tenant, tenant, err)
	}
	ns := &corev1.Namespace{}
	if err := k8s.Get(t.Context(), client.ObjectKey{Name: tenant}, ns); err != nil || !ns.DeletionTimestamp.IsZero() {
		t.Errorf("namespace %s went before the Flux objects (err %v, deletionTimestamp %v)", tenant, err, ns.DeletionTimestamp)
	}
	if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: tenant, Name: tenant}, &corev1.ServiceAccount{}); err != nil {
		t.Errorf("the reconciler went before the Flux objects: %v", err)
	}

	editFinalizers(t, ks, func(f []string) []string {
		return slices.DeleteFunc(f, func(s string) bool { return s == holdFinalizer })
	})
	eventually(t, k8s, "nothing of the tenant left", func(ctx context.Context) error {
		for _, obj := range []client.Object{
			&v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: tenant}},
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenant}},
			&sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: tenant}},
			ks,
		} {
			if err := absent(ctx, k8s, obj); err != nil {
				return err
			}
		}
		for _, list := range []client.ObjectList{&rbacv1.ClusterRoleBindingList{}, &corev1.NamespaceList{}} {
			if err := k8s.List(ctx, list, client.MatchingLabels{v1alpha1.TenantLabel: tenant}); err != nil {
				return err
			}
			if n := apimeta.LenList(list); n > 0 {
				return fmt.Errorf("%d %T labelled %s=%s left", n, list, v1alpha1.TenantLabel, tenant)
			}
		}
		return nil
	})
}

// editFinalizers changes obj's finalizers, retrying on conflicts with the
// controllers writing it too.
func editFinalizers(t *testing.T, obj client.Object, edit func([]string) []string) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		obj.SetFinalizers(edit(obj.GetFinalizers()))
		return k8s.Update(t.Context(), obj)
	})
	if err != nil {
		t.Fatalf("edit the finalizers of %T %s/%s: %v", obj, obj.GetNamespace(), obj.GetName(), err)
	}
}
