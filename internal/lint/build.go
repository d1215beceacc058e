package lint

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/fluxcd/pkg/kustomize"
	"github.com/fluxcd/pkg/sourceignore"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/resid"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/yaml"
)

// originAnnotation is where kustomize records the file an object came from
// when buildMetadata lists originAnnotations.
const originAnnotation = "config.kubernetes.io/origin"

// openapiMu guards kustomize's OpenAPI schema, a global: builds read it
// together once the built-in one is loaded, and a build whose kustomization
// sets its own (openapi:) runs alone and puts the built-in one back, as
// fluxcd/pkg/kustomize.Build does around every build.
var (
	openapiMu   sync.RWMutex
	openapiOnce sync.Once
)

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

// unit is the result of building one directory, built once however many
// callers ask for it.
type unit struct {
	once    sync.Once
	dir     string
	objects []*object
	err     error
}

// errBlocked is the build result of a kustomization naming a remote base
// or a path outside the repository, which lint does not build.
var errBlocked = errors.New("names a remote base or a path outside the repository")

// Ways a directory is built besides Flux's (fluxUnit).
const (
	// asKustomization builds the directory's own kustomization file, as
	// kustomize build does.
	asKustomization = "kustomization"
	// asManifests builds the directory's loose manifests, not its
	// subdirectories: each of those is checked on its own.
	asManifests = "manifests"
)

// unit returns the unit cached under key, built by build on first use.
func (r *repo) unit(key, dir string, build func(u *unit)) *unit {
	r.mu.Lock()
	u, ok := r.units[key]
	if !ok {
		u = &unit{dir: dir}
		r.units[key] = u
	}
	r.mu.Unlock()
	u.once.Do(func() {
		build(u)
		if u.err != nil && !errors.Is(u.err, errBlocked) {
			u.err = fmt.Errorf("%s", r.rel(u.err.Error()))
		}
	})
	return u
}

// unitFor builds dir the given way once. A directory with a kustomization
// file is always built from it.
func (r *repo) unitFor(ctx context.Context, dir, how string) *unit {
	if _, ok := r.kustomizations[dir]; ok {
		how = asKustomization
	}
	return r.unit(how+":"+dir, dir, func(u *unit) {
		if how == asKustomization {
			if r.blocked(dir) {
				// Building would fetch the remote base: its finding says why not.
				u.err = errBlocked
				return
			}
			kfile := r.kustomizations[dir].file
			content, err := r.readFile(kfile)
			if err != nil {
				u.err = err
				return
			}
			u.objects, u.err = r.build(ctx, dir, kfile, content)
			return
		}
		content, err := r.manifests(dir)
		if err != nil {
			u.err = err
			return
		}
		u.objects, u.err = r.build(ctx, dir, path.Join(dir, konfig.DefaultKustomizationFileName()), content)
	})
}

// fluxIgnore is what source-controller leaves out of every artifact, and so
// out of what kustomize-controller's generator lists.
var fluxIgnore = strings.Join([]string{sourceignore.ExcludeVCS, sourceignore.ExcludeExt, sourceignore.ExcludeCI, sourceignore.ExcludeExtra}, ",")

