package lint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/apivalidation"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
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
	env, err := localcluster.Start(ctx, localcluster.Options{})
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

// TestBuiltinValidationMatchesTheAPIServer sends objects of built-in kinds
// and of a CRD using every schema extension to a real kube-apiserver, as
// server-side dry runs with strict field validation, and checks that lint
// accepts exactly what the apiserver accepts: int-or-string fields given
// integers (a NetworkPolicy's port: 8080, as in Flux's
// gotk-components.yaml), quantities as numbers and their malformed
// neighbour, fields preserving unknown fields and embedded resources.
func TestBuiltinValidationMatchesTheAPIServer(t *testing.T) {
	ctx := context.Background()
	env, err := localcluster.Start(ctx, localcluster.Options{})
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
	s, err := apivalidation.NewSchemas()
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal([]byte(widgetCRDYAML), crd); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	if err := s.AddCRD(crd); err != nil {
		t.Fatal(err)
	}
	waitEstablished(t, c, crd.Name)
	for name, tc := range map[string]struct {
		yaml  string
		valid bool
	}{
		"network policy, integer and named ports": {valid: true, yaml: `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-webhooks, namespace: default}
spec:
  podSelector: {}
  policyTypes: [Ingress]
  ingress:
  - from: [{namespaceSelector: {}}]
    ports: [{port: 8080, protocol: TCP}, {port: http}]
`},
		"network policy, boolean port": {yaml: `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: default}
spec:
  podSelector: {}
  ingress: [{ports: [{port: true}]}]
`},
		"service, integer target port": {valid: true, yaml: `apiVersion: v1
kind: Service
metadata: {name: s, namespace: default}
spec:
  selector: {app: x}
  ports: [{name: http, port: 80, targetPort: 8080}, {name: metrics, port: 9090, targetPort: metrics}]
`},
		"deployment, surge, probe port, numeric quantities": {valid: true, yaml: `apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: default}
spec:
  selector: {matchLabels: {app: d}}
  strategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 25%}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers:
      - name: app
        image: ghcr.io/fluxcd/source-controller:v1.6.0
        ports: [{containerPort: 9090, name: http}]
        livenessProbe: {httpGet: {port: 9440, path: /healthz}}
        readinessProbe: {httpGet: {port: http, path: /}}
        resources: {limits: {cpu: 1, memory: 1Gi}, requests: {cpu: 0.05, memory: 64Mi, ephemeral-storage: 100}}
`},
		"disruption budget, integer": {valid: true, yaml: `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: b, namespace: default}
spec: {minAvailable: 1, selector: {matchLabels: {app: d}}}
`},
		"quota, integer counts": {valid: true, yaml: `apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: default}
spec: {hard: {pods: 10, requests.cpu: 2, limits.memory: 0.5Gi}}
`},
		"quota, malformed quantity": {yaml: `apiVersion: v1
kind: ResourceQuota
metadata: {name: q, namespace: default}
spec: {hard: {requests.cpu: 1x}}
`},
		"CRD, JSON defaults and examples": {valid: true, yaml: `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            default: {size: 1}
            example: {size: 2, extra: {any: [1, two]}}
            x-kubernetes-preserve-unknown-fields: true
            properties:
              size: {type: integer, default: 1}
              port: {x-kubernetes-int-or-string: true, default: 8080}
`},
		"custom resource, every extension": {valid: true, yaml: `apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: default}
spec:
  port: 8080
  altPort: http
  values: {replicaCount: 2, nested: {any: [1, two]}}
  template: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {a: b}}
`},
		"custom resource, embedded resource without kind": {yaml: `apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: default}
spec:
  template: {apiVersion: v1, metadata: {name: c}}
`},
		"custom resource, port neither integer nor string": {yaml: `apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: default}
spec: {port: 1.5}
`},
	} {
		t.Run(name, func(t *testing.T) {
			obj := map[string]any{}
			if err := yaml.Unmarshal([]byte(tc.yaml), &obj); err != nil {
				t.Fatal(err)
			}
			u := &unstructured.Unstructured{Object: obj}
			apiErr := c.Create(ctx, u.DeepCopy(), client.DryRunAll, client.FieldValidation(metav1.FieldValidationStrict))
			if (apiErr == nil) != tc.valid {
				t.Fatalf("the apiserver says %v, want valid = %v", apiErr, tc.valid)
			}
			k, err := s.Lookup(u.GroupVersionKind())
			if err != nil || k == nil {
				t.Fatalf("no schema for %s: %v", u.GroupVersionKind(), err)
			}
			problems := problemsOf(k.Validate(ctx, normalized(t, obj), u.GetNamespace()))
			if (len(problems) == 0) != tc.valid {
				t.Fatalf("lint says %v, the apiserver %v", problems, apiErr)
			}
			// Each field the apiserver names, lint names too; a decoding
			// error names it as a Go field path, without indices.
			var got []string
			for _, p := range problems {
				got = append(got, p.field, withoutIndices(p.field))
			}
			for _, f := range refusedFields(t, apiErr) {
				if !slices.Contains(got, f) {
					t.Errorf("the apiserver refuses %s (%v), lint only %q", f, apiErr, got)
				}
			}
		})
	}
}

// widgetCRDYAML defines a kind with an int-or-string field, a field
// preserving unknown fields and an embedded resource.
const widgetCRDYAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              port: {x-kubernetes-int-or-string: true}
              altPort: {x-kubernetes-int-or-string: true}
              values: {type: object, x-kubernetes-preserve-unknown-fields: true}
              template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
`

// waitEstablished waits until the apiserver serves the CRD's kind.
func waitEstablished(t *testing.T, c client.Client, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err == nil {
			for _, cond := range crd.Status.Conditions {
				if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
					return
				}
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("CRD %s not established", name)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// goFieldPath finds the field a decoding error names: "Go struct field
// NetworkPolicyPort.spec.ingress.ports.port of type".
var goFieldPath = regexp.MustCompile(`Go struct field \w+\.([\w.]+) of type`)

// refusedFields are the fields an apiserver error names: those of an
// Invalid error, or the one a decoding error names.
func refusedFields(t *testing.T, err error) []string {
	t.Helper()
	if m := goFieldPath.FindStringSubmatch(fmt.Sprint(err)); m != nil {
		return []string{m[1]}
	}
	if err != nil && strings.Contains(err.Error(), "quantities must match") {
		return nil // the decoder names no field; the verdict is compared
	}
	var fields []string
	for _, f := range apiserverFields(t, err) {
		if f != "" {
			fields = append(fields, f)
		}
	}
	return fields
}

// withoutIndices is a field path without list indices, as Go's decoder
// names it.
func withoutIndices(f string) string {
	return regexp.MustCompile(`\[\d+\]`).ReplaceAllString(f, "")
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

// normalized is obj as lint reads it from a build (objectOf): integers
// as int64, other numbers as float64.
func normalized(t *testing.T, obj map[string]any) map[string]any {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := utiljson.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
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
