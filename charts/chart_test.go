// Tests of charts/landlord: rendered with the Helm SDK, compared with what
// landlord install and config/default install, linted, and each render
// server-side applied to a real API server.
package charts_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/charts/chartrender"
	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/policy"
	"github.com/landlord-dev/landlord/internal/testenv"
)

const chartDir = "landlord"

var (
	env           *localcluster.Env
	k8s           client.Client
	restConfig    *rest.Config
	controllerBin string
)

func TestMain(m *testing.M) {
	os.Exit(testenv.RunMainWithController(m, localcluster.Options{}, func(e *localcluster.Env, bin string) (err error) {
		env, restConfig, controllerBin = e, e.Config, bin
		k8s, err = client.New(env.Config, client.Options{Scheme: manager.Scheme()})
		return err
	}))
}

// valueSets are the installs a platform team chooses most.
var valueSets = map[string]map[string]any{
	"defaults":     nil,
	"cert-manager": {"webhook": map[string]any{"certManager": map[string]any{"enabled": true}}},
	"3 replicas with PDB": {
		"replicas":            3,
		"podDisruptionBudget": map[string]any{"enabled": true},
		"priorityClassName":   "system-cluster-critical",
		"topologySpreadConstraints": []any{map[string]any{
			"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
			"labelSelector": map[string]any{"matchLabels": map[string]any{"app.kubernetes.io/name": "landlord-controller"}},
		}},
		"serviceMonitor": map[string]any{"enabled": true, "labels": map[string]any{"release": "prometheus"}},
	},
	"admin groups": {
		"platform":   map[string]any{"users": []any{"alice@example.com"}, "groups": []any{"platform-admins", "sre"}},
		"tenantRole": map[string]any{"extraRules": []any{map[string]any{"apiGroups": []any{"cert-manager.io"}, "resources": []any{"certificates"}, "verbs": []any{"get", "list", "watch", "create", "update", "patch", "delete"}}}},
		"image":      map[string]any{"digest": "sha256:" + strings.Repeat("ab", 32), "pullSecrets": []any{map[string]any{"name": "regcred"}}},
		"webhook":    map[string]any{"failurePolicy": "Ignore", "timeoutSeconds": 10},
	},
	"dashboard": {"dashboard": map[string]any{"enabled": true}},
	// What a platform team sets on the pods and the ServiceAccount.
	"pod conventions": {
		"podAnnotations": map[string]any{"example.com/backup": "skip"},
		"podLabels":      map[string]any{"team": "platform"},
		"extraArgs":      []any{"--concurrency=8"},
		"env":            []any{map[string]any{"name": "HTTPS_PROXY", "value": "http://proxy.example.com:3128"}},
		"serviceAccount": map[string]any{"annotations": map[string]any{"eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/landlord"}},
	},
	"monitoring": {
		"grafanaDashboard": map[string]any{"enabled": true, "namespace": "grafana", "labels": map[string]any{"team": "platform"}},
		"prometheusRule":   map[string]any{"enabled": true, "labels": map[string]any{"release": "prometheus"}},
	},
}

// render is what helm template --include-crds --namespace landlord-system
// prints, as objects: values checked against values.schema.json, the CRDs
// and every template.
func render(values map[string]any) ([]*unstructured.Unstructured, error) {
	return renderIn("landlord-system", values)
}

func renderIn(namespace string, values map[string]any) ([]*unstructured.Unstructured, error) {
	return chartrender.Render(chartDir, namespace, values)
}

