package fluxoperator

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/lockdown"
)

// Sync is the Git repository and path a FluxInstance syncs its cluster
// from.
type Sync struct {
	URL    string
	Branch string
	Path   string
}

// Instance is a FluxInstance in namespace installing Flux locked down for
// multi-tenancy, syncing from sync: the core controllers of the
// Distribution, each lockdown setting on, the Patches, and Flux's own
// NetworkPolicies.
func Instance(namespace string, sync Sync) *unstructured.Unstructured {
	cluster := map[string]any{"type": "kubernetes", "networkPolicy": true}
	for _, field := range Settings() {
		cluster[field] = true
	}
	spec := map[string]any{
		"distribution": map[string]any{"version": Distribution, "registry": "ghcr.io/fluxcd"},
		"components":   []any{source, kustomize, helm, notification},
		"cluster":      cluster,
		"sync": map[string]any{
			"kind": "GitRepository",
			"url":  sync.URL,
			"ref":  "refs/heads/" + sync.Branch,
			"path": sync.Path,
		},
	}
	if patches := Patches(); len(patches) > 0 {
		spec["kustomize"] = map[string]any{"patches": toJSON(patches)}
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(GVK)
	u.SetNamespace(namespace)
	u.SetName(InstanceName)
	return u
}

// defaultComponents are what an instance listing none installs.
var defaultComponents = []string{source, kustomize, helm, notification}

// Missing lists, per lockdown controller the instance installs, the
// lockdown flags its Deployment would lack: none on a locked-down instance.
func Missing(instance *unstructured.Unstructured) (map[string][]string, error) {
	args, err := Args(instance)
	if err != nil {
		return nil, err
	}
	missing := map[string][]string{}
	for controller, a := range args {
		if m := lockdown.Missing(controller, a); len(m) > 0 {
			missing[controller] = m
		}
	}
	return missing, nil
}

// Describe reads a Missing result in the lockdown's order of controllers.
func Describe(missing map[string][]string) string {
	var parts []string
	for _, c := range lockdown.Controllers {
		if m := missing[c.Name]; len(m) > 0 {
			parts = append(parts, c.Name+" lacks "+strings.Join(m, " "))
		}
	}
	return strings.Join(parts, "; ")
}

// Args are the arguments the operator would give each lockdown controller
// the instance installs: its settings' flags, then its kustomize patches
// applied to them. Flags the operator adds for other reasons stand first,
// so that a patch replacing or cutting the arguments cuts them too.
func Args(instance *unstructured.Unstructured) (map[string][]string, error) {
	cluster, _, err := unstructured.NestedMap(instance.Object, "spec", "cluster")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.cluster: %w", Key(instance), err)
	}
	components, found, err := unstructured.NestedStringSlice(instance.Object, "spec", "components")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.components: %w", Key(instance), err)
	}
	if !found {
		components = defaultComponents
	}
	patches, err := instancePatches(instance)
	if err != nil {
		return nil, err
	}

	fs := filesys.MakeFsInMemory()
	// As the operator's: the namespace set by the kustomization, so that a
	// patch naming none matches.
	k := types.Kustomization{Namespace: instance.GetNamespace(), Patches: patches}
	k.FixKustomization()
	for _, c := range lockdown.Controllers {
		if !slices.Contains(components, c.Name) {
			continue
		}
		name := c.Name + ".yaml"
		k.Resources = append(k.Resources, name)
		data, err := yaml.Marshal(deployment(instance.GetNamespace(), c.Name, settingArgs(cluster, c.Name)))
		if err != nil {
			return nil, err
		}
		if err := fs.WriteFile("/"+name, data); err != nil {
			return nil, err
		}
	}
	data, err := yaml.Marshal(k)
	if err != nil {
		return nil, err
	}
	if err := fs.WriteFile("/kustomization.yaml", data); err != nil {
		return nil, err
	}
	objects, err := config.Build(fs, "/")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.kustomize.patches: %w", Key(instance), err)
	}
	args := map[string][]string{}
	for _, obj := range objects {
		d := &appsv1.Deployment{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, d); err != nil {
			return nil, fmt.Errorf("%s: spec.kustomize.patches: %s: %w", Key(instance), obj.GetName(), err)
		}
		args[d.Name] = []string{}
		for _, container := range d.Spec.Template.Spec.Containers {
			args[d.Name] = append(args[d.Name], append(slices.Clone(container.Command), container.Args...)...)
		}
	}
	return args, nil
}

// deployment is a Flux controller's Deployment as far as patches see it:
// the labels Flux's manifests carry, no namespace yet, the manager
// container with the flags Flux's manifests start with, then the lockdown
// settings' flags.
func deployment(namespace, controller string, settingArgs []string) *appsv1.Deployment {
	labels := map[string]string{"app": controller, "app.kubernetes.io/component": controller, "app.kubernetes.io/part-of": "flux", "control-plane": "controller"}
	args := append([]string{
		"--events-addr=http://notification-controller." + namespace + ".svc.cluster.local./",
		"--watch-all-namespaces=true", "--log-level=info", "--log-encoding=json", "--enable-leader-election",
	}, settingArgs...)
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: controller, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": controller}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "manager", Args: args}}},
			},
		},
	}
}

// instancePatches reads spec.kustomize.patches: the operator's Patch has
// kustomize's fields.
func instancePatches(instance *unstructured.Unstructured) ([]types.Patch, error) {
	raw, _, err := unstructured.NestedSlice(instance.Object, "spec", "kustomize", "patches")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.kustomize.patches: %w", Key(instance), err)
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var patches []types.Patch
	if err := json.Unmarshal(data, &patches); err != nil {
		return nil, fmt.Errorf("%s: spec.kustomize.patches: %w", Key(instance), err)
	}
	return patches, nil
}

// Lock turns the instance's lockdown settings on and appends the Patches it
// lacks, returning what it changed as field=value.
func Lock(instance *unstructured.Unstructured) ([]string, error) {
	var changed []string
	for _, field := range Settings() {
		on, _, err := unstructured.NestedBool(instance.Object, "spec", "cluster", field)
		if err != nil {
			return nil, fmt.Errorf("%s: spec.cluster.%s: %w", Key(instance), field, err)
		}
		if on {
			continue
		}
		if err := unstructured.SetNestedField(instance.Object, true, "spec", "cluster", field); err != nil {
			return nil, fmt.Errorf("%s: spec.cluster: %w", Key(instance), err)
		}
		changed = append(changed, "spec.cluster."+field+"=true")
	}
	have, err := instancePatches(instance)
	if err != nil {
		return nil, err
	}
	raw, _, _ := unstructured.NestedSlice(instance.Object, "spec", "kustomize", "patches")
	for _, p := range Patches() {
		if slices.ContainsFunc(have, func(h types.Patch) bool { return reflect.DeepEqual(h, p) }) {
			continue
		}
		raw = append(raw, toJSON([]types.Patch{p})...)
		changed = append(changed, "spec.kustomize.patches: "+strings.TrimSpace(p.Patch))
	}
	if len(raw) > 0 {
		if err := unstructured.SetNestedSlice(instance.Object, raw, "spec", "kustomize", "patches"); err != nil {
			return nil, err
		}
	}
	return changed, nil
}

// toJSON turns patches into the instance's JSON form.
func toJSON(patches []types.Patch) []any {
	data, _ := json.Marshal(patches) // strings and a selector always marshal
	var out []any
	_ = json.Unmarshal(data, &out)
	return out
}
