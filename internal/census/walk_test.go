package census

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/kinds"
)

// walked is one property the walk reached.
type walked struct {
	gvk      schema.GroupVersionKind
	path     string // from the object's root: spec.template.spec.nodeName
	name     string
	siblings []string
	// within are the shapes it sits in, outermost first, with its path
	// relative to each.
	within []within
}

type within struct {
	shape *Shape
	path  string
}

// place is where the walk entered a shape: in a kind, or in the shape
// around it, at a path relative to that.
type place struct {
	shape string
	in    string
	path  string
}

const refPrefix = "#/components/schemas/"

// builtinDefinitions are the pinned API server's OpenAPI definitions,
// every group-version's file merged: each repeats the core definitions it
// refers to.
func builtinDefinitions(t testing.TB) map[string]map[string]any {
	files, err := filepath.Glob("../apivalidation/schemas/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no schemas in ../apivalidation/schemas: %v", err)
	}
	defs := map[string]map[string]any{}
	for _, f := range files {
		if filepath.Base(f) == "resources.json" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for k, v := range m {
			defs[k] = v
		}
	}
	return defs
}

// walker walks schemas, resolving references into defs and noting where
// it enters a shape.
type walker struct {
	defs   map[string]map[string]any
	shapes map[string]*Shape
	fields []walked
	places map[place]bool
	// kinds counts the kinds walked, versions the schemas.
	kinds, versions int
}

func newWalker(defs map[string]map[string]any) *walker {
	w := &walker{defs: defs, shapes: map[string]*Shape{}, places: map[place]bool{}}
	for _, s := range Shapes {
		for _, d := range s.Definitions {
			if s != TemplateMeta {
				w.shapes[d] = s
			}
		}
	}
	return w
}

func (w *walker) walk(gvk schema.GroupVersionKind, s map[string]any, path string, in []within, onStack []string) {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, refPrefix)
		if slices.Contains(onStack, name) {
			return // a recursive definition (JSONSchemaProps): its fields were walked above
		}
		def, ok := w.defs[name]
		if !ok {
			panic("unresolved " + ref)
		}
		if shape, ok := w.shapes[name]; ok {
			if shape == ObjectMeta && path != "metadata" {
				shape = TemplateMeta
			}
			p := place{shape: shape.Name, in: gvk.Kind, path: path}
			if len(in) > 0 {
				p.in, p.path = in[len(in)-1].shape.Name, in[len(in)-1].path
			}
			w.places[p] = true
			in = append(slices.Clip(in), within{shape: shape})
		}
		w.walk(gvk, def, path, in, append(slices.Clip(onStack), name))
		return
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := s[key].([]any)
		for _, sub := range list {
			w.walk(gvk, sub.(map[string]any), path, in, onStack)
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		w.walk(gvk, items, path+"[]", extend(in, "[]"), onStack)
	}
	if add, ok := s["additionalProperties"].(map[string]any); ok {
		w.walk(gvk, add, path+"{}", extend(in, "{}"), onStack)
	}
	props, _ := s["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if path == "" && name == "status" {
			continue // TestStatusIsNotTheTenants
		}
		child := join(path, name)
		sub := extend(in, "."+name)
		w.fields = append(w.fields, walked{gvk: gvk, path: child, name: name, siblings: others(names, name), within: sub})
		p := props[name].(map[string]any)
		if path == "" && name == "metadata" {
			// CRDs leave metadata open; the API server holds it to ObjectMeta.
			p = map[string]any{"$ref": refPrefix + objectMetaDef}
		}
		w.walk(gvk, p, child, sub, onStack)
	}
}

// extend appends a step to the path relative to every enclosing shape.
func extend(in []within, step string) []within {
	out := make([]within, len(in))
	for i, s := range in {
		s.path = strings.TrimPrefix(s.path+step, ".")
		out[i] = s
	}
	return out
}

func others(names []string, name string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if n != name {
			out = append(out, n)
		}
	}
	return out
}