// fluxUnit builds dir as kustomize-controller does for the Flux
// Kustomization ks: the kustomization Flux's generator writes there (dir's
// own with ks's targetNamespace, patches, images and the like, or one
// listing every manifest and kustomization below dir), built on a file
// system that refuses paths outside the repository. A kustomization ks
// adds nothing to is the same build as unitFor's.
func (r *repo) fluxUnit(ctx context.Context, dir string, ks map[string]any) *unit {
	for _, f := range r.badIgnores {
		if under(dir, path.Dir(f)) {
			return r.unit("flux-blocked:"+dir, dir, func(u *unit) { u.err = errBlocked })
		}
	}
	abs := filepath.Join(r.root, filepath.FromSlash(dir))
	generate := func(ks map[string]any) ([]byte, string, kustomize.Action, error) {
		g := kustomize.NewGeneratorWithIgnore(r.root, strings.ReplaceAll(fluxIgnore, ",", "\n"), unstructured.Unstructured{Object: ks})
		return g.GenerateManifest(abs)
	}
	content, kfile, action, err := generate(ks)
	if err == nil && action == kustomize.UnchangedAction {
		if plain, _, _, err := generate(map[string]any{}); err == nil && bytes.Equal(plain, content) {
			return r.unitFor(ctx, dir, asKustomization)
		}
	}
	if err != nil {
		return r.unit("flux-error:"+dir+":"+err.Error(), dir, func(u *unit) { u.err = err })
	}
	kfile = r.relPath(kfile)
	return r.unit(fmt.Sprintf("flux:%s:%x", dir, sha256.Sum256(content)), dir, func(u *unit) {
		if r.blockedBuild(dir, content) {
			u.err = errBlocked
			return
		}
		u.objects, u.err = r.build(ctx, dir, kfile, content)
	})
}

// blockedBuild reports whether a kustomization for dir with content takes
// in a kustomization lint does not build.
func (r *repo) blockedBuild(dir string, content []byte) bool {
	if _, ok := r.kustomizations[dir]; ok && r.blocked(dir) {
		return true
	}
	k := &types.Kustomization{}
	if err := yaml.Unmarshal(content, k); err != nil {
		return false // the build says what is wrong
	}
	for _, res := range slices.Concat(k.Resources, k.Components) {
		if r.blocked(path.Join(dir, res)) {
			return true
		}
	}
	return false
}

// under reports whether p is dir or below it.
func under(dir, p string) bool {
	return dir == "." || p == dir || strings.HasPrefix(p, dir+"/")
}

// filesUnder lists the loose YAML files below dir.
func (r *repo) filesUnder(dir string) []string {
	var files []string
	for _, d := range r.looseDirs() {
		if under(dir, d) {
			files = append(files, r.loose[d]...)
		}
	}
	return files
}

