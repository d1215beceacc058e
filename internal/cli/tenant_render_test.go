package cli_test

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render/rendertest"
)

// TestRenderIsWhatTheControllerApplies creates a self-service Tenant with
// the CLI, lets it create a namespace, and compares what the controller
// made with `tenant create --render --adopted` of the same flags: the same
// objects, each holding every rendered field and label.
func TestRenderIsWhatTheControllerApplies(t *testing.T) {
	t.Parallel()
	startLandlord(t)
	flags := []string{"tenant", "create", "rend",
		"--namespace", "rend-apps,rend-jobs",
		"--git-url", "https://git.example.com/org/rend", "--branch", "main", "--path", "./staging",
		"--owner", "User:rend-lead", "--owner", "Group:rend-team",
		"--self-service-prefix", "rend-", "--max-namespaces", "2",
		"--quota", "pods=10", "--var", "DOMAIN=rend.example.com",
	}
	if _, stderr, err := landlordLive(flags...); err != nil {
		t.Fatalf("tenant create: %v\n%s", err, stderr)
	}
	t.Cleanup(func() { _, _, _ = landlordLive("tenant", "delete", "rend") })
	preview := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "rend-preview", Labels: map[string]string{v1alpha1.TenantLabel: "rend"}}}
	if err := k8s.Create(ctx, preview); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "rend", func(tenant *v1alpha1.Tenant) bool {
		return slices.ContainsFunc(tenant.Status.Namespaces, func(ns v1alpha1.NamespaceStatus) bool {
			return ns.Name == "rend-preview" && ns.Origin == v1alpha1.NamespaceOriginSelfService && ns.Ready
		}) && tenant.Status.ObservedGeneration == tenant.Generation
	})

	stdout, stderr, err := landlordLive(append(flags, "--render", "--adopted", "rend-preview")...)
	if err != nil {
		t.Fatalf("tenant create --render: %v\n%s", err, stderr)
	}
	rendered := map[string]*unstructured.Unstructured{}
	for _, u := range decodeStream(t, stdout) {
		rendered[rendertest.Key(u)] = u
	}
	live, err := rendertest.Live(ctx, k8s, client.MatchingLabels{v1alpha1.TenantLabel: "rend", v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue})
	if err != nil {
		t.Fatal(err)
	}

	for key := range rendered {
		if live[key] == nil {
			t.Errorf("%s is rendered but the controller did not make it", key)
		}
	}
	for key := range live {
		if rendered[key] == nil {
			t.Errorf("%s was made by the controller but is not rendered", key)
		}
	}
	for key, want := range rendered {
		if got := live[key]; got != nil {
			if diff := rendertest.NotHolding(want, got); diff != "" {
				t.Errorf("%s: %s", key, diff)
			}
		}
	}
	bindings := 0
	for key := range rendered {
		if strings.HasPrefix(key, "RoleBinding/rend-preview/") {
			bindings++
		}
	}
	if bindings == 0 {
		t.Error("the render holds no binding in the adopted namespace")
	}
}