// walkScope walks every served version of every kind in Scope, as the
// pinned API server and the Flux CRDs serve them.
func walkScope(t testing.TB) *walker {
	defs := builtinDefinitions(t)
	w := newWalker(defs)
	byGVK := map[schema.GroupVersionKind]string{}
	for name, def := range defs {
		gvks, _ := def["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			m := g.(map[string]any)
			byGVK[schema.GroupVersionKind{Group: m["group"].(string), Version: m["version"].(string), Kind: m["kind"].(string)}] = name
		}
	}
	crds, err := config.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Scope() {
		w.kinds++
		if name, ok := byGVK[k.GroupVersionKind]; ok {
			w.versions++
			w.walk(k.GroupVersionKind, map[string]any{"$ref": refPrefix + name}, "", nil, nil)
			continue
		}
		i := slices.IndexFunc(crds, func(c *apiextensionsv1.CustomResourceDefinition) bool {
			return c.Spec.Group == k.Group && c.Spec.Names.Kind == k.Kind
		})
		if i < 0 {
			t.Fatalf("%s: neither the pinned API server nor the Flux CRDs serve it", k.GroupVersionKind)
		}
		for _, v := range crds[i].Spec.Versions {
			if !v.Served {
				continue
			}
			if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				t.Fatalf("%s %s: served without a schema", k.GroupKind(), v.Name)
			}
			data, err := json.Marshal(v.Schema.OpenAPIV3Schema)
			if err != nil {
				t.Fatal(err)
			}
			var s map[string]any
			if err := json.Unmarshal(data, &s); err != nil {
				t.Fatal(err)
			}
			w.versions++
			w.walk(schema.GroupVersionKind{Group: k.Group, Version: v.Name, Kind: k.Kind}, s, "", nil, nil)
		}
	}
	return w
}

// covered reports whether a row covers the field: one on its kind at its
// path, or one on a shape it sits in at its path relative to the shape.
func covered(f walked) bool {
	return slices.ContainsFunc(Rows, func(r Row) bool {
		if r.On.Shape == nil {
			return r.On.Kind == f.gvk.GroupKind() && r.Covers(f.path)
		}
		return slices.ContainsFunc(f.within, func(w within) bool { return w.shape == r.On.Shape && r.Covers(w.path) })
	})
}

// uncovered lists the fields Patterns match that no row covers.
func uncovered(fields []walked) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range fields {
		what := Matching(f.name, f.siblings)
		if len(what) == 0 || covered(f) {
			continue
		}
		where, first := f.gvk.GroupKind().String()+" "+f.path, ""
		if n := len(f.within); n > 0 {
			where, first = f.within[n-1].shape.Name+" "+f.within[n-1].path, " (first in "+f.gvk.String()+" "+f.path+")"
		}
		if !seen[where] {
			seen[where] = true
			out = append(out, where+first+": "+strings.Join(what, "; "))
		}
	}
	return out
}

// TestCensusIsWhole walks every served version of every kind in Scope and
// fails on each field Patterns match that no row covers: a new Kubernetes
// or Flux field that can point outside fails here, not in production.
func TestCensusIsWhole(t *testing.T) {
	w := walkScope(t)
	matched := 0
	for _, f := range w.fields {
		if len(Matching(f.name, f.siblings)) > 0 {
			matched++
		}
	}
	t.Logf("walked %d fields of %d schemas of %d kinds; %d match a pattern", len(w.fields), w.versions, w.kinds, matched)
	for _, u := range uncovered(w.fields) {
		t.Errorf("no census row: %s", u)
	}
}

