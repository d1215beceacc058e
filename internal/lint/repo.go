package lint

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/fluxcd/pkg/sourceignore"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// repo is one repository lint reads: the fleet or a tenant's.
type repo struct {
	// tenant owns the repository; empty for the fleet.
	tenant string
	// root is absolute, its symlinks resolved.
	root string
	// kustomizations by directory, slash-separated and relative to root.
	kustomizations map[string]*kustomization
	// loose maps each directory outside every kustomization to the YAML
	// files in it, which Flux applies as plain manifests.
	loose map[string][]string
	// static are the findings of reading the kustomization files.
	static []Finding
	// badIgnores are the .sourceignore files that are not regular files of
	// at most maxIgnoreFile bytes: Flux's generator reads every one below
	// a directory it builds with a plain open, past os.Root and the
	// bounds, so lint builds no directory holding one.
	badIgnores []string
	// files counts the repository's files, which bound what a build reads.
	files int
	// maxReads bounds the file system calls of each build; zero derives
	// the bound from files.
	maxReads int
	// openapi is set when a kustomization sets kustomize's OpenAPI schema,
	// a global its builds must not share.
	openapi bool

	// memo shares builds with the other repositories of the run.
	memo *memo

	mu      sync.Mutex
	sources map[string]*sourceFile
	units   map[string]*unit
}

// kustomization is one kustomization file and what it refers to.
type kustomization struct {
	dir  string
	file string
	node *yaml.Node
	// component is a kustomize Component, built only as part of others.
	component bool
	// refs are the kustomization directories of this repository it takes
	// in as resources, bases or components.
	refs []string
	// blocked is set when the kustomization names a remote base or a path
	// outside the repository: Flux could not build it, nor lint offline.
	blocked bool
}

