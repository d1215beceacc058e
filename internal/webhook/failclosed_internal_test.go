package webhook

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// TestUnreadableTenancyIsRefused: when the guard cannot read whether a
// namespace or tenant exists (the cache misses and the API server does not
// answer), a tenant's self-service namespace create is refused, naming
// what could not be read, never allowed as if nothing held the name; the
// mutating webhook refuses too rather than skip its defaults.
func TestUnreadableTenancyIsRefused(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Nothing listens on port 1: every read fails, as with the API server away.
	away := &rest.Config{Host: "https://127.0.0.1:1"}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	// A fixed mapper: discovery would fail before any read does.
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(corev1.SchemeGroupVersion.WithKind("Namespace"), meta.RESTScopeRoot)
	mapper.Add(v1alpha1.GroupVersion.WithKind("Tenant"), meta.RESTScopeRoot)
	c, err := cache.New(away, cache.Options{Scheme: scheme, Mapper: mapper})
	if err != nil {
		t.Fatal(err)
	}
	live, err := client.New(away, client.Options{Scheme: scheme, Mapper: mapper})
	if err != nil {
		t.Fatal(err)
	}
	index, err := NewIndex(ctx, c, live)
	if err != nil {
		t.Fatal(err)
	}
	v := &validator{index: index, shared: &sharedCache{c: c}, creates: newSelfServiceCreates()}
	m := &mutator{index: index}

	ns := &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: "team-a-extra", Labels: map[string]string{v1alpha1.TenantLabel: "team-a"}},
	}
	raw, err := json.Marshal(ns)
	if err != nil {
		t.Fatal(err)
	}
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Create,
		Kind:      metav1.GroupVersionKind{Version: "v1", Kind: "Namespace"},
		Resource:  metav1.GroupVersionResource{Version: "v1", Resource: "namespaces"},
		Name:      ns.Name,
		Object:    runtime.RawExtension{Raw: raw},
		UserInfo:  authenticationv1.UserInfo{Username: "alice", Groups: []string{"team-a-owners", "system:authenticated"}},
	}}
	// The reconciler default depends on whose namespace it is.
	ks := &kustomizev1.Kustomization{
		TypeMeta:   metav1.TypeMeta{APIVersion: kustomizev1.GroupVersion.String(), Kind: kustomizev1.KustomizationKind},
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a-apps", Name: "apps"},
		Spec:       kustomizev1.KustomizationSpec{SourceRef: kustomizev1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "apps"}},
	}
	rawKs, err := json.Marshal(ks)
	if err != nil {
		t.Fatal(err)
	}
	defaulted := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Create,
		Kind:      metav1.GroupVersionKind{Group: kustomizev1.GroupVersion.Group, Version: kustomizev1.GroupVersion.Version, Kind: kustomizev1.KustomizationKind},
		Namespace: ks.Namespace,
		Name:      ks.Name,
		Object:    runtime.RawExtension{Raw: rawKs},
		UserInfo:  req.UserInfo,
	}}
	for name, h := range map[string]struct {
		handler admission.Handler
		req     admission.Request
	}{"validating": {v, req}, "mutating": {m, defaulted}} {
		resp := h.handler.Handle(ctx, h.req)
		msg := ""
		if resp.Result != nil {
			msg = resp.Result.Message
		}
		t.Logf("%s: allowed %v, %d: %s", name, resp.Allowed, resp.Result.Code, msg)
		if resp.Allowed {
			t.Errorf("%s webhook allowed a create it could not judge", name)
			continue
		}
		if resp.Result.Code != http.StatusServiceUnavailable || !strings.Contains(msg, "could not judge") || !strings.Contains(msg, "reading ") {
			t.Errorf("%s webhook: %d %q, want 503 naming what could not be read", name, resp.Result.Code, msg)
		}
	}
}
