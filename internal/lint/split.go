package lint

import (
	"bytes"
	"path/filepath"
	"regexp"
	"slices"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// splitLeaves is how many resource files one split build takes in at most:
// kustomize matches every patch of a build against every object of it.
const splitLeaves = 64

// splitBuilds turns splitPatched on; tests compare the findings without.
var splitBuilds = true

// splitPatched builds the kustomization of dir that plan splits, whose
// build without its patches made unpatched, in parts: kustomize applies a fleet
// overlay's thousand patches each to all thousand objects of the build, a
// million matches. When the overlay only takes in files, through
// kustomizations that only list resources, and each patch targets objects
// by a plain name, a patch can touch only the files holding an object of
// that name (and no kustomization renames one); each part is a kustomize
// build of some of those files with the patches naming their objects, in
// their order. The objects come back in unpatched's order, which is the
// build's: patches kept every object's id. ok is false when the split does
// not apply or any part fails; the whole build then says what it says.
func (r *repo) splitPatched(fsys filesys.FileSystem, dir, kfile string, plan *splitPlan, unpatched []*resource.Resource) (objects []*resource.Resource, ok bool) {
	k, leaves := plan.kustomization, plan.leaves
	absDir := filepath.Join(r.root, filepath.FromSlash(dir))
	leafIndex := map[string]int{}
	for i, leaf := range leaves {
		leafIndex[leaf] = i
	}
	// The files holding each name, from the origins the unpatched build
	// recorded.
	holding := map[string][]int{}
	for _, res := range unpatched {
		origin, err := res.GetOrigin()
		if err != nil || origin == nil || origin.Path == "" || origin.ConfiguredIn != "" {
			return nil, false
		}
		i, found := leafIndex[filepath.Join(absDir, filepath.FromSlash(origin.Path))]
		if !found {
			return nil, false
		}
		holding[res.GetName()] = append(holding[res.GetName()], i)
	}
	patches, _ := k["patches"].([]any)
	// Files a patch names together are built together.
	parent := make([]int, len(leaves))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	targets := make([][]int, len(patches))
	for j, p := range patches {
		name, _ := plainTarget(p)
		targets[j] = holding[name]
		for _, i := range targets[j] {
			parent[find(i)] = find(targets[j][0])
		}
	}
	// Parts of whole groups, in file order, of up to splitLeaves files.
	groups := map[int][]int{}
	var roots []int
	for i := range leaves {
		root := find(i)
		if _, seen := groups[root]; !seen {
			roots = append(roots, root)
		}
		groups[root] = append(groups[root], i)
	}
	partOf := make([]int, len(leaves))
	var parts [][]int
	for _, root := range roots {
		if len(parts) == 0 || len(parts[len(parts)-1])+len(groups[root]) > splitLeaves {
			parts = append(parts, nil)
		}
		for _, i := range groups[root] {
			partOf[i] = len(parts) - 1
		}
		parts[len(parts)-1] = append(parts[len(parts)-1], groups[root]...)
	}
	partPatches := make([][]any, len(parts))
	for j, p := range patches {
		part := 0 // a patch naming no object matches none in any part
		if len(targets[j]) > 0 {
			part = partOf[targets[j][0]]
		}
		partPatches[part] = append(partPatches[part], p)
	}
	byID := map[string]*resource.Resource{}
	for n, part := range parts {
		files := make([]string, len(part))
		for i, leaf := range part {
			files[i] = leaves[leaf]
		}
		pk := map[string]any{}
		if len(partPatches[n]) > 0 {
			pk["patches"] = partPatches[n]
		}
		m, err := r.buildPart(fsys, dir, kfile, k, files, pk)
		if err != nil {
			return nil, false
		}
		for _, res := range m.Resources() {
			id := res.CurId().String()
			if byID[id] != nil {
				return nil, false
			}
			byID[id] = res
		}
	}
	if len(byID) != len(unpatched) {
		return nil, false
	}
	objects = make([]*resource.Resource, len(unpatched))
	for i, res := range unpatched {
		if objects[i] = byID[res.CurId().String()]; objects[i] == nil {
			return nil, false
		}
	}
	return objects, true
}

// splitPlan is what splitPatched and unpatchedInParts split a build by: the
// kustomization, parsed, and the files it takes in, absolute.
type splitPlan struct {
	kustomization map[string]any
	leaves        []string
}

// splitFiles reads the split of the kustomization content of dir; nil when
// splitPatched may not split its build.
func (r *repo) splitFiles(fsys filesys.FileSystem, dir string, content []byte) *splitPlan {
	k, ok := splitKustomization(content)
	if !ok {
		return nil
	}
	leaves, ok := r.leaves(fsys, filepath.Join(r.root, filepath.FromSlash(dir)), k["resources"], map[string]bool{})
	if !ok || len(leaves) == 0 {
		return nil
	}
	return &splitPlan{kustomization: k, leaves: leaves}
}

// unpatchedInParts builds the kustomization of dir that plan splits
// without its patches and with origin annotations, as originsOf needs it
// to split the build with them, in parts of splitLeaves files: kustomize checks each object it takes in against every one
// before it, half a million id comparisons for a thousand objects. The
// parts keep the build's order; an id in two parts, which one build
// refuses, makes splitPatched give up on the whole.
func (r *repo) unpatchedInParts(fsys filesys.FileSystem, dir, kfile string, plan *splitPlan) ([]*resource.Resource, bool) {
	var unpatched []*resource.Resource
	for part := range slices.Chunk(plan.leaves, splitLeaves) {
		m, err := r.buildPart(fsys, dir, kfile, plan.kustomization, part, map[string]any{"buildMetadata": []string{types.OriginAnnotations}})
		if err != nil {
			return nil, false
		}
		unpatched = append(unpatched, m.Resources()...)
	}
	return unpatched, true
}

// buildPart builds, in dir, a kustomization of k's kind taking in files
// (absolute) with the fields of pk.
func (r *repo) buildPart(fsys filesys.FileSystem, dir, kfile string, k map[string]any, files []string, pk map[string]any) (resmap.ResMap, error) {
	absDir := filepath.Join(r.root, filepath.FromSlash(dir))
	resources := make([]string, len(files))
	for i, file := range files {
		rel, err := filepath.Rel(absDir, file)
		if err != nil {
			return nil, err
		}
		resources[i] = filepath.ToSlash(rel)
	}
	pk["resources"] = resources
	for _, key := range []string{"apiVersion", "kind"} {
		if v, set := k[key]; set {
			pk[key] = v
		}
	}
	content, err := yaml.Marshal(pk)
	if err != nil {
		return nil, err
	}
	return r.kustomize(fsys, dir, kfile, content)
}

// splittable reports whether splitPatched may split the build of the
// kustomization content: it lists resources and patches, nothing else,
// and every patch targets a plain name.
func splittable(content []byte) bool {
	_, ok := splitKustomization(content)
	return ok
}

func splitKustomization(content []byte) (map[string]any, bool) {
	var k map[string]any
	if err := yaml.Unmarshal(content, &k); err != nil {
		return nil, false
	}
	for key := range k {
		if !slices.Contains([]string{"apiVersion", "kind", "resources", "patches"}, key) {
			return nil, false
		}
	}
	if kind, _ := k["kind"].(string); kind != "" && kind != "Kustomization" {
		return nil, false
	}
	patches, _ := k["patches"].([]any)
	if len(patches) == 0 {
		return nil, false
	}
	for _, p := range patches {
		if _, ok := plainTarget(p); !ok {
			return nil, false
		}
	}
	return k, true
}

// plainTarget is the name a patch of a kustomization targets when it is a
// plain name, not a pattern, and the patch may not rename what it patches.
func plainTarget(p any) (string, bool) {
	patch, _ := p.(map[string]any)
	if _, set := patch["options"]; set {
		return "", false
	}
	target, _ := patch["target"].(map[string]any)
	name, _ := target["name"].(string)
	if name == "" || regexp.QuoteMeta(name) != name {
		return "", false
	}
	return name, true
}

// leaves lists the files, absolute, that resources of the kustomization
// in dir take in, through kustomizations listing nothing but resources;
// ok is false for anything else a build of dir would take in, and for a
// file taken in twice.
func (r *repo) leaves(fsys filesys.FileSystem, dir string, resources any, seen map[string]bool) (leaves []string, ok bool) {
	list, isList := resources.([]any)
	if resources != nil && !isList {
		return nil, false
	}
	for _, entry := range list {
		p, _ := entry.(string)
		if p == "" || isRemote(p) || filepath.IsAbs(p) {
			return nil, false
		}
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if rel := r.relPath(abs); rel == ".." || len(rel) > 2 && rel[:3] == "../" || seen[abs] {
			return nil, false
		}
		seen[abs] = true
		if !fsys.IsDir(abs) {
			data, err := fsys.ReadFile(abs)
			// Annotations kustomize keeps between builds would give the
			// objects other original names.
			if err != nil || bytes.Contains(data, []byte("internal.config.kubernetes.io")) {
				return nil, false
			}
			leaves = append(leaves, abs)
			continue
		}
		var kfile string
		for _, name := range konfig.RecognizedKustomizationFileNames() {
			if fsys.Exists(filepath.Join(abs, name)) {
				if kfile != "" {
					return nil, false
				}
				kfile = filepath.Join(abs, name)
			}
		}
		if kfile == "" {
			return nil, false
		}
		data, err := fsys.ReadFile(kfile)
		if err != nil {
			return nil, false
		}
		var k map[string]any
		if err := yaml.Unmarshal(data, &k); err != nil {
			return nil, false
		}
		for key := range k {
			if key != "apiVersion" && key != "kind" && key != "resources" {
				return nil, false
			}
		}
		if kind, _ := k["kind"].(string); kind != "" && kind != "Kustomization" {
			return nil, false
		}
		below, ok := r.leaves(fsys, abs, k["resources"], seen)
		if !ok {
			return nil, false
		}
		leaves = append(leaves, below...)
	}
	return leaves, true
}