// scanRepo finds the kustomizations and loose manifests below root and
// checks the paths the kustomizations name.
func scanRepo(root, tenant string) (*repo, error) {
	r := &repo{tenant: tenant, root: root, kustomizations: map[string]*kustomization{}, loose: map[string][]string{},
		sources: map[string]*sourceFile{}, units: map[string]*unit{}}
	var yamlFiles []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := r.relPath(p)
		if d.IsDir() {
			// .git, .github and the like are not manifests Flux applies.
			if rel != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		r.files++
		if d.Name() == sourceignore.IgnoreFile {
			if info, err := d.Info(); err != nil || !info.Mode().IsRegular() || info.Size() > maxIgnoreFile {
				r.badIgnores = append(r.badIgnores, rel)
				r.static = append(r.static, r.finding(RuleBuild, rel, 1, fmt.Sprintf(
					"not a regular file of at most %d bytes, which Flux's generator reads with no bound, past the repository's; allowed: a .sourceignore that is one; Flux Kustomizations whose path holds it are not built, their files judged one by one", maxIgnoreFile)))
			}
		}
		if strings.HasPrefix(d.Name(), ".") {
			return nil // .sops.yaml and the like, which Flux's sources leave out
		}
		if slices.Contains(konfig.RecognizedKustomizationFileNames(), d.Name()) {
			dir := path.Dir(rel)
			if k, ok := r.kustomizations[dir]; ok {
				// kustomize refuses the directory; the build says so.
				k.file = rel
				return nil
			}
			r.kustomizations[dir] = &kustomization{dir: dir, file: rel}
			return nil
		}
		if ext := path.Ext(rel); ext == ".yaml" || ext == ".yml" {
			yamlFiles = append(yamlFiles, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read repository %s: %w", root, err)
	}
	for _, f := range yamlFiles {
		if !r.inKustomization(path.Dir(f)) {
			r.loose[path.Dir(f)] = append(r.loose[path.Dir(f)], f)
		}
	}
	for _, dir := range r.kustomizationDirs() {
		r.checkKustomization(r.kustomizations[dir])
	}
	r.blockMultiplied()
	return r, nil
}

// firstAlias is the first alias node below n, nil if none.
func firstAlias(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		return n
	}
	for _, c := range n.Content {
		if a := firstAlias(c); a != nil {
			return a
		}
	}
	return nil
}

// blockMultiplied blocks the kustomizations whose build would load more
// kustomizations than the repository could need: kustomize loads one each
// time it is taken in, so two that take in the same one double the loads
// with every level. The first to cross the bound is reported; those
// taking it in are blocked through it.
func (r *repo) blockMultiplied() {
	max := minLoads + loadsPerKustomization*len(r.kustomizations)
	loads := map[string]int{}
	var count func(dir string) int
	count = func(dir string) int {
		if n, ok := loads[dir]; ok {
			return n
		}
		loads[dir] = 1 // a cycle, which the build reports
		n := 1
		for _, ref := range r.kustomizations[dir].refs {
			n = min(n+count(ref), max+1)
		}
		loads[dir] = n
		return n
	}
	for _, dir := range r.kustomizationDirs() {
		k := r.kustomizations[dir]
		if count(dir) <= max || slices.ContainsFunc(k.refs, func(ref string) bool { return count(ref) > max }) {
			continue
		}
		k.blocked = true
		r.static = append(r.static, r.finding(RuleBuild, k.file, 1,
			fmt.Sprintf("building %s would load more than %d kustomizations (kustomize loads one each time it is taken in, and these take in the same ones again and again); allowed: 1,000 and 10 per kustomization of the repository; builds including %s are not run", dir, max, dir)))
	}
}

// readFile reads a file of the repository, slash-separated and relative
// to its root, never past it: a symlink leading out is an error, so that a
// hostile repository cannot make lint print a file of the machine it runs
// on. The root is opened for each read, as lint may hold a thousand
// repositories.
func (r *repo) readFile(file string) ([]byte, error) {
	root, err := os.OpenRoot(r.root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	data, err := root.ReadFile(filepath.FromSlash(file))
	if err != nil {
		return nil, err
	}
	if err := checkAliases(data); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return data, nil
}

// stat is os.Stat within the repository, as readFile reads.
func (r *repo) stat(file string) (fs.FileInfo, error) {
	root, err := os.OpenRoot(r.root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.Stat(filepath.FromSlash(file))
}

// relPath is the slash-separated path of p below the root.
func (r *repo) relPath(p string) string {
	rel, err := filepath.Rel(r.root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
}

// inKustomization reports whether dir or a directory above it, up to the
// root, holds a kustomization.
func (r *repo) inKustomization(dir string) bool {
	for {
		if _, ok := r.kustomizations[dir]; ok {
			return true
		}
		if dir == "." {
			return false
		}
		dir = path.Dir(dir)
	}
}

// kustomizationDirs lists the kustomization directories in order.
func (r *repo) kustomizationDirs() []string {
	dirs := make([]string, 0, len(r.kustomizations))
	for dir := range r.kustomizations {
		dirs = append(dirs, dir)
	}
	slices.Sort(dirs)
	return dirs
}

// looseDirs lists the directories holding loose manifests in order.
func (r *repo) looseDirs() []string {
	dirs := make([]string, 0, len(r.loose))
	for dir := range r.loose {
		dirs = append(dirs, dir)
	}
	slices.Sort(dirs)
	return dirs
}

// finding is a finding in this repository; a tenant's are prefixed with the
// tenant, so that the text output says whose repository it is.
func (r *repo) finding(rule Rule, file string, line int, msg string) Finding {
	if r.tenant != "" {
		msg = "tenant " + r.tenant + ": " + msg
	}
	return Finding{Repo: r.tenant, File: file, Line: line, Rule: rule.ID, Severity: SeverityError, Message: msg}
}

// entry is one path a kustomization names.
type entry struct {
	// field is where, such as resources[2] or patches[0].path.
	field string
	value string
	// dir may name a directory with a kustomization of its own.
	dir  bool
	line int
}

// checkKustomization reads a kustomization file, reports the remote bases
// and the paths leaving the repository it names, and notes the
// kustomization directories it takes in.
func (r *repo) checkKustomization(k *kustomization) {
	data, err := r.readFile(k.file)
	if err != nil {
		return // the build reports it
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return // the build reports it
	}
	k.node = doc.Content[0]
	if alias := firstAlias(k.node); alias != nil {
		// entries reads paths as written; an alias could stand for a
		// remote base or a path outside that no check below would see.
		k.blocked = true
		r.static = append(r.static, r.finding(RuleBuild, k.file, alias.Line,
			fmt.Sprintf("a YAML alias (*%s): lint judges each path of a kustomization as written; allowed: no aliases in kustomization files; builds including %s are not run", alias.Value, k.dir)))
		return
	}
	k.component = scalar(k.node, "kind") == "Component"
	if child(k.node, "openapi") != nil {
		r.openapi = true
	}
	for _, e := range entries(k.node) {
		switch {
		case isRemote(e.value):
			k.blocked = true
			r.static = append(r.static, r.finding(RuleRemoteBase, k.file, e.line,
				fmt.Sprintf("%s: remote base %q: Flux runs with --no-remote-bases and lint runs offline; builds including %s are not run; the local files they list are judged one by one, without its patches, namespace or name changes", e.field, e.value, k.dir)))
		case r.escapes(k.dir, e.value):
			k.blocked = true
			r.static = append(r.static, r.finding(RulePathEscape, k.file, e.line,
				fmt.Sprintf("%s: %q resolves outside the repository; allowed: paths within it; builds including %s are not run; the local files they list are judged one by one, without its patches, namespace or name changes", e.field, e.value, k.dir)))
		case e.dir:
			target := path.Join(k.dir, e.value)
			if _, ok := r.kustomizations[target]; ok {
				k.refs = append(k.refs, target)
			}
		}
	}
}

// isRemote reports whether a kustomization path is a URL kustomize would
// fetch: any scheme, scp-style git, or a repository spec such as
// github.com/org/repo//dir?ref=v1.
func isRemote(p string) bool {
	if strings.Contains(p, "://") || strings.HasPrefix(p, "git@") {
		return true
	}
	return (&resource.Origin{}).Append(p).Repo != ""
}

// escapes reports whether p, named by the kustomization in dir, resolves
// outside the repository, lexically or through a symlink.
func (r *repo) escapes(dir, p string) bool {
	if filepath.IsAbs(p) {
		return true
	}
	joined := path.Join(dir, p)
	if joined == ".." || strings.HasPrefix(joined, "../") {
		return true
	}
	real, err := filepath.EvalSymlinks(filepath.Join(r.root, filepath.FromSlash(joined)))
	if err != nil {
		return false // missing: the build reports it
	}
	rel, err := filepath.Rel(r.root, real)
	return err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// pathFields are the fields of a kustomization naming paths: lists of
// strings, or lists of objects with the path in a key.
var pathFields = []struct {
	name string
	key  string
	dir  bool
}{
	{name: "resources", dir: true},
	{name: "bases", dir: true},
	{name: "components", dir: true},
	{name: "crds"},
	{name: "configurations"},
	{name: "generators"},
	{name: "transformers"},
	{name: "validators"},
	{name: "patchesStrategicMerge"},
	{name: "patches", key: "path"},
	{name: "patchesJson6902", key: "path"},
	{name: "replacements", key: "path"},
}

// entries lists the paths a kustomization names, with their lines. Inline
// patches and plugin configurations, which span lines, are not paths.
func entries(k *yaml.Node) []entry {
	var out []entry
	add := func(field, value string, dir bool, line int) {
		if value != "" && !strings.Contains(value, "\n") {
			out = append(out, entry{field: field, value: value, dir: dir, line: line})
		}
	}
	for _, f := range pathFields {
		list := child(k, f.name)
		if list == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		for i, item := range list.Content {
			field := fmt.Sprintf("%s[%d]", f.name, i)
			switch {
			case f.key == "" && item.Kind == yaml.ScalarNode:
				add(field, item.Value, f.dir, item.Line)
			case f.key != "" && item.Kind == yaml.MappingNode:
				if v := child(item, f.key); v != nil && v.Kind == yaml.ScalarNode {
					add(field+"."+f.key, v.Value, false, v.Line)
				}
			}
		}
	}
	for _, gen := range []string{"configMapGenerator", "secretGenerator"} {
		list := child(k, gen)
		if list == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		for i, item := range list.Content {
			for _, key := range []string{"files", "envs"} {
				files := child(item, key)
				if files == nil || files.Kind != yaml.SequenceNode {
					continue
				}
				for j, f := range files.Content {
					// files take an optional key: key=path.
					_, p, ok := strings.Cut(f.Value, "=")
					if !ok || key == "envs" {
						p = f.Value
					}
					add(fmt.Sprintf("%s[%d].%s[%d]", gen, i, key, j), p, false, f.Line)
				}
			}
			if env := child(item, "env"); env != nil && env.Kind == yaml.ScalarNode {
				add(fmt.Sprintf("%s[%d].env", gen, i), env.Value, false, env.Line)
			}
		}
	}
	if openapi := child(k, "openapi"); openapi != nil {
		if p := child(openapi, "path"); p != nil && p.Kind == yaml.ScalarNode {
			add("openapi.path", p.Value, false, p.Line)
		}
	}
	return out
}

// child is the value of key in a mapping node, nil if absent.
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// scalar is the string value of key in a mapping node.
func scalar(n *yaml.Node, key string) string {
	if v := child(n, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// blocked reports whether the kustomization in dir, or one it takes in,
// names a remote base or a path outside the repository.
func (r *repo) blocked(dir string) bool {
	return r.reaches(dir, func(k *kustomization) bool { return k.blocked })
}

// reaches reports whether the kustomization in dir, or one it takes in
// transitively, satisfies match.
func (r *repo) reaches(dir string, match func(*kustomization) bool) bool {
	seen := map[string]bool{}
	var walk func(string) bool
	walk = func(d string) bool {
		if seen[d] {
			return false
		}
		seen[d] = true
		k := r.kustomizations[d]
		if k == nil {
			return false
		}
		if match(k) {
			return true
		}
		return slices.ContainsFunc(k.refs, walk)
	}
	return walk(dir)
}
