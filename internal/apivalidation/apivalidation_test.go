package apivalidation_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/landlord-dev/landlord/internal/apivalidation"
)

// TestBuiltinSchemasLoad checks the embedded schemas cover what tenants
// write and know which kinds are namespaced.
func TestBuiltinSchemasLoad(t *testing.T) {
	s, err := apivalidation.NewSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for gvk, namespaced := range map[schema.GroupVersionKind]bool{
		{Version: "v1", Kind: "Service"}:                                                 true,
		{Version: "v1", Kind: "Namespace"}:                                               false,
		{Group: "apps", Version: "v1", Kind: "Deployment"}:                               true,
		{Group: "batch", Version: "v1", Kind: "CronJob"}:                                 true,
		{Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy"}:               true,
		{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"}:  false,
		{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"}:                    true,
		{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}:           true,
		{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}: false,
		{Group: "landlord.dev", Version: "v1alpha1", Kind: "Tenant"}:                     false,
		{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Kind: "Kustomization"}:     true,
		{Group: "helm.toolkit.fluxcd.io", Version: "v2", Kind: "HelmRelease"}:            true,
		{Group: "notification.toolkit.fluxcd.io", Version: "v1beta3", Kind: "Alert"}:     true,
		{Group: "image.toolkit.fluxcd.io", Version: "v1", Kind: "ImageUpdateAutomation"}: true,
		{Group: "source.toolkit.fluxcd.io", Version: "v1", Kind: "GitRepository"}:        true,
	} {
		k, err := s.Lookup(gvk)
		if err != nil || k == nil {
			t.Errorf("%s: no schema (%v)", gvk, err)
			continue
		}
		if k.Namespaced() != namespaced {
			t.Errorf("%s: namespaced = %v, want %v", gvk, k.Namespaced(), namespaced)
		}
	}
	for _, gvk := range []schema.GroupVersionKind{{Version: "v1", Kind: "WatchEvent"}, {Group: "apps", Version: "v1beta1", Kind: "Deployment"}} {
		if k, _ := s.Lookup(gvk); k != nil {
			t.Errorf("%s: has a schema, want none", gvk)
		}
	}
}
