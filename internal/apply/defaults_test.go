package apply_test

import (
	"strings"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/apply"
)

// TestNormalizedHoldsTheDefaults checks that what Landlord sends of a kind
// it renders carries what the kind's CRD defaults, as a create of it ends
// up holding, and nothing the API server would not set.
func TestNormalizedHoldsTheDefaults(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "a", Namespace: "apps"}
	cases := map[string]struct {
		obj  client.Object
		want map[string]any // field path → value, nil for absent
	}{
		"GitRepository's timeout": {
			obj: &sourcev1.GitRepository{TypeMeta: metav1.TypeMeta{APIVersion: sourcev1.GroupVersion.String(), Kind: sourcev1.GitRepositoryKind}, ObjectMeta: meta,
				Spec: sourcev1.GitRepositorySpec{URL: "https://git.example.com/a", Interval: metav1.Duration{Duration: 60e9}}},
			want: map[string]any{"spec.timeout": "60s", "spec.verify": nil, "status": nil},
		},
		"a timeout set is kept": {
			obj: &sourcev1.GitRepository{TypeMeta: metav1.TypeMeta{APIVersion: sourcev1.GroupVersion.String(), Kind: sourcev1.GitRepositoryKind}, ObjectMeta: meta,
				Spec: sourcev1.GitRepositorySpec{URL: "https://git.example.com/a", Timeout: &metav1.Duration{Duration: 5e9}}},
			want: map[string]any{"spec.timeout": "5s"},
		},
		"Kustomization's force and substitutions": {
			obj: &kustomizev1.Kustomization{TypeMeta: metav1.TypeMeta{APIVersion: kustomizev1.GroupVersion.String(), Kind: kustomizev1.KustomizationKind}, ObjectMeta: meta,
				Spec: kustomizev1.KustomizationSpec{Prune: true, SourceRef: kustomizev1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: "a"},
					PostBuild: &kustomizev1.PostBuild{SubstituteFrom: []kustomizev1.SubstituteReference{{Kind: "ConfigMap", Name: "vars"}}}}},
			want: map[string]any{"spec.force": false, "status": nil},
		},
		"a built-in kind as it is": {
			obj:  &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta},
			want: map[string]any{"data": nil},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u, err := apply.Normalized(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			for path, want := range tc.want {
				got, found, err := unstructured.NestedFieldNoCopy(u.Object, strings.Split(path, ".")...)
				if err != nil || found != (want != nil) || found && got != want {
					t.Errorf("%s: %v (found %v), want %v", path, got, found, want)
				}
			}
		})
	}
	u, err := apply.Normalized(cases["Kustomization's force and substitutions"].obj)
	if err != nil {
		t.Fatal(err)
	}
	from, _, _ := unstructured.NestedSlice(u.Object, "spec", "postBuild", "substituteFrom")
	if len(from) != 1 || from[0].(map[string]any)["optional"] != false {
		t.Errorf("substituteFrom: %v, want optional false", from)
	}
}
