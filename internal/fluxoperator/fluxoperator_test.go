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
	for name, r := range args {
		if m := lockdown.Missing(r.Controller, r.Args); len(m) > 0 || r.Controller != name {
			t.Errorf("%s (%s) lacks %v: %q", name, r.Controller, m, r.Args)
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
		// err is the start of the error of an instance Landlord cannot
		// verify, after "FluxInstance flux-system/flux: ".
		err string
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
			err: "spec.kustomize.patches[0]: op replace at /spec/template/spec/containers/0/args: Landlord cannot tell",
		},
		"a patch replacing one argument by position": {
			edit: func(u *unstructured.Unstructured) {
				patches(u, map[string]any{"patch": "- op: replace\n  path: /spec/template/spec/containers/0/args/4\n  value: --enable-leader-election\n", "target": map[string]any{"kind": "Deployment", "name": "notification-controller"}})
			},
			err: "spec.kustomize.patches[0]: op replace at /spec/template/spec/containers/0/args/4",
		},
		"a patch ending the flags with the command": {
			edit: func(u *unstructured.Unstructured) {
				patches(u, map[string]any{"patch": "- op: add\n  path: /spec/template/spec/containers/0/command\n  value: [kustomize-controller, \"--\"]\n", "target": map[string]any{"kind": "Deployment", "name": "kustomize-controller"}})
			},
			err: "spec.kustomize.patches[0]: op add at /spec/template/spec/containers/0/command",
		},
		"a patch setting resources": {edit: func(u *unstructured.Unstructured) {
			patches(u, map[string]any{"patch": "- op: replace\n  path: /spec/template/spec/containers/0/resources\n  value: {limits: {memory: 1Gi}}\n", "target": map[string]any{"kind": "Deployment"}})
		}},
		"shards, locked down as their controllers": {edit: func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedStringSlice(u.Object, []string{"shard1"}, "spec", "sharding", "shards")
		}},
		"a patch on the shards turning cross-namespace references back on": {
			edit: func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedStringSlice(u.Object, []string{"shard1"}, "spec", "sharding", "shards")
				patches(u, map[string]any{"patch": "- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --no-cross-namespace-refs=false\n",
					"target": map[string]any{"kind": "Deployment", "annotationSelector": "sharding.fluxcd.io/role=shard"}})
			},
			want: map[string][]string{"kustomize-controller-shard1": {"--no-cross-namespace-refs=true"}, "helm-controller-shard1": {"--no-cross-namespace-refs=true"}},
		},
		"a patch in a tenant default account": {
			edit: func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, "default\n    - op: add\n      path: /spec/template/spec/containers/0/command\n      value: [x, \"--\"]", "spec", "cluster", "tenantDefaultServiceAccount")
			},
			err: `spec.cluster.tenantDefaultServiceAccount "default\n`,
		},
		"Flux before 2.7": {
			edit: func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, "2.6.x", "spec", "distribution", "version")
			},
			err: `spec.distribution.version "2.6.x": the lockdown through spec.cluster needs Flux 2.7 or later`,
		},
		"Flux 2.x": {edit: func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, "2.x", "spec", "distribution", "version")
		}},
		"Flux from an artifact": {
			edit: func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, "oci://registry.example.com/flux-manifests:v2.7", "spec", "distribution", "artifact")
			},
			err: "spec.distribution.artifact: Flux's manifests come from oci://registry.example.com/flux-manifests:v2.7",
		},
		"no kustomize-controller": {
			edit: func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedStringSlice(u.Object, []string{"source-controller", "helm-controller"}, "spec", "components")
			},
			err: "spec.components lists no kustomize-controller",
		},
		"reconciliation disabled": {
			edit: func(u *unstructured.Unstructured) {
				u.SetAnnotations(map[string]string{"fluxcd.controlplane.io/reconcile": "disabled"})
			},
			err: "reconciliation is disabled",
		},
		"a strategic merge patch turning the gate off": {
			edit: func(u *unstructured.Unstructured) {
				patches(u, map[string]any{"patch": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: source-controller\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        args: [--feature-gates=ObjectLevelWorkloadIdentity=false]\n"})
			},
			err: "spec.kustomize.patches[0]: a strategic merge patch setting args",
		},
		"a strategic merge patch setting an environment variable": {edit: func(u *unstructured.Unstructured) {
			patches(u, map[string]any{"patch": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: source-controller\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        env: [{name: HTTPS_PROXY, value: http://proxy:3128}]\n"})
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := scaffold()
			tc.edit(u)
			got, err := fluxoperator.Missing(u)
			if tc.err != "" {
				if prefix := "FluxInstance flux-system/flux: " + tc.err; err == nil || !strings.HasPrefix(err.Error(), prefix) {
					t.Errorf("got %v, %v\nwant an error starting %q", got, err, prefix)
				}
				return
			}
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