// TestChartIsLandlordInstall holds the chart's defaults to what landlord
// install applies (config/default), object for object, but the Namespace,
// which Helm does not own.
func TestChartIsLandlordInstall(t *testing.T) {
	rendered, err := render(nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := config.Install()
	if err != nil {
		t.Fatal(err)
	}
	want = slices.DeleteFunc(want, func(u *unstructured.Unstructured) bool { return u.GetKind() == "Namespace" })
	compare(t, rendered, want)
}

// TestChartCertManagerIsTheComponent holds the cert-manager option to
// config/default with the config/webhook/cert-manager component.
func TestChartCertManagerIsTheComponent(t *testing.T) {
	rendered, err := render(valueSets["cert-manager"])
	if err != nil {
		t.Fatal(err)
	}
	configDir, err := filepath.Abs("../config")
	if err != nil {
		t.Fatal(err)
	}
	overlay := t.TempDir()
	// Kustomize takes bases by relative path only.
	relative, err := filepath.Rel(overlay, configDir)
	if err != nil {
		t.Fatal(err)
	}
	kustomization := "resources: [" + filepath.Join(relative, "default") + "]\ncomponents: [" + filepath.Join(relative, "webhook", "cert-manager") + "]\n"
	if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(kustomization), 0o644); err != nil {
		t.Fatal(err)
	}
	built, err := config.Build(filesys.MakeFsOnDisk(), overlay)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.DeleteFunc(built, func(u *unstructured.Unstructured) bool { return u.GetKind() == "Namespace" })
	compare(t, rendered, want)
}

// compare wants the same objects, in any order, each the same as JSON.
func compare(t *testing.T, got, want []*unstructured.Unstructured) {
	t.Helper()
	byKey := map[string]*unstructured.Unstructured{}
	for _, u := range got {
		byKey[key(u)] = u
	}
	for _, w := range want {
		g, ok := byKey[key(w)]
		if !ok {
			t.Errorf("the chart lacks %s", key(w))
			continue
		}
		delete(byKey, key(w))
		a, errA := json.Marshal(g.Object)
		b, errB := json.Marshal(w.Object)
		if err := errors.Join(errA, errB); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs:\n chart: %s\nconfig: %s", key(w), a, b)
		}
	}
	for k := range byKey {
		t.Errorf("the chart has %s, config/default does not", k)
	}
}

func equalJSON(t *testing.T, a, b *unstructured.Unstructured) bool {
	t.Helper()
	if a == nil || b == nil {
		return a == b
	}
	x, errX := json.Marshal(a.Object)
	y, errY := json.Marshal(b.Object)
	if err := errors.Join(errX, errY); err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}

func key(u *unstructured.Unstructured) string {
	return u.GetKind() + " " + u.GetNamespace() + "/" + u.GetName()
}

