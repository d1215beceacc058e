package fluxoperator_test

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/landlord-dev/landlord/internal/fluxoperator"
	"github.com/landlord-dev/landlord/internal/lockdown"
)

func scaffold() *unstructured.Unstructured {
	return fluxoperator.Instance("flux-system", fluxoperator.Sync{URL: "ssh://git@example.com/fleet.git", Branch: "main", Path: "clusters/staging"})
}

// TestInstanceLocksDown derives the scaffold from the lockdown table and
// checks it back against the same table through the operator's settings:
// every controller the instance installs gets every flag.
func TestInstanceLocksDown(t *testing.T) {
	instance := scaffold()
	args, err := fluxoperator.Args(instance)
	if err != nil {
		t.Fatal(err)
	}
	if len(args) != 4 {
		t.Errorf("the core components are 4 controllers, got %d: %v", len(args), args)
	}
	for controller, a := range args {
		if m := lockdown.Missing(controller, a); len(m) > 0 {
			t.Errorf("%s lacks %v: %q", controller, m, a)
		}
	}
	// Today the operator's settings cover every flag: no patch needed.
	if p := fluxoperator.Patches(); len(p) > 0 {
		t.Errorf("patches for flags no setting covers: %+v", p)
	}
	components := []any{"source-controller", "kustomize-controller", "helm-controller", "notification-controller", "image-reflector-controller", "image-automation-controller"}
	if err := unstructured.SetNestedSlice(instance.Object, components, "spec", "components"); err != nil {
		t.Fatal(err)
	}
	missing, err := fluxoperator.Missing(instance)
	if err != nil || len(missing) > 0 {
		t.Errorf("with the image controllers: missing %v, %v", missing, err)
	}
}

// TestMissing is the audit's judgement of instances: an attack (a setting
// off, a patch undoing a flag) and a legitimate neighbour each.
func TestMissing(t *testing.T) {
	cases := map[string]struct {
		edit func(*unstructured.Unstructured)
		want map[string][]string
	}{
		"scaffold": {edit: func(*unstructured.Unstructured) {}},
		"no components listed: the core four": {edit: func(u *unstructured.Unstructured) {
			unstructured.RemoveNestedField(u.Object, "spec", "components")
		}},
		"a tenant default account of the platform's choice": {edit: func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, "flux-tenant", "spec", "cluster", "tenantDefaultServiceAccount")
		}},
		"a patch on another kind": {edit: func(u *unstructured.Unstructured) {
			patches(u, map[string]any{"patch": "- op: add\n  path: /spec/serviceAccountName\n  value: kustomize-controller\n", "target": map[string]any{"kind": "Kustomization"}})
		}},
		"a patch tuning concurrency": {edit: func(u *unstructured.Unstructured) {
			patches(u, map[string]any{"patch": "- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --concurrent=10\n", "target": map[string]any{"kind": "Deployment", "name": "(kustomize-controller|helm-controller)"}})
		}},
		"multitenant off": {
			edit: func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, false, "spec", "cluster", "multitenant")
			},
			want: map[string][]string{
				"kustomize-controller":    {"--no-cross-namespace-refs=true", "--no-remote-bases=true", "--default-service-account=default"},
				"helm-controller":         {"--no-cross-namespace-refs=true", "--default-service-account=default"},
				"notification-controller": {"--no-cross-namespace-refs=true"},
			},
		},
		"multitenant workload identity off": {
			edit: func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, false, "spec", "cluster", "multitenantWorkloadIdentity")
			},
			want: map[string][]string{
				"source-controller":       {"--default-service-account=default"},
				"kustomize-controller":    {"--default-decryption-service-account=default", "--default-kubeconfig-service-account=default"},
				"helm-controller":         {"--default-kubeconfig-service-account=default"},
				"notification-controller": {"--default-service-account=default"},
			},
		},
		"a patch turning cross-namespace references back on": {
			edit: func(u *unstructured.Unstructured) {
				patches(u, map[string]any{"patch": "- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --no-cross-namespace-refs=false\n", "target": map[string]any{"kind": "Deployment", "name": "kustomize-controller"}})
			},
			want: map[string][]string{"kustomize-controller": {"--no-cross-namespace-refs=true"}},
		},
		"a patch replacing the arguments": {
			edit: func(u *unstructured.Unstructured) {
				patches(u, map[string]any{"patch": "- op: replace\n  path: /spec/template/spec/containers/0/args\n  value: [--watch-all-namespaces=true]\n", "target": map[string]any{"kind": "Deployment", "name": "helm-.*"}})
			},
			want: map[string][]string{"helm-controller": {"--no-cross-namespace-refs=true", "--default-service-account=default",
				"--feature-gates=ObjectLevelWorkloadIdentity=true", "--default-kubeconfig-service-account=default"}},
		},
		"a strategic merge patch turning the gate off": {
			edit: func(u *unstructured.Unstructured) {
				patches(u, map[string]any{"patch": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: source-controller\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        args: [--feature-gates=ObjectLevelWorkloadIdentity=false]\n"})
			},
			want: map[string][]string{"source-controller": {"--feature-gates=ObjectLevelWorkloadIdentity=true", "--default-service-account=default"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := scaffold()
			tc.edit(u)
			got, err := fluxoperator.Missing(u)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 && len(tc.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("missing:\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

func patches(u *unstructured.Unstructured, p ...any) {
	old, _, _ := unstructured.NestedSlice(u.Object, "spec", "kustomize", "patches")
	_ = unstructured.SetNestedSlice(u.Object, append(old, p...), "spec", "kustomize", "patches")
}

// TestLock turns an instance's settings on, then finds nothing to change.
func TestLock(t *testing.T) {
	u := scaffold()
	for _, field := range fluxoperator.Settings() {
		unstructured.RemoveNestedField(u.Object, "spec", "cluster", field)
	}
	changed, err := fluxoperator.Lock(u)
	if err != nil {
		t.Fatal(err)
	}
	want := "spec.cluster.multitenant=true spec.cluster.objectLevelWorkloadIdentity=true spec.cluster.multitenantWorkloadIdentity=true"
	if got := strings.Join(changed, " "); got != want {
		t.Errorf("changed %q, want %q", got, want)
	}
	if missing, err := fluxoperator.Missing(u); err != nil || len(missing) > 0 {
		t.Errorf("after Lock: missing %v, %v", missing, err)
	}
	if changed, err := fluxoperator.Lock(u); err != nil || len(changed) > 0 {
		t.Errorf("a second Lock changed %v, %v", changed, err)
	}
}

// TestBrokenPatch names the field when a patch cannot be applied.
func TestBrokenPatch(t *testing.T) {
	u := scaffold()
	patches(u, map[string]any{"patch": "- op: remove\n  path: /spec/nothing\n", "target": map[string]any{"kind": "Deployment"}})
	_, err := fluxoperator.Missing(u)
	if err == nil || !strings.Contains(err.Error(), "FluxInstance flux-system/flux: spec.kustomize.patches") {
		t.Errorf("got %v", err)
	}
}
