package cli_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// renderedKinds are the kinds a Tenant's render holds.
var renderedKinds = []schema.GroupVersionKind{
	{Version: "v1", Kind: "Namespace"},
	{Version: "v1", Kind: "ServiceAccount"},
	{Version: "v1", Kind: "ConfigMap"},
	{Version: "v1", Kind: "ResourceQuota"},
	{Version: "v1", Kind: "LimitRange"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"},
	{Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy"},
	{Group: "source.toolkit.fluxcd.io", Version: "v1", Kind: "GitRepository"},
	{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Kind: "Kustomization"},
}

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
		rendered[objectKey(u)] = u
	}
	live := map[string]*unstructured.Unstructured{}
	for _, gvk := range renderedKinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := k8s.List(ctx, list, client.MatchingLabels{v1alpha1.TenantLabel: "rend", v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue}); err != nil {
			t.Fatal(err)
		}
		for i := range list.Items {
			live[objectKey(&list.Items[i])] = &list.Items[i]
		}
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
			if diff := notHolding(want, got); diff != "" {
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

func objectKey(u *unstructured.Unstructured) string {
	return fmt.Sprintf("%s/%s/%s", u.GetKind(), u.GetNamespace(), u.GetName())
}

// notHolding says which rendered field or label the live object lacks, or
// "". Binding subjects must match exactly: one more is one identity more.
func notHolding(want, got *unstructured.Unstructured) string {
	for k, v := range want.GetLabels() {
		if got.GetLabels()[k] != v {
			return fmt.Sprintf("label %s=%q, rendered %q", k, got.GetLabels()[k], v)
		}
	}
	for field, value := range want.Object {
		switch field {
		case "apiVersion", "kind", "metadata", "status":
			continue
		case "subjects":
			if !reflect.DeepEqual(value, got.Object[field]) {
				return fmt.Sprintf("subjects %v, rendered %v", got.Object[field], value)
			}
		}
		if !equality.Semantic.DeepDerivative(value, got.Object[field]) {
			return fmt.Sprintf("%s %v, rendered %v", field, got.Object[field], value)
		}
	}
	return ""
}
