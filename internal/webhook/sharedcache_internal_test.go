package webhook

import (
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	networkingv1 "k8s.io/api/networking/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestSharedCacheWithoutGatewayAPI: the guard's cache builds where the
// API server serves no Gateway API kind (landlord install installs none),
// and still strips a claiming kind's objects to their hostnames once one
// is served.
func TestSharedCacheWithoutGatewayAPI(t *testing.T) {
	mapper := meta.NewDefaultRESTMapper(nil)
	for gvk, scope := range map[schema.GroupVersionKind]meta.RESTScope{
		networkingv1.SchemeGroupVersion.WithKind("Ingress"):                              meta.RESTScopeNamespace,
		networkingv1.SchemeGroupVersion.WithKind("IngressClass"):                         meta.RESTScopeRoot,
		schedulingv1.SchemeGroupVersion.WithKind("PriorityClass"):                        meta.RESTScopeRoot,
		storagev1.SchemeGroupVersion.WithKind("StorageClass"):                            meta.RESTScopeRoot,
		admissionregistrationv1.SchemeGroupVersion.WithKind("ValidatingAdmissionPolicy"): meta.RESTScopeRoot,
	} {
		mapper.Add(gvk, scope)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := gatewayv1.Install(scheme); err != nil {
		t.Fatal(err)
	}
	if _, err := cache.New(&rest.Config{Host: "https://127.0.0.1:1"}, sharedCacheOptions(scheme, mapper)); err != nil {
		t.Fatalf("the shared cache without the Gateway API: %v", err)
	}
	route := &gatewayv1.HTTPRoute{Spec: gatewayv1.HTTPRouteSpec{Hostnames: []gatewayv1.Hostname{"web.example.com"}, Rules: []gatewayv1.HTTPRouteRule{{}}}}
	stripped, err := stripClaims(route)
	if err != nil {
		t.Fatal(err)
	}
	if got := stripped.(*gatewayv1.HTTPRoute); len(got.Spec.Rules) != 0 || len(got.Spec.Hostnames) != 1 {
		t.Errorf("stripped route %+v, want its hostnames alone", got.Spec)
	}
}
