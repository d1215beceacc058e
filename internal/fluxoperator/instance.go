package fluxoperator

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
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

// Missing lists, per Deployment the instance makes the operator render
// (shards included), the lockdown flags its controller would lack: none on
// a locked-down instance. What Landlord cannot work out from the instance
// is an error, never a pass.
func Missing(instance *unstructured.Unstructured) (map[string][]string, error) {
	rendered, err := Args(instance)
	if err != nil {
		return nil, err
	}
	missing := map[string][]string{}
	for name, r := range rendered {
		if m := lockdown.Missing(r.Controller, r.Args); len(m) > 0 {
			missing[name] = m
		}
	}
	return missing, nil
}

// Describe reads a Missing result in the lockdown's order of controllers,
// each controller's shards after it.
func Describe(missing map[string][]string) string {
	var parts []string
	for _, c := range lockdown.Controllers {
		var names []string
		for name := range missing {
			if _, other := lockdown.Lookup(name); name == c.Name || strings.HasPrefix(name, c.Name+"-") && !other {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		for _, name := range names {
			parts = append(parts, name+" lacks "+strings.Join(missing[name], " "))
		}
	}
	return strings.Join(parts, "; ")
}

// Rendered is a Deployment the operator would render: the lockdown
// controller it runs and that controller's command line.
type Rendered struct {
	Controller string
	Args       []string
}

// componentLabel names a Flux Deployment's controller; shards keep it.
const componentLabel = "app.kubernetes.io/component"

// shardable are the controllers the operator shards (its shard
// kustomization, v0.59.0): source-watcher from Flux 2.9.
var shardable = []string{source, kustomize, helm, reflector, automation, watcher}

// Args are the Deployments the operator would render for each lockdown
// controller the instance installs, shards included: the settings' flags,
// then the instance's kustomize patches applied to them, as the operator
// applies its profiles and then the instance's patches. Flags Flux's
// manifests start with stand first, so that a patch replacing the
// arguments cuts them too.
func Args(instance *unstructured.Unstructured) (map[string]Rendered, error) {
	if err := verifiable(instance); err != nil {
		return nil, err
	}
	cluster, _, _ := unstructured.NestedMap(instance.Object, "spec", "cluster")
	components, found, err := unstructured.NestedStringSlice(instance.Object, "spec", "components")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.components: %w", Key(instance), err)
	}
	if !found {
		components = defaultComponents
	}
	shards, _, err := unstructured.NestedStringSlice(instance.Object, "spec", "sharding", "shards")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.sharding.shards: %w", Key(instance), err)
	}
	patches, err := instancePatches(instance)
	if err != nil {
		return nil, err
	}

	fs := filesys.MakeFsInMemory()
	write := func(name string, v any) error {
		data, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		return fs.WriteFile(name, data)
	}
	// As the operator's: the namespace set by the kustomization, so that a
	// patch naming none matches.
	k := types.Kustomization{Namespace: instance.GetNamespace(), Patches: patches}
	k.FixKustomization()
	var installed []string
	for _, c := range lockdown.Controllers {
		if !slices.Contains(components, c.Name) {
			continue
		}
		installed = append(installed, c.Name)
		k.Resources = append(k.Resources, c.Name+".yaml")
		if err := write("/"+c.Name+".yaml", deployment(instance.GetNamespace(), c.Name, settingArgs(cluster, c.Name))); err != nil {
			return nil, err
		}
	}
	// A shard is a copy of each shardable controller, renamed and marked,
	// which the instance's patches reach by its first name too.
	for _, shard := range shards {
		sk := types.Kustomization{NameSuffix: "-" + shard, CommonAnnotations: map[string]string{"sharding.fluxcd.io/role": "shard"}}
		sk.FixKustomization()
		for _, c := range installed {
			if !slices.Contains(shardable, c) {
				continue
			}
			// A copy: kustomize reads no file above a kustomization.
			sk.Resources = append(sk.Resources, c+".yaml")
			if err := write("/shard-"+shard+"/"+c+".yaml", deployment(instance.GetNamespace(), c, settingArgs(cluster, c))); err != nil {
				return nil, err
			}
		}
		if err := write("/shard-"+shard+"/kustomization.yaml", sk); err != nil {
			return nil, err
		}
		k.Resources = append(k.Resources, "shard-"+shard)
	}
	if err := write("/kustomization.yaml", k); err != nil {
		return nil, err
	}
	objects, err := config.Build(fs, "/")
	if err != nil {
		return nil, fmt.Errorf("%s: spec.kustomize.patches: %w", Key(instance), err)
	}
	rendered := map[string]Rendered{}
	for _, obj := range objects {
		d := &appsv1.Deployment{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, d); err != nil {
			return nil, fmt.Errorf("%s: spec.kustomize.patches: %s: %w", Key(instance), obj.GetName(), err)
		}
		rendered[d.Name] = Rendered{Controller: d.Labels[componentLabel], Args: lockdown.CommandLine(&d.Spec.Template.Spec)}
	}
	for _, c := range lockdown.Controllers {
		if c.Required && !slices.Contains(installed, c.Name) {
			return nil, fmt.Errorf("%s: spec.components lists no %s, which applies the tenants' manifests", Key(instance), c.Name)
		}
	}
	return rendered, nil
}

