package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/types"
)

// TestOnboarding: Flux syncs clusters/staging of the fleet; the fleet's
// tenants become Ready and each tenant's Kustomization applies its
// repository's staging overlay, variables substituted, with the podinfo
// HelmRelease installed from the tenant's own HelmRepository.
func TestOnboarding(t *testing.T) {
	for _, name := range []string{"flux-system", "infrastructure", "tenants"} {
		eventually(t, k8s, "fleet Kustomization "+name+" Ready",
			fluxReady(k8s, &kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Namespace: fluxNamespace, Name: name}}))
	}
	for _, tenant := range appTenants {
		t.Run(tenant.name, func(t *testing.T) {
			ns := tenant.name
			eventually(t, k8s, "tenant Ready", tenantReady(k8s, tenant.name))
			eventually(t, k8s, "staging-only ConfigMap with the tenant's variables", configMapData(k8s, ns, "settings", map[string]string{
				"tenant": tenant.name, "namespace": ns, "greeting": tenant.greeting, "color": "blue",
			}))

			repo := &sourcev1.HelmRepository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "podinfo"}}
			eventually(t, k8s, "the tenant's HelmRepository Ready", fluxReady(k8s, repo))
			if repo.Spec.URL != chartsURL {
				t.Errorf("HelmRepository %s/podinfo URL = %s, want the local chart repository %s", ns, repo.Spec.URL, chartsURL)
			}
			release := &helmv2.HelmRelease{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "podinfo"}}
			eventually(t, k8s, "HelmRelease podinfo Ready", fluxReady(k8s, release))
			// Staging's overlay: pre-releases, one replica.
			eventually(t, k8s, "podinfo installed from the staging overlay", configMapData(k8s, ns, "podinfo", map[string]string{
				"chartVersion": prereleaseVersion, "replicaCount": "1",
			}))
			if got := release.Spec.Chart.Spec.SourceRef; got.Kind != sourcev1.HelmRepositoryKind || got.Name != "podinfo" || (got.Namespace != "" && got.Namespace != ns) {
				t.Errorf("HelmRelease %s/podinfo chart source = %+v, want the tenant's own HelmRepository podinfo", ns, got)
			}
			if release.Spec.ServiceAccountName != tenant.name {
				t.Errorf("HelmRelease %s/podinfo serviceAccountName = %q, want the tenant's reconciler %q set by Landlord", ns, release.Spec.ServiceAccountName, tenant.name)
			}
		})
	}
}

// TestTenantCommit: a tenant's commit changing a ConfigMap lands; a file it
// removes is pruned.
func TestTenantCommit(t *testing.T) {
	const tenant = "dev-team"
	eventually(t, k8s, "tenant Ready", tenantReady(k8s, tenant))
	eventually(t, k8s, "ConfigMap feature-flags applied", configMapData(k8s, tenant, "feature-flags", map[string]string{"beta": "true"}))

	dir := repoDir(tenant)
	if err := writeFiles(filepath.Join(dir, "staging"), map[string]string{"settings.yaml": settingsYAML("green")}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "staging", "feature.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := editKustomization(filepath.Join(dir, "staging"), func(k *types.Kustomization) {
		k.Resources = removed(k.Resources, "feature.yaml")
	}); err != nil {
		t.Fatal(err)
	}
	revision := pushTenant(t, k8s, public, tenant, tenant, tenant, dir, "green, and no feature flags")

	eventually(t, k8s, "Kustomization applied the commit", applied(k8s, tenant, tenant, revision))
	eventually(t, k8s, "the changed ConfigMap", configMapData(k8s, tenant, "settings", map[string]string{"color": "green", "greeting": "hello from dev-team"}))
	eventually(t, k8s, "the removed ConfigMap pruned", func(ctx context.Context) error {
		err := k8s.Get(ctx, client.ObjectKey{Namespace: tenant, Name: "feature-flags"}, &corev1.ConfigMap{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("ConfigMap %s/feature-flags still there (err %v)", tenant, err)
	})
}

// removed is list without item.
func removed(list []string, item string) []string {
	var out []string
	for _, s := range list {
		if s != item {
			out = append(out, s)
		}
	}
	return out
}
