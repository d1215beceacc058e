package policy

import (
	"strings"
	"testing"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestControllerIdentity is rule LL005 on what falls back to a Flux
// controller's own identity: decryption without keys of its own, and cloud
// providers without an object-level service account, refused even where
// the Tenant allows workload identity.
func TestControllerIdentity(t *testing.T) {
	wi := optIns{workloadIdentity: true}
	decrypt := func(d kustomizev1.Decryption) *kustomizev1.Kustomization {
		return newKustomization(func(k *kustomizev1.Kustomization) { k.Spec.Decryption = &d })
	}
	ownKey := &fluxmeta.LocalObjectReference{Name: "sops-age"}
	git := func(provider, sa string) *sourcev1.GitRepository {
		return newGitRepository("https://git.example.com/org/app", func(g *sourcev1.GitRepository) { g.Spec.Provider, g.Spec.ServiceAccountName = provider, sa })
	}
	oci := func(provider, sa string) *sourcev1.OCIRepository {
		return newOciRepository("oci://registry.example.com/charts/app", func(o *sourcev1.OCIRepository) { o.Spec.Provider, o.Spec.ServiceAccountName = provider, sa })
	}
	bucket := func(provider, sa string) *sourcev1.Bucket {
		b := newBucket("apps", "minio.example.com", "dev-team")
		b.Spec.Provider, b.Spec.ServiceAccountName = provider, sa
		return b
	}
	helmOCI := func(provider string) *sourcev1.HelmRepository {
		h := newHelmRepository("oci://registry.example.com/charts/app")
		h.Spec.Type, h.Spec.Provider = sourcev1.HelmRepositoryTypeOCI, provider
		return h
	}
	image := func(provider, sa string) *imagev1.ImageRepository {
		return newImageRepository(func(r *imagev1.ImageRepository) { r.Spec.Provider, r.Spec.ServiceAccountName = provider, sa })
	}
	notifier := func(kind, sa string) runtime.Object {
		p := newProvider(sa)
		p.Spec.Type = kind
		return p
	}

	// full allows workload identity: an update may not leave the cloud
	// provider without the account that held it, nor keep an account
	// another change made unlawful.
	fullOCI := func(provider, sa string) *sourcev1.OCIRepository {
		o := oci(provider, sa)
		o.Namespace = "full"
		return o
	}
	for name, tc := range map[string]testCase{
		"oci over aws, its account dropped by an update":    {req: update(carol, "full", fullOCI("aws", "puller"), fullOCI("aws", "")), want: "LL005"},
		"oci over aws, its account kept by an update":       {req: update(carol, "full", fullOCI("aws", "puller"), fullOCI("aws", "puller"))},
		"decryption with the controller's keys":             {req: create(reconciler, "apps", decrypt(kustomizev1.Decryption{Provider: "sops"})), want: "LL005"},
		"decryption with the controller's keys, wi allowed": {req: create(reconciler, "apps", decrypt(kustomizev1.Decryption{Provider: "sops"})), allow: wi, want: "LL005"},
		"decryption with its own secret":                    {req: create(reconciler, "apps", decrypt(kustomizev1.Decryption{Provider: "sops", SecretRef: ownKey}))},
		"decryption with its own account, wi allowed": {req: create(carol, "full", func() *kustomizev1.Kustomization {
			k := decrypt(kustomizev1.Decryption{Provider: "sops", ServiceAccountName: "kms"})
			k.Namespace, k.Spec.TargetNamespace = "full", ""
			return k
		}())},
		"decryption with its own account": {req: create(reconciler, "apps", decrypt(kustomizev1.Decryption{Provider: "sops", ServiceAccountName: "kms"})), want: "LL005"},
		// Landlord renders decryption only with the keys the Tenant names,
		// which its API requires (api/v1alpha1 TestInvalidTenantIsRefusedNamingTheField).
		"controller writes decryption with its keys":         {req: create(controller, "apps", decrypt(kustomizev1.Decryption{Provider: "sops"}))},
		"git over azure as the controller, wi allowed":       {req: create(reconciler, "apps", git("azure", "")), allow: wi, want: "LL005"},
		"git over azure as its own account, wi allowed":      {req: create(reconciler, "apps", git("azure", "fetcher")), allow: wi},
		"git over azure as its own account":                  {req: create(reconciler, "apps", git("azure", "fetcher")), want: "LL005"},
		"git over github app":                                {req: create(reconciler, "apps", git("github", ""))},
		"oci over gcp as the controller, wi allowed":         {req: create(reconciler, "apps", oci("gcp", "")), allow: wi, want: "LL005"},
		"oci generic with pull secrets account, wi allowed":  {req: create(reconciler, "apps", oci("generic", "puller")), allow: wi},
		"bucket over aws as the controller, wi allowed":      {req: create(reconciler, "apps", bucket("aws", "")), allow: wi, want: "LL005"},
		"bucket over aws as its own account, wi allowed":     {req: create(reconciler, "apps", bucket("aws", "reader")), allow: wi},
		"helm oci repository over azure, wi allowed":         {req: create(reconciler, "apps", helmOCI("azure")), allow: wi, want: "LL005"},
		"helm oci repository generic":                        {req: create(reconciler, "apps", helmOCI("generic"))},
		"image repository over aws as the controller, wi":    {req: create(reconciler, "apps", image("aws", "")), allow: wi, want: "LL005"},
		"image repository over aws as its own account, wi":   {req: create(reconciler, "apps", image("aws", "scanner")), allow: wi},
		"pubsub notifier as the controller, wi allowed":      {req: create(reconciler, "apps", notifier("googlepubsub", "")), allow: wi, want: "LL005"},
		"azure devops notifier as the controller":            {req: create(reconciler, "apps", notifier("azuredevops", "")), want: "LL005"},
		"pubsub notifier as its own account, wi allowed":     {req: create(reconciler, "apps", notifier("googlepubsub", "notifier")), allow: wi},
		"slack notifier with its secret":                     {req: create(reconciler, "apps", notifier("slack", ""))},
		"platform namespace decryption with controller keys": {req: create(reconciler, "flux-system", decrypt(kustomizev1.Decryption{Provider: "sops"}))},
	} {
		t.Run(name, func(t *testing.T) {
			errs := Evaluate(tc.req, testTenants.allowing(tc.allow))
			if got := ruleIDs(errs); got != tc.want {
				t.Fatalf("rules = %q, want %q: %v", got, tc.want, errs)
			}
			for _, e := range errs {
				if !strings.Contains(e.Detail, "allowed") && !strings.Contains(e.Detail, "supported values") {
					t.Errorf("message names no allowed values: %v", e)
				}
			}
		})
	}
}