// TestChartValues renders each value set and checks what it is for.
func TestChartValues(t *testing.T) {
	for name, check := range map[string]func(t *testing.T, objects map[string]*unstructured.Unstructured){
		"cert-manager": func(t *testing.T, objects map[string]*unstructured.Unstructured) {
			for _, k := range []string{"Issuer landlord-system/landlord-selfsigned", "Certificate landlord-system/landlord-webhook"} {
				if objects[k] == nil {
					t.Errorf("no %s", k)
				}
			}
			for _, k := range []string{"ValidatingWebhookConfiguration /landlord", "MutatingWebhookConfiguration /landlord"} {
				if got := objects[k].GetAnnotations()["cert-manager.io/inject-ca-from"]; got != "landlord-system/landlord-webhook" {
					t.Errorf("%s: inject-ca-from %q", k, got)
				}
			}
			if args := containerArgs(t, objects); !slices.Contains(args, "--cert-manager") {
				t.Errorf("args %q lack --cert-manager", args)
			}
		},
		"3 replicas with PDB": func(t *testing.T, objects map[string]*unstructured.Unstructured) {
			deployment := objects["Deployment landlord-system/landlord-controller"]
			if replicas, _, _ := unstructured.NestedInt64(deployment.Object, "spec", "replicas"); replicas != 3 {
				t.Errorf("replicas %d, want 3", replicas)
			}
			pdb := objects["PodDisruptionBudget landlord-system/landlord-controller"]
			if pdb == nil {
				t.Fatal("no PodDisruptionBudget")
			}
			if got, _, _ := unstructured.NestedInt64(pdb.Object, "spec", "maxUnavailable"); got != 1 {
				t.Errorf("maxUnavailable %d, want 1", got)
			}
			if objects["ServiceMonitor landlord-system/landlord-controller"] == nil || objects["Service landlord-system/landlord-metrics"] == nil {
				t.Error("no ServiceMonitor and metrics Service")
			}
		},
		"admin groups": func(t *testing.T, objects map[string]*unstructured.Unstructured) {
			args := containerArgs(t, objects)
			for _, arg := range []string{"--platform-users=alice@example.com", "--platform-groups=platform-admins,sre", "--webhook-failure-policy=Ignore", "--webhook-timeout-seconds=10"} {
				if !slices.Contains(args, arg) {
					t.Errorf("args %q lack %s", args, arg)
				}
			}
			validating := objects["ValidatingWebhookConfiguration /landlord"]
			webhooks, _, _ := unstructured.NestedSlice(validating.Object, "webhooks")
			if guard := webhooks[0].(map[string]any); guard["failurePolicy"] != "Ignore" || guard["timeoutSeconds"] != int64(10) {
				t.Errorf("objects.landlord.dev failurePolicy %v, timeoutSeconds %v, want Ignore and 10", guard["failurePolicy"], guard["timeoutSeconds"])
			}
			conditions, _, _ := unstructured.NestedSlice(webhooks[2].(map[string]any), "matchConditions")
			// The chart templates what the controller writes with the same flags.
			platform := policy.Platform{Users: []string{"alice@example.com"}, Groups: []string{"platform-admins", "sre"}}
			want := map[string]string{"not-platform": "!(" + platform.CEL() + ")"}
			for _, c := range conditions {
				c := c.(map[string]any)
				if expr, ok := want[c["name"].(string)]; ok && c["expression"] == expr {
					delete(want, c["name"].(string))
				}
			}
			if len(want) > 0 {
				t.Errorf("namespaces.landlord.dev lacks the conditions %v: %v", want, conditions)
			}
			role := objects["ClusterRole /landlord-tenant-rules"]
			rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
			if last := rules[len(rules)-1].(map[string]any); !slices.Equal(toStrings(last["apiGroups"]), []string{"cert-manager.io"}) {
				t.Errorf("landlord-tenant-rules's last rule %v, want the extra one", last)
			}
			container := containers(t, objects)[0]
			if image := container["image"]; image != "ghcr.io/landlord-dev/landlord-controller@sha256:"+strings.Repeat("ab", 32) {
				t.Errorf("image %v, want the digest", image)
			}
		},
		"pod conventions": func(t *testing.T, objects map[string]*unstructured.Unstructured) {
			deployment := objects["Deployment landlord-system/landlord-controller"]
			pod, _, _ := unstructured.NestedMap(deployment.Object, "spec", "template", "metadata")
			if labels := fmt.Sprint(pod["labels"]); labels != "map[app.kubernetes.io/name:landlord-controller team:platform]" {
				t.Errorf("pod labels %s, want the selector's and team", labels)
			}
			if annotations := fmt.Sprint(pod["annotations"]); annotations != "map[example.com/backup:skip]" {
				t.Errorf("pod annotations %s", annotations)
			}
			if args := containerArgs(t, objects); args[len(args)-1] != "--concurrency=8" {
				t.Errorf("args %q do not end with --concurrency=8", args)
			}
			if env := envNames(containers(t, objects)[0]); !slices.Equal(env, []string{"POD_NAMESPACE", "GOMEMLIMIT", "HTTPS_PROXY"}) {
				t.Errorf("env %q, want the chart's then HTTPS_PROXY", env)
			}
			if got := objects["ServiceAccount landlord-system/landlord-controller"].GetAnnotations(); got["eks.amazonaws.com/role-arn"] != "arn:aws:iam::123456789012:role/landlord" {
				t.Errorf("ServiceAccount annotations %v", got)
			}
			// Nothing else changes.
			defaults, err := render(nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range defaults {
				if k := key(want); k != key(deployment) && want.GetKind() != "ServiceAccount" && !equalJSON(t, objects[k], want) {
					t.Errorf("%s differs from the defaults' render", k)
				}
			}
		},
		"dashboard": func(t *testing.T, objects map[string]*unstructured.Unstructured) {
			built, err := config.Dashboard()
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range built {
				got := objects[key(want)]
				if got == nil {
					t.Errorf("no %s", key(want))
					continue
				}
				for _, field := range []string{"rules", "roleRef", "subjects", "spec"} {
					if a, b := fmt.Sprint(got.Object[field]), fmt.Sprint(want.Object[field]); a != b {
						t.Errorf("%s: %s differs from config/dashboard's:\n chart: %.300s\nconfig: %.300s", key(want), field, a, b)
					}
				}
			}
			if args := containerArgs(t, objects); !slices.Contains(args, "--dashboard-bind-address=:9090") {
				t.Errorf("args %q lack --dashboard-bind-address=:9090", args)
			}
		},
		"monitoring": func(t *testing.T, objects map[string]*unstructured.Unstructured) {
			built, err := config.Build(filesys.MakeFsOnDisk(), "../config/monitoring")
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range built {
				k, extra := key(want), map[string]string{"release": "prometheus"}
				if want.GetKind() == "ConfigMap" {
					k, extra = "ConfigMap grafana/"+want.GetName(), map[string]string{"team": "platform", "grafana_dashboard": "1"}
				}
				got := objects[k]
				if got == nil {
					t.Errorf("no %s", k)
					continue
				}
				for label, value := range extra {
					if got.GetLabels()[label] != value {
						t.Errorf("%s: label %s=%q, want %q", k, label, got.GetLabels()[label], value)
					}
				}
				// What Grafana and Prometheus read is config/monitoring's, {{ }} included.
				for _, field := range []string{"data", "spec"} {
					if a, b := fmt.Sprint(got.Object[field]), fmt.Sprint(want.Object[field]); a != b {
						t.Errorf("%s: %s differs from config/monitoring's:\n chart: %.300s\nconfig: %.300s", k, field, a, b)
					}
				}
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			rendered, err := render(valueSets[name])
			if err != nil {
				t.Fatal(err)
			}
			objects := map[string]*unstructured.Unstructured{}
			for _, u := range rendered {
				objects[key(u)] = u
			}
			check(t, objects)
		})
	}
}

func containers(t *testing.T, objects map[string]*unstructured.Unstructured) []map[string]any {
	t.Helper()
	list, _, err := unstructured.NestedSlice(objects["Deployment landlord-system/landlord-controller"].Object, "spec", "template", "spec", "containers")
	if err != nil || len(list) == 0 {
		t.Fatalf("no containers: %v", err)
	}
	var out []map[string]any
	for _, c := range list {
		out = append(out, c.(map[string]any))
	}
	return out
}

func podContainer(t *testing.T, deployment *unstructured.Unstructured) map[string]any {
	t.Helper()
	return containers(t, map[string]*unstructured.Unstructured{"Deployment landlord-system/landlord-controller": deployment})[0]
}

func envNames(container map[string]any) []string {
	var names []string
	for _, e := range container["env"].([]any) {
		names = append(names, e.(map[string]any)["name"].(string))
	}
	return names
}

func containerArgs(t *testing.T, objects map[string]*unstructured.Unstructured) []string {
	t.Helper()
	return toStrings(containers(t, objects)[0]["args"])
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

// TestChartApplies server-side applies each value set's render, CRDs
// included, to the API server, as ssa's staged apply (landlord install's)
// sends them. cert-manager's and the Prometheus Operator's CRDs are
// installed as schemaless stand-ins first: the API server then checks the
// objects' envelope, not cert-manager's own validation.
func TestChartApplies(t *testing.T) {
	ctx := context.Background()
	var standIns []client.Object
	for group, kinds := range map[string][]string{"cert-manager.io": {"Certificate", "Issuer"}, "monitoring.coreos.com": {"ServiceMonitor", "PrometheusRule"}} {
		for _, kind := range kinds {
			standIns = append(standIns, schemalessCRD(group, kind))
		}
	}
	if _, err := install.Apply(ctx, k8s, io.Discard, standIns...); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"defaults", "cert-manager", "3 replicas with PDB", "admin groups", "monitoring", "pod conventions"} {
		t.Run(name, func(t *testing.T) {
			rendered, err := render(valueSets[name])
			if err != nil {
				t.Fatal(err)
			}
			objects := make([]client.Object, 0, len(rendered))
			for _, u := range rendered {
				objects = append(objects, u)
			}
			// Helm applies into the namespace it creates (--create-namespace);
			// the dashboard may go to Grafana's.
			namespaces := []string{"landlord-system"}
			for _, u := range rendered {
				if ns := u.GetNamespace(); ns != "" && !slices.Contains(namespaces, ns) {
					namespaces = append(namespaces, ns)
				}
			}
			for _, ns := range namespaces {
				objects = append(objects, &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns},
				}})
			}
			if _, err := install.Apply(ctx, k8s, io.Discard, objects...); err != nil {
				t.Fatal(err)
			}
			// What was applied is what the API server holds now.
			for _, want := range rendered {
				live := &unstructured.Unstructured{}
				live.SetGroupVersionKind(want.GroupVersionKind())
				if err := k8s.Get(ctx, client.ObjectKeyFromObject(want), live); err != nil {
					t.Fatalf("%s: %v", key(want), err)
				}
				for k, v := range want.GetAnnotations() {
					if live.GetAnnotations()[k] != v {
						t.Errorf("live %s has annotation %s=%q, the render %q", key(want), k, live.GetAnnotations()[k], v)
					}
				}
				if want.GetKind() != "Deployment" {
					continue
				}
				replicas, _, _ := unstructured.NestedInt64(want.Object, "spec", "replicas")
				if got, _, _ := unstructured.NestedInt64(live.Object, "spec", "replicas"); got != replicas {
					t.Errorf("live Deployment has %d replicas, the render %d", got, replicas)
				}
				// The pod's labels, annotations, args and env, as rendered.
				for _, field := range [][]string{{"metadata", "labels"}, {"metadata", "annotations"}} {
					w, _, _ := unstructured.NestedStringMap(want.Object, append([]string{"spec", "template"}, field...)...)
					l, _, _ := unstructured.NestedStringMap(live.Object, append([]string{"spec", "template"}, field...)...)
					if !maps.Equal(w, l) {
						t.Errorf("live pod template's %s %v, the render's %v", field[1], l, w)
					}
				}
				wantContainer, liveContainer := podContainer(t, want), podContainer(t, live)
				if a, b := fmt.Sprint(wantContainer["args"]), fmt.Sprint(liveContainer["args"]); a != b {
					t.Errorf("live args %s, the render's %s", b, a)
				}
				if a, b := envNames(wantContainer), envNames(liveContainer); !slices.Equal(a, b) {
					t.Errorf("live env %q, the render's %q", b, a)
				}
			}
		})
	}
}

