package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// TestOnlyLandlordsObjectsWakeOrFillTheController: a tenant label someone
// else wrote neither enqueues the named Tenant nor enters the cache;
// Landlord's own objects and any tenant-labelled Namespace do.
func TestOnlyLandlordsObjectsWakeOrFillTheController(t *testing.T) {
	managed := map[string]string{v1alpha1.TenantLabel: "victim", v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue}
	labelled := map[string]string{v1alpha1.TenantLabel: "victim"}
	for name, tc := range map[string]struct {
		obj       client.Object
		wakes     bool
		isCached  bool
		cacheKind client.Object
	}{
		"Landlord's config map":            {&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Labels: managed}}, true, true, &corev1.ConfigMap{}},
		"a config map labelled by someone": {&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Labels: labelled}}, false, false, &corev1.ConfigMap{}},
		"a self-service namespace":         {&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Labels: labelled}}, true, true, &corev1.Namespace{}},
		"an unlabelled config map":         {&corev1.ConfigMap{}, false, false, &corev1.ConfigMap{}},
		"Landlord's copy of a secret":      {&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Labels: managed}}, true, true, &corev1.Secret{}},
		"a tenant's secret":                {&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Labels: labelled}}, false, false, &corev1.Secret{}},
		"a secret of the platform":         {&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "landlord-system"}}, false, true, &corev1.Secret{}},
	} {
		if got := len(tenantOf(context.Background(), tc.obj)) == 1; got != tc.wakes {
			t.Errorf("%s: enqueues the tenant = %v, want %v", name, got, tc.wakes)
		}
		var selector *cache.ByObject
		for kind, by := range CacheByObject("landlord-system") {
			if fmt.Sprintf("%T", kind) == fmt.Sprintf("%T", tc.cacheKind) {
				selector = &by
			}
		}
		cached := selector != nil && cachedBy(*selector, tc.obj)
		if cached != tc.isCached {
			t.Errorf("%s: cached = %v, want %v", name, cached, tc.isCached)
		}
	}
	big := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"filler": strings.Repeat("x", 1<<20)}}}
	if out, _ := namespaceMetadata(big); len(out.(*corev1.Namespace).Annotations) != 0 {
		t.Error("a namespace's annotations are cached: a tenant could fill the controller's memory")
	}
}

// cachedBy reports whether a cache configured by by holds obj.
func cachedBy(by cache.ByObject, obj client.Object) bool {
	if config, ok := by.Namespaces[obj.GetNamespace()]; ok {
		return config.LabelSelector.Matches(labels.Set(obj.GetLabels()))
	}
	if config, ok := by.Namespaces[cache.AllNamespaces]; ok {
		return config.LabelSelector.Matches(labels.Set(obj.GetLabels()))
	}
	return by.Label == nil || by.Label.Matches(labels.Set(obj.GetLabels()))
}
