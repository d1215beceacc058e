package e2e

import (
	"context"
	"fmt"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestPrivateRepository: the private tenant's Git credential, made by
// `landlord secret git` and committed SOPS-encrypted in the fleet, is
// decrypted by kustomize-controller into the tenant's namespace, and the
// tenant's repository behind basic auth syncs: the tenant becomes Ready.
func TestPrivateRepository(t *testing.T) {
	t.Parallel()
	eventually(t, k8s, "fleet Kustomization tenant-secrets Ready",
		fluxReady(k8s, &kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Namespace: fluxNamespace, Name: "tenant-secrets"}}))
	eventually(t, k8s, "the credential decrypted", func(ctx context.Context) error {
		s := &corev1.Secret{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: vault, Name: vault + "-git"}, s); err != nil {
			return err
		}
		if string(s.Data["username"]) != privateUser || string(s.Data["password"]) != privatePassword {
			return fmt.Errorf("Secret %s/%s-git holds keys %v, not the decrypted credential", vault, vault, keys(s.Data))
		}
		return nil
	})
	eventually(t, k8s, "tenant Ready", tenantReady(k8s, vault))
	repo := &sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Namespace: vault, Name: vault}}
	eventually(t, k8s, "GitRepository Ready", fluxReady(k8s, repo))
	if repo.Spec.URL != private.RepoURL(vault) || repo.Spec.SecretRef == nil || repo.Spec.SecretRef.Name != vault+"-git" {
		t.Errorf("GitRepository %s/%s: url %s secretRef %+v, want the private repository with %s-git", vault, vault, repo.Spec.URL, repo.Spec.SecretRef, vault)
	}
	eventually(t, k8s, "the private repository's ConfigMap", configMapData(k8s, vault, "vault-data", map[string]string{"from": "private"}))
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
