package lint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/apivalidation"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// validTenantYAML passes every rule; each case of the test below breaks
// one or several.
const validTenantYAML = `apiVersion: landlord.dev/v1alpha1
kind: Tenant
metadata:
  name: valid
spec:
  namespaces: [{name: valid-apps}, {name: valid-jobs}]
  selfService: {prefix: valid-, maxNamespaces: 3}
  owners: [{kind: Group, name: valid}, {kind: ServiceAccount, name: ci, namespace: ci}]
  sources:
  - {name: apps, git: {url: "https://git.example.com/valid", ref: {branch: main}}, targetNamespace: valid-jobs}
  - {name: base, template: {url: "ssh://git@git.example.com/platform/base"}}
  - {name: late, git: {url: "https://git.example.com/valid"}, dependsOn: [apps], targetNamespace: valid-extra}
  variables: {CLUSTER_ENV: staging}
`

// TestCustomResourceValidationMatchesTheAPIServer sends Tenants and Flux
// Kustomizations to a real kube-apiserver serving the CRDs of config/, as
// server-side dry runs with strict field validation, and checks that lint
// refuses exactly what the apiserver refuses, naming the same fields.
func TestCustomResourceValidationMatchesTheAPIServer(t *testing.T) {
	ctx := context.Background()
	env, err := testenv.Start(ctx, testenv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	c, err := client.New(env.Config, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	if err := install.Prerequisites(ctx, c); err != nil {
		t.Fatal(err)
	}
	s, err := apivalidation.NewSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(spec map[string]any){
		"valid":                  func(map[string]any) {},
		"no namespaces":          func(s map[string]any) { delete(s, "namespaces"); delete(s, "selfService"); delete(s, "sources") },
		"sources, no namespaces": func(s map[string]any) { delete(s, "namespaces") },
		"platform namespace":     func(s map[string]any) { s["namespaces"] = []any{map[string]any{"name": "kube-system"}} },
		"templates namespace":    func(s map[string]any) { s["namespaces"] = []any{map[string]any{"name": "landlord-templates"}} },
		"namespace not a label":  func(s map[string]any) { s["namespaces"] = []any{map[string]any{"name": "Apps"}} },
		"duplicate namespace": func(s map[string]any) {
			s["namespaces"] = []any{map[string]any{"name": "a"}, map[string]any{"name": "a"}}
		},
		"git and template":         func(s map[string]any) { src(s, 0)["template"] = src(s, 0)["git"] },
		"neither git nor template": func(s map[string]any) { delete(src(s, 0), "git") },
		"two refs": func(s map[string]any) {
			src(s, 0)["git"].(map[string]any)["ref"] = map[string]any{"branch": "main", "tag": "v1"}
		},
		"url scheme":              func(s map[string]any) { src(s, 0)["git"].(map[string]any)["url"] = "file:///etc" },
		"path escaping":           func(s map[string]any) { src(s, 0)["path"] = "../other" },
		"foreign target":          func(s map[string]any) { src(s, 0)["targetNamespace"] = "default" },
		"unknown dependency":      func(s map[string]any) { src(s, 2)["dependsOn"] = []any{"ghost"} },
		"template dependency":     func(s map[string]any) { src(s, 2)["dependsOn"] = []any{"apps", "base"} },
		"decryption without keys": func(s map[string]any) { src(s, 0)["decryption"] = map[string]any{"provider": "sops"} },
		"duplicate source":        func(s map[string]any) { src(s, 2)["name"] = "apps"; delete(src(s, 2), "dependsOn") },
		"variable name":           func(s map[string]any) { s["variables"] = map[string]any{"1BAD": "x"} },
		"built-in variable":       func(s map[string]any) { s["variables"] = map[string]any{"TENANT_NAME": "x"} },
		"built-in namespace var":  func(s map[string]any) { s["variables"] = map[string]any{"TENANT_NAMESPACE": "x"} },
		"cluster-admin role":      func(s map[string]any) { s["role"] = "cluster-admin" },
		"cluster-wide admin":      func(s map[string]any) { s["extraClusterRoles"] = []any{"view", "cluster-admin"} },
		"owner kind":              func(s map[string]any) { s["owners"] = []any{map[string]any{"kind": "Robot", "name": "r"}} },
		"owner without namespace": func(s map[string]any) { s["owners"] = []any{map[string]any{"kind": "ServiceAccount", "name": "ci"}} },
		"pod security":            func(s map[string]any) { s["podSecurity"] = "lax" },
		"self-service limit": func(s map[string]any) {
			s["selfService"] = map[string]any{"prefix": "valid-", "maxNamespaces": int64(0)}
		},
		"interval":               func(s map[string]any) { src(s, 0)["interval"] = "soon" },
		"wrong type":             func(s map[string]any) { s["suspend"] = "yes" },
		"unknown field":          func(s map[string]any) { s["tennant"] = "x" },
		"unknown nested field":   func(s map[string]any) { src(s, 0)["pth"] = "./x" },
		"schema and rule errors": func(s map[string]any) { s["podSecurity"] = "lax"; s["role"] = "cluster-admin" },
	} {
		t.Run(name, func(t *testing.T) {
			compareWithAPIServer(t, c, s, validTenantYAML, func(obj map[string]any) { mutate(obj["spec"].(map[string]any)) })
		})
	}
	for name, mutate := range map[string]func(spec map[string]any){
		"valid Kustomization":   func(map[string]any) {},
		"no interval":           func(s map[string]any) { delete(s, "interval") },
		"interval pattern":      func(s map[string]any) { s["interval"] = "often" },
		"source kind":           func(s map[string]any) { s["sourceRef"].(map[string]any)["kind"] = "Bucket2" },
		"unknown field":         func(s map[string]any) { s["prunee"] = true },
		"deletion policy value": func(s map[string]any) { s["deletionPolicy"] = "Sometimes" },
	} {
		t.Run(name, func(t *testing.T) {
			compareWithAPIServer(t, c, s, validKustomizationYAML, func(obj map[string]any) { mutate(obj["spec"].(map[string]any)) })
		})
	}
}

// validKustomizationYAML is a Flux Kustomization in a namespace that
// exists.
const validKustomizationYAML = `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: default
spec:
  interval: 10m
  path: ./apps
  prune: true
  sourceRef: {kind: GitRepository, name: apps}
`

// compareWithAPIServer dry-runs the mutated base on the apiserver and
// checks that lint refuses the same fields.
func compareWithAPIServer(t *testing.T, c client.Client, s *apivalidation.Schemas, base string, mutate func(map[string]any)) {
	t.Helper()
	ctx := context.Background()
	obj := map[string]any{}
	if err := yaml.Unmarshal([]byte(base), &obj); err != nil {
		t.Fatal(err)
	}
	mutate(obj)
	u := &unstructured.Unstructured{Object: obj}
	apiErr := c.Create(ctx, u.DeepCopy(), client.DryRunAll, client.FieldValidation(metav1.FieldValidationStrict))
	want := apiserverFields(t, apiErr)

	k, err := s.Lookup(u.GroupVersionKind())
	if err != nil || k == nil {
		t.Fatalf("no schema for %s: %v", u.GroupVersionKind(), err)
	}
	var got []string
	for _, p := range problemsOf(k.Validate(ctx, normalized(t, obj), u.GetNamespace())) {
		got = append(got, p.field)
	}
	slices.Sort(got)
	got = slices.Compact(got)
	if !slices.Equal(got, want) {
		t.Errorf("lint refuses fields %q, the apiserver %q (%v)", got, want, apiErr)
	}

	// What decodes into a Tenant, render, fleet and the CLI judge with
	// ValidateTenant: it must refuse the same fields.
	tenant := &v1alpha1.Tenant{}
	if u.GroupVersionKind() != tenantKind || decodeStrict(obj, tenant) != nil {
		return
	}
	var typed []string
	for _, err := range apivalidation.ValidateTenant(tenant) {
		typed = append(typed, strings.TrimPrefix(err.Field, "<nil>"))
	}
	slices.Sort(typed)
	typed = slices.Compact(typed)
	if !slices.Equal(typed, want) {
		t.Errorf("ValidateTenant refuses fields %q, the apiserver %q (%v)", typed, want, apiErr)
	}
}

// decodeStrict decodes obj into out, refusing unknown fields.
func decodeStrict(obj map[string]any, out any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(out)
}

// src is the i-th source of a Tenant spec.
func src(spec map[string]any, i int) map[string]any {
	return spec["sources"].([]any)[i].(map[string]any)
}

// normalized is obj as lint reads it from a build: JSON numbers.
func normalized(t *testing.T, obj map[string]any) map[string]any {
	t.Helper()
	data, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	o := &object{}
	if err := yaml.Unmarshal(data, &o.obj); err != nil {
		t.Fatal(err)
	}
	return o.obj
}

// apiserverFields are the fields an apiserver error names, sorted: the
// causes of an Invalid error, the unknown fields of a strict decoding one.
func apiserverFields(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("not an API error: %v", err)
	}
	var fields []string
	if details := status.Status().Details; details != nil {
		for _, c := range details.Causes {
			// The object itself is field "<nil>" there, "" in lint.
			fields = append(fields, strings.TrimPrefix(c.Field, "<nil>"))
		}
	}
	// Strict field validation: `strict decoding error: unknown field "spec.x", unknown field ...`.
	for _, part := range strings.Split(status.Status().Message, `unknown field "`)[1:] {
		f, _, _ := strings.Cut(part, `"`)
		fields = append(fields, f)
	}
	slices.Sort(fields)
	return slices.Compact(fields)
}