// deployment is a Flux controller's Deployment as far as patches see it:
// the labels Flux's manifests carry, no namespace yet, the manager
// container with the flags Flux's manifests start with, then the lockdown
// settings' flags.
func deployment(namespace, controller string, settingArgs []string) *appsv1.Deployment {
	labels := map[string]string{componentLabel: controller, "app.kubernetes.io/part-of": "flux", "control-plane": "controller"}
	pod := map[string]string{"app": controller}
	args := append([]string{
		"--events-addr=http://notification-controller." + namespace + ".svc.cluster.local./",
		"--watch-all-namespaces=true", "--log-level=info", "--log-encoding=json", "--enable-leader-election",
	}, settingArgs...)
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: controller, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: pod},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: pod},
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

// verifiable refuses what would make Args differ from what the operator
// renders: an instance the operator leaves alone or cannot render locked
// down, manifests Landlord cannot read, a value the operator writes into
// its own patches unquoted, and a patch rewriting a controller's command
// line by position or wholesale.
func verifiable(instance *unstructured.Unstructured) error {
	key := Key(instance)
	if instance.GetAnnotations()["fluxcd.controlplane.io/reconcile"] == "disabled" {
		return fmt.Errorf("%s: reconciliation is disabled (fluxcd.controlplane.io/reconcile): the operator renders nothing of it", key)
	}
	if artifact, _, _ := unstructured.NestedString(instance.Object, "spec", "distribution", "artifact"); artifact != "" {
		return fmt.Errorf("%s: spec.distribution.artifact: Flux's manifests come from %s, which Landlord does not read: only the live Deployments can be checked", key, artifact)
	}
	version, _, _ := unstructured.NestedString(instance.Object, "spec", "distribution", "version")
	if m := minorVersion.FindStringSubmatch(version); m != nil {
		if minor, _ := strconv.Atoi(m[1]); minor < 7 {
			return fmt.Errorf("%s: spec.distribution.version %q: the lockdown through spec.cluster needs Flux 2.7 or later (multitenantWorkloadIdentity)", key, version)
		}
	}
	for _, field := range []string{"tenantDefaultServiceAccount", "tenantDefaultDecryptionServiceAccount", "tenantDefaultKubeConfigServiceAccount"} {
		name, _, err := unstructured.NestedString(instance.Object, "spec", "cluster", field)
		if err != nil {
			return fmt.Errorf("%s: spec.cluster.%s: %w", key, field, err)
		}
		if name != "" && len(validation.IsDNS1123Subdomain(name)) > 0 {
			return fmt.Errorf("%s: spec.cluster.%s %q: not a service account name; the operator writes it into its patches as it is", key, field, name)
		}
	}
	patches, err := instancePatches(instance)
	if err != nil {
		return err
	}
	for i, p := range patches {
		if err := rewritesCommandLine(p); err != nil {
			return fmt.Errorf("%s: spec.kustomize.patches[%d]: %w: Landlord cannot tell what the controller would run; add flags with op add at /spec/template/spec/containers/0/args/-", key, i, err)
		}
	}
	return nil
}

// minorVersion reads a Flux 2 version or constraint's minor version: 2.6.x,
// v2.6.3, 2.6; 2.x or * says nothing.
var minorVersion = regexp.MustCompile(`^[v=~^ ]*2\.([0-9]+)`)

var (
	containerPath = regexp.MustCompile(`^/spec/template/spec/containers(/|$)`)
	appendArg     = regexp.MustCompile(`^/spec/template/spec/containers/[0-9]+/args/-$`)
	commandLine   = regexp.MustCompile(`^/spec/template/spec/containers(/[^/]+)?(/(args|command)(/.*)?)?$`)
)

// rewritesCommandLine says how a patch that may reach a Deployment changes
// a controller's command line other than by appending arguments: a JSON
// patch operation on the containers list, a container, its command or its
// arguments, or a strategic merge patch naming command, args or a $patch
// directive.
func rewritesCommandLine(p types.Patch) error {
	if p.Target != nil && p.Target.Kind != "" && p.Target.Kind != "Deployment" {
		return nil
	}
	var ops []struct {
		Op, Path, From string
	}
	if err := yaml.Unmarshal([]byte(p.Patch), &ops); err == nil && len(ops) > 0 && ops[0].Op != "" {
		for _, op := range ops {
			for _, path := range []string{op.Path, op.From} {
				if path == "" || !containerPath.MatchString(path) {
					continue
				}
				if op.Op == "add" && appendArg.MatchString(op.Path) && op.From == "" {
					continue
				}
				if commandLine.MatchString(path) {
					return fmt.Errorf("op %s at %s", op.Op, path)
				}
			}
		}
		return nil
	}
	var smp map[string]any
	if err := yaml.Unmarshal([]byte(p.Patch), &smp); err != nil {
		return fmt.Errorf("not a JSON patch nor a strategic merge patch: %w", err)
	}
	if kind, _ := smp["kind"].(string); kind != "" && kind != "Deployment" {
		return nil
	}
	data, _ := json.Marshal(smp["spec"])
	for _, key := range []string{`"command"`, `"args"`, `"$patch"`, `"$setElementOrder/`, `"$deleteFromPrimitiveList/`, `"$retainKeys"`} {
		if strings.Contains(string(data), key) {
			return fmt.Errorf("a strategic merge patch setting %s", strings.Trim(key, `"/`))
		}
	}
	return nil
}
