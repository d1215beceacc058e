package policy

import (
	"testing"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestDefault(t *testing.T) {
	noSA := func(k *kustomizev1.Kustomization) { k.Spec.ServiceAccountName = "" }
	set := func(name string) []jsonpatch.Operation {
		return []jsonpatch.Operation{{Operation: "add", Path: "/spec/serviceAccountName", Value: name}}
	}
	for name, tc := range map[string]struct {
		req  Request
		want []jsonpatch.Operation
	}{
		"kustomization without account": {req: create(reconciler, "apps", newKustomization(noSA)), want: set("dev-team")},
		"helmrelease without account": {req: create(opsReconciler, "ops", newHelmRelease(func(h *helmv2.HelmRelease) {
			h.Namespace, h.Spec.ServiceAccountName = "ops", ""
		})), want: set("flux")},
		"update without account": {req: update(owner, "apps", newKustomization(noSA), newKustomization(noSA)), want: set("dev-team")},
		"account set":            {req: create(reconciler, "apps", newKustomization())},
		"platform namespace":     {req: create(masters, "flux-system", newKustomization(noSA))},
		"delete":                 {req: remove(reconciler, "apps", newKustomization(noSA))},
		"other kind":             {req: create(reconciler, "apps", newDeployment("", false))},
		"unknown kind":           {req: create(reconciler, "apps", runtime.Object(nil))},
	} {
		t.Run(name, func(t *testing.T) {
			got := Default(tc.req, testTenants)
			if len(got) != len(tc.want) || len(got) == 1 && got[0] != tc.want[0] {
				t.Fatalf("Default = %v, want %v", got, tc.want)
			}
		})
	}
}