// manifests is a kustomization listing the YAML files of a loose directory
// that hold Kubernetes objects. No Flux Kustomization names such a
// directory, so other YAML there (CI configuration, Helm values) is not
// applied and is left out.
func (r *repo) manifests(dir string) ([]byte, error) {
	k := &types.Kustomization{}
	k.FixKustomization()
	for _, file := range r.loose[dir] {
		ok, err := r.holdsManifests(file)
		if err != nil {
			return nil, err
		}
		if ok {
			k.Resources = append(k.Resources, path.Base(file))
		}
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
	data, err := r.readFile(file)
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

// build runs kustomize on dir as Flux does, reading content as the
// kustomization file kfile, and finds the file each object came from with
// kustomize's origin annotations.
//
// Origin tracking also annotates every object with every transformer that
// ran, which for an overlay patching each of a thousand tenants is a
// million annotation rewrites. So when the kustomization patches, the
// origins come from a second build without its own patches, whose objects
// have the same ids: patches change content, not names.
func (r *repo) build(ctx context.Context, dir, kfile string, content []byte) ([]*object, error) {
	key := fmt.Sprintf("%s\x00%s\x00%x", dir, kfile, sha256.Sum256(content))
	return r.memo.build(ctx, r, key, func(fsys filesys.FileSystem) ([]*object, error) {
		return r.buildOn(fsys, dir, kfile, content)
	})
}

// buildOn is build on the file system fsys.
func (r *repo) buildOn(fsys filesys.FileSystem, dir, kfile string, content []byte) ([]*object, error) {
	variant, patched, err := originVariant(content)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kfile, err)
	}
	var built []*resource.Resource
	origins := map[resid.ResId]*resource.Origin{}
	if patched && splitBuilds && splittable(content) {
		// The build without patches comes first, to split the one with.
		built = r.originsOf(fsys, dir, kfile, variant, origins, content)
	}
	if built == nil {
		whole := variant
		if patched {
			whole = content
		}
		m, err := r.kustomize(fsys, dir, kfile, whole)
		if err != nil {
			return nil, err
		}
		built = m.Resources()
		if patched && len(origins) == 0 {
			// Without its patches the build can only fail where the
			// real one did not if a later transformer needs the patched
			// content; objects then point at the kustomization file.
			r.originsOf(fsys, dir, kfile, variant, origins, nil)
		}
	}
	objects := make([]*object, 0, len(built))
	for _, res := range built {
		origin, err := res.GetOrigin()
		if err != nil {
			return nil, err
		}
		if patched {
			origin = origins[res.CurId()]
		}
		o := &object{repo: r, file: kfile}
		if o.obj, err = objectOf(res); err != nil {
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

// originsOf builds variant, a kustomization without its patches, and
// records the origin of each object it builds; with content, the
// kustomization with them, it returns content's build split by
// splitPatched, nil if that does not apply.
func (r *repo) originsOf(fsys filesys.FileSystem, dir, kfile string, variant []byte, origins map[resid.ResId]*resource.Origin, content []byte) []*resource.Resource {
	var plan *splitPlan
	var unpatched []*resource.Resource
	if content != nil {
		if plan = r.splitFiles(fsys, dir, content); plan != nil {
			unpatched, _ = r.unpatchedInParts(fsys, dir, kfile, plan)
		}
	}
	if unpatched == nil {
		om, err := r.kustomize(fsys, dir, kfile, variant)
		if err != nil {
			return nil
		}
		unpatched = om.Resources()
	}
	for _, res := range unpatched {
		if origin, err := res.GetOrigin(); err == nil {
			origins[res.CurId()] = origin
		}
	}
	if plan == nil {
		return nil
	}
	built, _ := r.splitPatched(fsys, dir, kfile, plan, unpatched)
	return built
}

// resources reads resource files as kustomize does, List kinds expanded.
var resources = provider.NewDefaultDepProvider().GetResourceFactory()

// read decodes the objects of one file of the repository, unbuilt.
func (r *repo) read(file string) ([]*object, error) {
	data, err := r.readFile(file)
	if err != nil {
		return nil, err
	}
	list, err := resources.SliceFromBytes(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	objects := make([]*object, 0, len(list))
	for _, res := range list {
		obj, err := objectOf(res)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		objects = append(objects, &object{repo: r, file: file, obj: obj, gvk: schema.FromAPIVersionAndKind(res.GetApiVersion(), res.GetKind()),
			name: res.GetName(), namespace: res.GetNamespace()})
	}
	return objects, nil
}

// objectOf is a built resource as JSON decodes it: numbers as int64 and
// float64, as the apiserver decodes them.
func objectOf(res *resource.Resource) (map[string]any, error) {
	data, err := res.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	err = utiljson.Unmarshal(data, &obj)
	return obj, err
}

// kustomize builds dir with content served as its kustomization file, with
// fluxcd/pkg/kustomize.Build's options, on fsys: fluxcd/pkg/kustomize's
// secure file system, which refuses any path outside the repository. Build
// itself holds one lock around every build and reloads the OpenAPI schema
// in each, which would serialise lint's thousands of builds; openapiMu
// keeps what that lock is for.
func (r *repo) kustomize(fsys filesys.FileSystem, dir, kfile string, content []byte) (m resmap.ResMap, err error) {
	fsys = &overlayFS{FileSystem: fsys, path: filepath.Join(r.root, filepath.FromSlash(kfile)), data: content}
	openapiOnce.Do(func() { _ = openapi.Schema() })
	if r.openapi {
		openapiMu.Lock()
		defer func() {
			openapi.ResetOpenAPI()
			_ = openapi.Schema()
			openapiMu.Unlock()
		}()
	} else {
		openapiMu.RLock()
		defer openapiMu.RUnlock()
	}
	// kustomize panics on some malformed input, which Flux recovers from too.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("recovered from kustomize build panic: %v", p)
		}
	}()
	opts := &krusty.Options{LoadRestrictions: types.LoadRestrictionsNone, PluginConfig: types.DisabledPluginConfig()}
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

// overlayFS serves one file from memory and the rest from its file system:
// the kustomization file lint rewrote or Flux's generator wrote.
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
