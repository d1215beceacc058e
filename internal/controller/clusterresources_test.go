package controller_test

import (
	"fmt"
	"strings"
	"testing"

	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// TestApprovedClusterResources: the platform approves one StorageClass
// and one CRD for a tenant by name; its reconciler may write exactly
// those, the CRD without a conversion webhook, and nothing else
// cluster-scoped. Another tenant's reconciler may write none of them.
func TestApprovedClusterResources(t *testing.T) {
	t.Parallel()
	tenant := newTenant("clres", "clres-a")
	tenant.Spec.ClusterResources = []v1alpha1.ClusterResource{
		{APIGroup: "storage.k8s.io", Kind: "StorageClass", Names: []string{"clres-fast"}},
		{APIGroup: "apiextensions.k8s.io", Kind: "CustomResourceDefinition", Names: []string{"widgets.clres.example.com"}},
	}
	other := newTenant("clres-other", "clres-other-a")
	for _, tn := range []*v1alpha1.Tenant{tenant, other} {
		create(t, tn)
		t.Cleanup(func() { deleteTenant(t, tn.Name) })
		waitReady(t, tn.Name)
	}
	reconciler := impersonate("system:serviceaccount:clres-a:clres")
	stranger := impersonate("system:serviceaccount:clres-other-a:clres-other")

	class := func(name string) *storagev1.StorageClass {
		return &storagev1.StorageClass{
			TypeMeta:    metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"},
			ObjectMeta:  metav1.ObjectMeta{Name: name},
			Provisioner: "example.com/fast",
		}
	}
	// Flux applies server-side: RBAC authorizes that create by name.
	apply := func(c client.Client, obj client.Object) error {
		return c.Patch(ctx, obj, client.Apply, client.FieldOwner("kustomize-controller"), client.ForceOwnership)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, class("clres-fast")) })
	if err := apply(stranger, class("clres-fast")); !apierrors.IsForbidden(err) {
		t.Errorf("another tenant's reconciler created the approved StorageClass: err = %v", err)
	}
	fast := class("clres-fast")
	if err := apply(reconciler, fast); err != nil {
		t.Fatalf("the approved StorageClass: %v", err)
	}
	fast = class("clres-fast")
	fast.Labels = map[string]string{"tier": "fast"}
	if err := apply(reconciler, fast); err != nil {
		t.Errorf("updating the approved StorageClass: %v", err)
	}
	if err := apply(reconciler, class("clres-slow")); !apierrors.IsForbidden(err) {
		t.Errorf("a StorageClass not approved: err = %v, want forbidden", err)
	}
	if err := reconciler.Delete(ctx, fast); err != nil {
		t.Errorf("deleting the approved StorageClass: %v", err)
	}

	crd := func(strategy apiextensionsv1.ConversionStrategyType) *apiextensionsv1.CustomResourceDefinition {
		c := &apiextensionsv1.CustomResourceDefinition{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
			ObjectMeta: metav1.ObjectMeta{Name: "widgets.clres.example.com"},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: "clres.example.com",
				Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
				Scope: apiextensionsv1.NamespaceScoped,
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
					Name: "v1", Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}},
				}},
				Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: strategy},
			},
		}
		if strategy == apiextensionsv1.WebhookConverter {
			c.Spec.Conversion.Webhook = &apiextensionsv1.WebhookConversion{
				ConversionReviewVersions: []string{"v1"},
				ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: ptr.To("https://tenant.example/convert")},
			}
		}
		return c
	}
	err := reconciler.Patch(ctx, crd(apiextensionsv1.WebhookConverter), client.Apply, client.FieldOwner("kustomize-controller"), client.DryRunAll)
	if err == nil || !strings.Contains(err.Error(), "LL014") || !strings.Contains(err.Error(), "conversion webhook") {
		t.Errorf("an approved CRD with a conversion webhook: err = %v, want LL014", err)
	}
	if err := reconciler.Patch(ctx, crd(apiextensionsv1.NoneConverter), client.Apply, client.FieldOwner("kustomize-controller"), client.DryRunAll); err != nil {
		t.Errorf("the approved CRD without conversion webhook: %v", err)
	}

	// A kind no API server serves leaves the tenant waiting, saying which.
	updateTenant(t, tenant.Name, func(t *v1alpha1.Tenant) {
		t.Spec.ClusterResources = append(t.Spec.ClusterResources, v1alpha1.ClusterResource{APIGroup: "clres.example.com", Kind: "Gadget", Names: []string{"g"}})
	})
	eventually(t, "the unserved kind reported", func() error {
		c, err := condition(tenant.Name, v1alpha1.ReadyCondition)
		if err != nil {
			return err
		}
		if c.Reason != "ClusterResourceNotServed" || !strings.Contains(c.Message, "Gadget.clres.example.com") {
			return fmt.Errorf("Ready %s %s: %s", c.Status, c.Reason, c.Message)
		}
		return nil
	})
	// Approvals that hand out the cluster are refused at admission.
	for _, cr := range []v1alpha1.ClusterResource{
		{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding", Names: []string{"mine"}},
		{APIGroup: "", Kind: "PersistentVolume", Names: []string{"host"}},
		// How other tenants' pods run, and their requests are served.
		{APIGroup: "node.k8s.io", Kind: "RuntimeClass", Names: []string{"sandbox"}},
		{APIGroup: "flowcontrol.apiserver.k8s.io", Kind: "FlowSchema", Names: []string{"mine-first"}},
	} {
		refused := newTenant("clres-refused", "clres-refused-a")
		refused.Spec.ClusterResources = []v1alpha1.ClusterResource{cr}
		err := k8s.Create(ctx, refused, client.DryRunAll)
		if err == nil || !strings.Contains(err.Error(), "spec.clusterResources must not approve") {
			t.Errorf("approving %s: err = %v", cr.Kind, err)
		}
	}
}
