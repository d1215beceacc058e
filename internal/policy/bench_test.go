package policy

import (
	"encoding/json"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// BenchmarkEvaluate runs a realistic mix: Flux applying a tenant's
// Kustomization, HelmRelease and Deployment, an update that ratchets, a
// denied cross-namespace reference, and self-service Namespace creation.
func BenchmarkEvaluate(b *testing.B) {
	reqs := []Request{
		create(reconciler, "apps", newKustomization()),
		create(reconciler, "apps", newHelmRelease()),
		create(reconciler, "apps", newDeployment("app", true)),
		update(reconciler, "apps", newDeployment("app", true), newDeployment("app", true)),
		update(reconciler, "apps", newKustomization(), newKustomization(func(k *kustomizev1.Kustomization) { k.Spec.SourceRef.Namespace = "flux-system" })),
		create(owner, "", newNamespace("dev-team-y", map[string]string{v1alpha1.TenantLabel: "dev-team"})),
		update(controller, "", newTenantNamespace("apps", v1alpha1.NamespaceOriginPlatform), newTenantNamespace("apps", v1alpha1.NamespaceOriginPlatform)),
		create(reconciler, "apps", newGitRepository("https://git.example.com/org/app")),
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Evaluate(reqs[i%len(reqs)], testTenants)
	}
}

// BenchmarkDecode decodes a Deployment, the commonest judged object.
func BenchmarkDecode(b *testing.B) {
	raw, err := json.Marshal(newDeployment("app", true))
	if err != nil {
		b.Fatal(err)
	}
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(gvk, raw); err != nil {
			b.Fatal(err)
		}
	}
}