// TestCensusCanFail: a schema with a field of every shape the patterns
// stand for, none of which a row covers, fails the walk on each.
func TestCensusCanFail(t *testing.T) {
	synthetic := map[string]any{"properties": map[string]any{
		"spec": map[string]any{"properties": map[string]any{
			"peerSelector":      map[string]any{"type": "object"},
			"mirrorNamespace":   map[string]any{"type": "string"},
			"target":            map[string]any{"properties": map[string]any{"kind": map[string]any{"type": "string"}, "name": map[string]any{"type": "string"}}},
			"gatewayClassName":  map[string]any{"type": "string"},
			"backupRef":         map[string]any{"type": "object"},
			"webhookURL":        map[string]any{"type": "string"},
			"nodeGroup":         map[string]any{"type": "string"},
			"impersonate":       map[string]any{"type": "string"},
			"credentialsSecret": map[string]any{"type": "string"},
			"exportPath":        map[string]any{"type": "string"},
			"isDefault":         map[string]any{"type": "boolean"},
			"replicas":          map[string]any{"type": "integer"},
		}},
	}}
	w := newWalker(nil)
	w.walk(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Mirror"}, synthetic, "", nil, nil)
	got := uncovered(w.fields)
	for _, want := range []string{"peerSelector", "mirrorNamespace", "target.name", "gatewayClassName", "backupRef", "webhookURL", "nodeGroup", "impersonate", "credentialsSecret", "exportPath", "isDefault"} {
		if !slices.ContainsFunc(got, func(u string) bool { return strings.HasPrefix(u, "Mirror.example.com spec."+want+":") }) {
			t.Errorf("spec.%s: not reported; reported %q", want, got)
		}
	}
	if slices.ContainsFunc(got, func(u string) bool { return strings.Contains(u, "spec.replicas") || strings.Contains(u, "target.kind") }) {
		t.Errorf("a field no pattern matches was reported: %q", got)
	}
	// And a covered field is not: Kustomization's targetNamespace.
	w = newWalker(nil)
	w.walk(schema.GroupVersionKind{Group: gkKustomization.Group, Version: "v1", Kind: gkKustomization.Kind}, map[string]any{"properties": map[string]any{
		"spec": map[string]any{"properties": map[string]any{"targetNamespace": map[string]any{"type": "string"}}},
	}}, "", nil, nil)
	if got := uncovered(w.fields); len(got) > 0 {
		t.Errorf("a covered field was reported: %q", got)
	}
}

// TestRowsNameServedFields: every row's path is a field some kind in Scope
// serves, so that a row cannot cover a field that does not exist (a typo,
// or a field a version dropped). A key in braces, as in
// metadata.annotations{kubernetes.io/ingress.class}, names a map's key.
func TestRowsNameServedFields(t *testing.T) {
	w := walkScope(t)
	for _, r := range Rows {
		path := r.Path
		if i := strings.Index(path, "{"); i >= 0 && !strings.HasSuffix(path, "{}") {
			path = path[:i] + "{}"
			if r.Whole {
				t.Errorf("%s %s: a key's row holds for that key alone", r.On, r.Path)
			}
		}
		found := slices.ContainsFunc(w.fields, func(f walked) bool {
			if r.On.Shape == nil {
				return r.On.Kind == f.gvk.GroupKind() && (f.path == path || strings.HasSuffix(path, "{}") && f.path == strings.TrimSuffix(path, "{}"))
			}
			return slices.ContainsFunc(f.within, func(in within) bool {
				return in.shape == r.On.Shape && (in.path == path || strings.HasSuffix(path, "{}") && in.path == strings.TrimSuffix(path, "{}"))
			})
		})
		if !found {
			t.Errorf("%s %s: no kind in scope serves this field", r.On, r.Path)
		}
	}
}

// TestEmbeddingsAgree: the shapes sit exactly where Embeddings says, in
// the schemas the pinned API server serves, so that every row on a shape
// reaches every kind that has it (a workload kind with a pod template is a
// PodSpec place, and its probes are the Pod's).
func TestEmbeddingsAgree(t *testing.T) {
	w := walkScope(t)
	want := map[place]bool{}
	for _, e := range Embeddings() {
		want[place{shape: e.Shape.Name, in: e.In.String(), path: e.Path()}] = true
	}
	for p := range w.places {
		if !want[p] {
			t.Errorf("the schemas hold %s in %s at %s, which Embeddings does not list", p.shape, p.in, p.path)
		}
	}
	for p := range want {
		if !w.places[p] {
			t.Errorf("Embeddings lists %s in %s at %s, which no schema holds", p.shape, p.in, p.path)
		}
	}
}

// TestStatusIsNotTheTenants: the walk leaves status out, which holds only
// while no tenant identity may write it: every kind in Scope with a status
// has it behind a subresource the tenant role grants read-only at most.
func TestStatusIsNotTheTenants(t *testing.T) {
	crds, err := config.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Scope() {
		if k.Subresources["status"] == kinds.Write {
			t.Errorf("%s: tenants may write its status, which the census does not walk", k.GroupKind())
		}
		i := slices.IndexFunc(crds, func(c *apiextensionsv1.CustomResourceDefinition) bool {
			return c.Spec.Group == k.Group && c.Spec.Names.Kind == k.Kind
		})
		if i < 0 {
			continue // built-in kinds ignore status on writes to the object
		}
		for _, v := range crds[i].Spec.Versions {
			if _, ok := v.Schema.OpenAPIV3Schema.Properties["status"]; ok && (v.Subresources == nil || v.Subresources.Status == nil) {
				t.Errorf("%s %s: a status written with the object, which the census does not walk", k.GroupKind(), v.Name)
			}
		}
	}
}

// TestScopeIsTheRegistry: the census's kinds are the registry's and
// every row's kind is one of them.
func TestScopeIsTheRegistry(t *testing.T) {
	in := map[schema.GroupKind]bool{}
	for _, k := range Scope() {
		in[k.GroupKind()] = true
	}
	for _, r := range Rows {
		if r.On.Shape == nil && !in[r.On.Kind] {
			t.Errorf("%s %s: a row on a kind outside Scope", r.On, r.Path)
		}
	}
	for _, e := range Embeddings() {
		if e.In.Shape == nil && !in[e.In.Kind] {
			t.Errorf("%s in %s: an embedding in a kind outside Scope", e.Shape.Name, e.In)
		}
	}
}
