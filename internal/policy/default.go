package policy

import (
	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
)

// Default returns the JSON patch operations of the mutating webhook: the
// serviceAccountName of a Kustomization or HelmRelease in a tenant namespace
// defaults to the tenant's reconciler, so that Flux never falls back to its
// controller's own default.
func Default(req Request, tenants Tenants) []jsonpatch.Operation {
	if req.Operation == admissionv1.Delete || req.Namespace == "" {
		return nil
	}
	var name string
	switch o := req.Object.(type) {
	case *kustomizev1.Kustomization:
		name = o.Spec.ServiceAccountName
	case *helmv2.HelmRelease:
		name = o.Spec.ServiceAccountName
	default:
		return nil
	}
	if name != "" {
		return nil
	}
	owner := tenants.ForNamespace(req.Namespace)
	if owner == nil {
		return nil
	}
	// Both kinds require spec, so /spec exists and "add" creates the field.
	return []jsonpatch.Operation{jsonpatch.NewOperation("add", "/spec/serviceAccountName", owner.ReconcilerName())}
}
