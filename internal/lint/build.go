package lint

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/resid"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/yaml"
)

// originAnnotation is where kustomize records the file an object came from
// when buildMetadata lists originAnnotations.
const originAnnotation = "config.kubernetes.io/origin"

// buildMu serialises builds: kustomize keeps its OpenAPI schema in a
// global, which is why Flux serialises its builds too.
var buildMu sync.Mutex

// object is one object a build produced, with the file it came from.
type object struct {
	repo *repo
	// file holds the object's source, relative to the repository; for an
	// object made by a generator, the kustomization configuring it.
	file string
	// generatedBy is the kind of generator that made the object, such as
	// SecretGenerator, empty for objects read from a file.
	generatedBy string
	obj         map[string]any
	gvk         schema.GroupVersionKind
	name        string
	namespace   string
}

// unit is the result of building one directory.
type unit struct {
	dir     string
	objects []*object
	err     error
}

// errBlocked is the build result of a kustomization naming a remote base
// or a path outside the repository, which lint does not build.
var errBlocked = errors.New("names a remote base or a path outside the repository")

// Ways a directory is built.
const (
	// asKustomization builds the directory's own kustomization file.
	asKustomization = "kustomization"
	// asManifests builds the directory's loose manifests, not its
	// subdirectories: each of those is checked on its own.
	asManifests = "manifests"
	// asFlux builds a directory as Flux does when it has no kustomization
	// file: every manifest below it, and every kustomization directory
	// below it in place of that directory's files.
	asFlux = "flux"
)

// unitFor builds dir the given way once, and returns the cached result
// afterwards. A directory with a kustomization file is always built from it.
func (r *repo) unitFor(dir, how string) *unit {
	if _, ok := r.kustomizations[dir]; ok {
		how = asKustomization
	}
	key := how + ":" + dir
	r.mu.Lock()
	u, ok := r.units[key]
	r.mu.Unlock()
	if ok {
		return u
	}
	u = r.buildUnit(dir, how)
	r.mu.Lock()
	r.units[key] = u
	r.mu.Unlock()
	return u
}

func (r *repo) buildUnit(dir, how string) *unit {
	u := &unit{dir: dir}
	var kfile string
	var content []byte
	switch how {
	case asKustomization:
		if r.blocked(dir) {
			// Building would fetch the remote base: its finding says why not.
			u.err = errBlocked
			return u
		}
		kfile = r.kustomizations[dir].file
		content, u.err = os.ReadFile(filepath.Join(r.root, filepath.FromSlash(kfile)))
	case asManifests:
		kfile = path.Join(dir, konfig.DefaultKustomizationFileName())
		content, u.err = r.generated(dir, r.loose[dir], true)
	case asFlux:
		kfile = path.Join(dir, konfig.DefaultKustomizationFileName())
		var files []string
		if files, u.err = r.fluxResources(dir); u.err == nil {
			if slices.ContainsFunc(files, r.blocked) {
				u.err = errBlocked
				return u
			}
			content, u.err = r.generated(dir, files, false)
		}
	}
	if u.err == nil {
		u.objects, u.err = r.build(dir, kfile, content)
	}
	if u.err != nil {
		u.err = fmt.Errorf("%s", r.rel(u.err.Error()))
	}
	return u
}

// generated is a kustomization.yaml listing resources below dir, as Flux
// generates one. Flux fails on a YAML file without Kubernetes objects in a
// directory it applies; loose directories no Flux Kustomization names may
// hold other YAML, so onlyManifests leaves such files out.
func (r *repo) generated(dir string, resources []string, onlyManifests bool) ([]byte, error) {
	k := &types.Kustomization{}
	k.FixKustomization()
	for _, res := range resources {
		if _, isDir := r.kustomizations[res]; !isDir && onlyManifests {
			ok, err := r.holdsManifests(res)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(res, dir), "/")
		if dir == "." {
			rel = res
		}
		k.Resources = append(k.Resources, rel)
	}
	if len(k.Resources) == 0 {
		// Flux's placeholder: kustomize refuses an empty kustomization.
		k.Namespace = "_placeholder"
	}
	return yaml.Marshal(k)
}

// holdsManifests reports whether a YAML file holds Kubernetes objects, as
// Flux's generator checks: other YAML (CI configuration, .sops.yaml, Helm
// values) is not applied.
func (r *repo) holdsManifests(file string) (bool, error) {
	data, err := os.ReadFile(filepath.Join(r.root, filepath.FromSlash(file)))
	if err != nil {
		return false, err
	}
	dec := kyaml.NewDecoder(bytes.NewReader(data))
	found := false
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if err == io.EOF {
			return found, nil
		}
		if err != nil {
			return true, nil // malformed: let the build say where
		}
		if doc == nil {
			continue
		}
		if doc["apiVersion"] == nil || doc["kind"] == nil {
			return false, nil
		}
		found = true
	}
}

// fluxResources are what Flux's kustomization generator lists for a
// directory without a kustomization file: the kustomization directories
// below it, and the YAML files not inside those.
func (r *repo) fluxResources(dir string) ([]string, error) {
	info, err := os.Stat(filepath.Join(r.root, filepath.FromSlash(dir)))
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	under := func(p string) bool { return dir == "." || p == dir || strings.HasPrefix(p, dir+"/") }
	var out []string
	for _, k := range r.kustomizationDirs() {
		if !under(k) || k == dir {
			continue
		}
		// Only the topmost: an inner one is part of the outer's build.
		inner := false
		for p := path.Dir(k); under(p) && p != dir && p != "."; p = path.Dir(p) {
			if _, ok := r.kustomizations[p]; ok {
				inner = true
			}
		}
		if !inner {
			out = append(out, k)
		}
	}
	for _, d := range r.looseDirs() {
		if under(d) {
			out = append(out, r.loose[d]...)
		}
	}
	slices.Sort(out)
	return out, nil
}