// schemalessCRD serves kind in group, v1, namespaced, any content.
func schemalessCRD(group, kind string) *apiextensionsv1.CustomResourceDefinition {
	plural := strings.ToLower(kind) + "s"
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: apiextensionsv1.SchemeGroupVersion.String(), Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, ListKind: kind + "List", Plural: plural, Singular: strings.ToLower(kind)},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: ptr.To(true),
				}},
			}},
		},
	}
}

// TestChartLint is helm lint --strict for every value set.
func TestChartLint(t *testing.T) {
	for name, values := range valueSets {
		t.Run(name, func(t *testing.T) {
			linter := lint.All(chartDir, values, "landlord-system", true)
			for _, msg := range linter.Messages {
				if msg.Severity > support.InfoSev {
					t.Error(msg)
				}
			}
		})
	}
}

// TestChartRefusesBadValues: the schema names the value it refuses.
func TestChartRefusesBadValues(t *testing.T) {
	for name, tc := range map[string]struct {
		values map[string]any
		want   []string
	}{
		"replicas not a number": {map[string]any{"replicas": "two"}, []string{"/replicas", "want integer"}},
		"unknown value":         {map[string]any{"replica": 3}, []string{"replica"}},
		"pull policy":           {map[string]any{"image": map[string]any{"pullPolicy": "Sometimes"}}, []string{"/image/pullPolicy", "IfNotPresent"}},
		"comma in a group":      {map[string]any{"platform": map[string]any{"groups": []any{"a,b"}}}, []string{"/platform/groups/0"}},
		"failure policy":        {map[string]any{"webhook": map[string]any{"failurePolicy": "Open"}}, []string{"/webhook/failurePolicy", "Ignore"}},
		"selector label":        {map[string]any{"podLabels": map[string]any{"app.kubernetes.io/name": "other"}}, []string{"/podLabels/app.kubernetes.io~1name"}},
		"chart's env":           {map[string]any{"env": []any{map[string]any{"name": "GOMEMLIMIT", "value": "1GiB"}}}, []string{"/env/0/name"}},
		"argument not a flag":   {map[string]any{"extraArgs": []any{"concurrency=8"}}, []string{"/extraArgs/0"}},
		"annotation not text":   {map[string]any{"serviceAccount": map[string]any{"annotations": map[string]any{"a": 1}}}, []string{"/serviceAccount/annotations/a", "want string"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := render(tc.values)
			if err == nil {
				t.Fatal("rendered")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
			}
		})
	}
}