// build runs kustomize on dir as Flux does (no load restrictions, no
// plugins), reading content as the kustomization file kfile, and finds
// the file each object came from with kustomize's origin annotations.
//
// Origin tracking also annotates every object with every transformer that
// ran, which for an overlay patching each of a thousand tenants is a
// million annotation rewrites. So when the kustomization patches, the
// origins come from a second build without its own patches, whose objects
// have the same ids: patches change content, not names.
func (r *repo) build(dir, kfile string, content []byte) ([]*object, error) {
	variant, patched, err := originVariant(content)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kfile, err)
	}
	built := variant
	if patched {
		built = content
	}
	m, err := r.kustomize(dir, kfile, built)
	if err != nil {
		return nil, err
	}
	origins := map[resid.ResId]*resource.Origin{}
	if patched {
		// Without them the build can only fail where the real one did
		// not if a later transformer needs the patched content; objects
		// then point at the kustomization file.
		if om, err := r.kustomize(dir, kfile, variant); err == nil {
			for _, res := range om.Resources() {
				if origin, err := res.GetOrigin(); err == nil {
					origins[res.CurId()] = origin
				}
			}
		}
	}
	objects := make([]*object, 0, m.Size())
	for _, res := range m.Resources() {
		origin, err := res.GetOrigin()
		if err != nil {
			return nil, err
		}
		if patched {
			origin = origins[res.CurId()]
		}
		data, err := res.MarshalJSON()
		if err != nil {
			return nil, err
		}
		o := &object{repo: r, file: kfile}
		// Numbers as int64 and float64, as the apiserver decodes them.
		if err := utiljson.Unmarshal(data, &o.obj); err != nil {
			return nil, err
		}
		if origin != nil {
			switch {
			case origin.ConfiguredIn != "":
				o.file = path.Join(dir, filepath.ToSlash(origin.ConfiguredIn))
				o.generatedBy = cmp.Or(origin.ConfiguredBy.Kind, "generator")
			case origin.Path != "":
				o.file = path.Join(dir, filepath.ToSlash(origin.Path))
			}
		}
		stripOrigin(o.obj)
		o.gvk = schema.FromAPIVersionAndKind(res.GetApiVersion(), res.GetKind())
		o.name, o.namespace = res.GetName(), res.GetNamespace()
		objects = append(objects, o)
	}
	return objects, nil
}

// kustomize builds dir with content served as its kustomization file.
func (r *repo) kustomize(dir, kfile string, content []byte) (resmap.ResMap, error) {
	fsys := &overlayFS{FileSystem: filesys.MakeFsOnDisk(), path: filepath.Join(r.root, filepath.FromSlash(kfile)), data: content}
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsNone
	buildMu.Lock()
	defer buildMu.Unlock()
	return krusty.MakeKustomizer(opts).Run(fsys, filepath.Join(r.root, filepath.FromSlash(dir)))
}

// patchFields are the fields of a kustomization holding patches.
var patchFields = []string{"patches", "patchesStrategicMerge", "patchesJson6902"}

// stripOrigin removes the annotation lint asked kustomize for, leaving the
// object as Flux would apply it.
func stripOrigin(obj map[string]any) {
	meta, _ := obj["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	delete(annotations, originAnnotation)
	if annotations != nil && len(annotations) == 0 {
		delete(meta, "annotations")
	}
}

// originVariant is a kustomization with originAnnotations added to its
// buildMetadata, which kustomize passes down to the kustomizations it takes
// in, and without its own patches; patched reports whether it had any.
func originVariant(content []byte) (variant []byte, patched bool, err error) {
	node, err := kyaml.Parse(string(content))
	if err != nil {
		return nil, false, err
	}
	for _, field := range patchFields {
		if f := node.Field(field); f != nil && len(f.Value.Content()) > 0 {
			patched = true
		}
		if err := node.PipeE(kyaml.Clear(field)); err != nil {
			return nil, false, err
		}
	}
	list, err := node.Pipe(kyaml.LookupCreate(kyaml.SequenceNode, "buildMetadata"))
	if err != nil {
		return nil, false, err
	}
	if !slices.ContainsFunc(list.Content(), func(n *kyaml.Node) bool { return n.Value == types.OriginAnnotations }) {
		list.YNode().Content = append(list.YNode().Content, kyaml.NewStringRNode(types.OriginAnnotations).YNode())
	}
	out, err := node.String()
	return []byte(out), patched, err
}

// overlayFS serves one file from memory and the rest from disk: the
// kustomization file lint rewrote or generated.
type overlayFS struct {
	filesys.FileSystem
	path string
	data []byte
}

func (f *overlayFS) ReadFile(p string) ([]byte, error) {
	if filepath.Clean(p) == f.path {
		return f.data, nil
	}
	return f.FileSystem.ReadFile(p)
}

func (f *overlayFS) Exists(p string) bool {
	return filepath.Clean(p) == f.path || f.FileSystem.Exists(p)
}