// TestChartNotes: NOTES.txt renders, names the release's namespace, and
// tells how to reach the dashboard when it is on.
func TestChartNotes(t *testing.T) {
	for name, tc := range map[string]struct {
		values map[string]any
		want   []string
	}{
		"defaults":  {nil, []string{"kubectl -n landlord-system rollout status deployment/landlord-controller", "landlord audit"}},
		"dashboard": {valueSets["dashboard"], []string{"port-forward service/landlord-dashboard 9090"}},
	} {
		t.Run(name, func(t *testing.T) {
			notes, err := chartrender.Notes(chartDir, "landlord-system", tc.values)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.want {
				if !strings.Contains(notes, want) {
					t.Errorf("NOTES.txt lacks %q:\n%s", want, notes)
				}
			}
		})
	}
}

// TestChartMetadata: the local API server is a Kubernetes the chart's
// kubeVersion admits, and the Artifact Hub annotations name the image
// the chart installs and every CRD it holds.
func TestChartMetadata(t *testing.T) {
	chart, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	discovery, err := discovery.NewDiscoveryClientForConfig(restConfig)
	if err != nil {
		t.Fatal(err)
	}
	server, err := discovery.ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	// The local API server is built without a GitVersion; Major and Minor
	// say which Kubernetes it is.
	serverVersion := "v" + server.Major + "." + server.Minor + ".0"
	if !chartutil.IsCompatibleRange(chart.Metadata.KubeVersion, serverVersion) {
		t.Errorf("kubeVersion %q refuses the local API server's %s", chart.Metadata.KubeVersion, serverVersion)
	}
	if chartutil.IsCompatibleRange(chart.Metadata.KubeVersion, "v1.29.9") {
		t.Errorf("kubeVersion %q admits 1.29, which serves no admission matchConditions by default", chart.Metadata.KubeVersion)
	}

	var images []struct{ Name, Image string }
	if err := yaml.Unmarshal([]byte(chart.Metadata.Annotations["artifacthub.io/images"]), &images); err != nil {
		t.Fatal(err)
	}
	rendered, err := render(nil)
	if err != nil {
		t.Fatal(err)
	}
	objects := map[string]*unstructured.Unstructured{}
	var crdNames []string
	for _, u := range rendered {
		objects[key(u)] = u
		if u.GetKind() == "CustomResourceDefinition" {
			crdNames = append(crdNames, u.GetName())
		}
	}
	if image := containers(t, objects)[0]["image"]; len(images) != 1 || images[0].Image != image {
		t.Errorf("artifacthub.io/images %v, want the image the chart installs, %v", images, image)
	}

	var crds []struct{ Name, Kind, Version, Description string }
	if err := yaml.Unmarshal([]byte(chart.Metadata.Annotations["artifacthub.io/crds"]), &crds); err != nil {
		t.Fatal(err)
	}
	var examples []map[string]any
	if err := yaml.Unmarshal([]byte(chart.Metadata.Annotations["artifacthub.io/crdsExamples"]), &examples); err != nil {
		t.Fatal(err)
	}
	var listed, exampleKinds []string
	for _, crd := range crds {
		listed = append(listed, crd.Name)
		if crd.Description == "" || crd.Version == "" {
			t.Errorf("artifacthub.io/crds: %s has no description or version", crd.Name)
		}
	}
	for _, example := range examples {
		exampleKinds = append(exampleKinds, fmt.Sprint(example["kind"]))
	}
	slices.Sort(crdNames)
	slices.Sort(listed)
	if !slices.Equal(listed, crdNames) {
		t.Errorf("artifacthub.io/crds lists %q, the chart holds %q", listed, crdNames)
	}
	for _, crd := range crds {
		if !slices.Contains(exampleKinds, crd.Kind) {
			t.Errorf("artifacthub.io/crdsExamples has no %s", crd.Kind)
		}
	}
}
