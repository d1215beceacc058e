// Package hostilerepo writes hostile repositories from fuzz input, for the
// fuzz tests of the commands that read a repository someone else wrote
// (landlord lint, landlord tenant import). The input is the program of a
// small machine whose instructions make directories, kustomizations naming
// each other, ../ and absolute paths, symlinks out of the repository, to
// devices and in loops, deep nesting, large files, Flux objects, hand-made
// tenants with hostile names and garbage, so that a fuzzer explores the
// shape of a repository and not only its bytes.
package hostilerepo

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// Tenant names the tenant whose repository TenantRepo is, when the fleet
// holds it.
const Tenant = "team1"

// Tree is what Write wrote.
type Tree struct {
	// Root holds everything below; Write writes nothing outside it.
	Root string
	// Fleet and TenantRepo are the repositories.
	Fleet, TenantRepo string
	// Out is a directory for a command to write into, planted with
	// symlinks and files of its own by the program.
	Out string
	// Outside holds files of the machine no repository may reveal, each
	// holding Marker, which nothing inside Root holds.
	Outside string
	// Tmp is an empty directory, to be TMPDIR.
	Tmp string
	// Marker is random, so that no input can hold it.
	Marker string
}

// Op is an instruction of the machine. Each takes argument bytes after it;
// an input that ends early reads zeros.
type Op byte

// The instructions, with their arguments.
const (
	// OpDir NAME makes directory NAME, unless something of that name is
	// there, and enters it, if it is a directory.
	OpDir Op = iota
	// OpUp N leaves N%4+1 directories, not past the repository's root.
	OpUp
	// OpRepo N goes to the root of the fleet, the tenant's repository or
	// the output directory.
	OpRepo
	// OpKustomization FILE KIND N, then N%8 pairs FIELD REF REFARG: a
	// kustomization whose FIELDs name the paths REF makes.
	OpKustomization
	// OpFluxKustomization FILE NAME REF REFARG EXTRA: a Flux Kustomization of
	// the fleet's source applying the path REF makes.
	OpFluxKustomization
	// OpGitRepository FILE NAME NAMESPACE URL.
	OpGitRepository
	// OpHelmRelease FILE NAME REF REFARG: a chart at the path REF makes.
	OpHelmRelease
	// OpHandMade FILE LABEL ACCOUNT NAMESPACE REF REFARG: a tenant as flux
	// create tenant makes it, with the toolkit.fluxcd.io/tenant label
	// LABEL (none when its high bit is set), synced from the path REF
	// makes.
	OpHandMade
	// OpTenant FILE NAME NAMESPACE REF REFARG: a Landlord Tenant.
	OpTenant
	// OpSecret FILE NAME SOPS: a Secret, SOPS-shaped when SOPS is odd.
	OpSecret
	// OpCRD FILE RULE: a CRD with a CEL rule and an object of its kind.
	OpCRD
	// OpGarbage FILE N: the next N bytes of the input as FILE.
	OpGarbage
	// OpLarge FILE N: a ConfigMap of N×16 KiB.
	OpLarge
	// OpManyDocs FILE N: N×20 ConfigMaps.
	OpManyDocs
	// OpBomb FILE N: YAML aliases N%10+1 levels deep, each nine times the
	// one below, or with N's high bit (N&0x7f)×40 nested sequences.
	OpBomb
	// OpEnv FILE LINES: an env file.
	OpEnv
	// OpLinkSecret FILE WHICH: a symlink to a file outside.
	OpLinkSecret
	// OpLinkOutsideDir NAME WHICH: a symlink to a directory outside.
	OpLinkOutsideDir
	// OpLinkLoop NAME WHICH: a symlink to ., .., itself, the root, or
	// another symlink.
	OpLinkLoop
	// OpLinkInside NAME WHICH: a symlink to a file or directory of the
	// repository.
	OpLinkInside
	// OpLinkDevice FILE WHICH: a symlink to a device, /proc, or nothing.
	OpLinkDevice
	numOps
)

// Limits keep an input's tree small enough to run thousands of.
const (
	maxOps      = 96
	maxDepth    = 40
	maxBytes    = 8 << 20
	largeUnit   = 16 << 10
	outsideName = "outside"
)

// Names of directories, files and objects, hostile ones among them; the
// seeds name the indexes they use.
var (
	dirNames = []string{"base", "apps", "staging", "clusters", "tenants", "flux-system", "a", "b",
		"kustomization.yaml", "x.yaml", "...", " space ", "ünï", "[ab]", "*", "-", ".git", ".hidden", strings.Repeat("d", 200)}
	fileNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization", "a.yaml", "b.yml", "resources.yaml",
		"values.yaml", "secret.yaml", "app.env", ".sops.yaml", "README.md", "[a].yaml", "*.yaml", " .yaml", strings.Repeat("f", 200) + ".yaml"}
	// objectNames are tenant labels, accounts, namespaces and names.
	objectNames = []string{Tenant, "team2", "../../../escaped", "..", ".", "", "/etc/cron.d/x", "a/b", "a\x00b",
		strings.Repeat("a", 300), dnsName(250), dnsName(253), "Team_One", "-team", "team-", "x.yaml", "${TENANT}", "team1\n",
		"ünï", "flux-system", "kube-system", "a..b", "team1/../../x", `C:\x`, "\x00"}
	kustomizationFiles = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}
	// fields of a kustomization naming paths: a list of strings, or of
	// objects with the path in key.
	fields = []struct{ name, key string }{
		{"resources", ""}, {"bases", ""}, {"components", ""}, {"crds", ""}, {"patches", "path"},
		{"patchesStrategicMerge", ""}, {"patchesJson6902", "path"}, {"configMapGenerator", "files"},
		{"secretGenerator", "envs"}, {"configMapGenerator", "env"}, {"openapi", "path"}, {"generators", ""},
		{"transformers", ""}, {"replacements", "path"}, {"configurations", ""},
	}
	outsideFiles = []string{"secret.yaml", "kustomization.yaml", "unknown.yaml", "secret.env", "dir/handmade.yaml", "dir"}
	systemPaths  = []string{"/etc/passwd", "/dev/zero", "/proc/self/environ", "/", "/dev/stdin", "/proc/self/root/etc/passwd"}
	remotes      = []string{"https://example.com/x.yaml", "github.com/org/repo//dir?ref=v1", "git@github.com:org/repo", "ssh://git@example.com/r", "file:///etc/passwd", "oci://ghcr.io/x"}
	devices      = []string{"/dev/zero", "/dev/urandom", "/dev/stdin", "/proc/self/mem", "/nonexistent/x.yaml", "/proc/self/fd/0", "/dev/null"}
	urls         = []string{"https://git.example.com/teams/team1", "ssh://git@example.com/x", "file:///etc", "", "https://user:pass@example.com/x"}
	celRules     = []string{"self.x == 'a'", "self.items.all(a, self.items.all(b, self.items.all(c, a == b && b == c)))", "self.x.matches('(a+)+$')", "size(self.x) < 1000000000", "1 / 0 == 1"}
	envLines     = []string{"KEY=value", "../x=y", "bad key=1", "=", "KEY", "A=${B}", "\x00=\x00"}
)

// Ways OpKustomization and others make a path, REF.
const (
	RefDir         = iota // a directory or symlink of the repository, relative: REFARG picks it
	RefFile               // a file or symlink of the repository, relative
	RefTraversal          // ../ up to the repository's parent, then a file outside
	RefAbsolute           // an absolute path of a file outside
	RefOutsideDir         // an absolute path of the directory outside
	RefSystem             // /etc/passwd, /dev/zero, /proc/self/environ, /
	RefRemote             // a URL
	RefDots               // ., .., out of the repository and back in
	RefThroughLink        // a symlink of the repository, then a file below it
	RefGarbage            // the next REFARG%32 bytes of the input
	RefMissing            // a file that is not there
	RefLong               // a path 100 to 355 directories deep
	numRefs
)

// dnsName is a DNS subdomain of n characters: labels of 63 joined by dots.
func dnsName(n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strings.Repeat("a", min(63, n-b.Len())))
	}
	return b.String()
}

func pick[T any](values []T, i byte) T { return values[int(i)%len(values)] }

// Write runs program in dir, which must be empty, and returns the tree.
// An error is the machine's own failure (dir unwritable), never the
// program's: an instruction that cannot be carried out is skipped.
func Write(dir string, program []byte) (*Tree, error) {
	random := make([]byte, 8)
	if _, err := rand.Read(random); err != nil {
		return nil, err
	}
	t := &Tree{Root: dir, Fleet: filepath.Join(dir, "fleet"), TenantRepo: filepath.Join(dir, "tenant"), Out: filepath.Join(dir, "out"),
		Outside: filepath.Join(dir, outsideName), Tmp: filepath.Join(dir, "tmp"), Marker: "fuzzsecret" + hex.EncodeToString(random)}
	for _, d := range []string{t.Fleet, t.TenantRepo, t.Out, filepath.Join(t.Outside, "dir"), t.Tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := t.writeOutside(); err != nil {
		return nil, err
	}
	m := &machine{tree: t, in: program}
	for i, d := range []string{t.Fleet, t.TenantRepo, t.Out} {
		root, err := os.OpenRoot(d)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		m.repos[i] = repoState{root: root, abs: d, cwd: ".", dirs: []string{"."}}
	}
	for ops := 0; ops < maxOps && m.pos < len(m.in); ops++ {
		m.step(Op(m.next() % byte(numOps)))
	}
	return t, nil
}

// writeOutside writes the files no repository may reveal: each, read
// any way lint or import could read it (a kustomization, a manifest, an
// env file, a hand-made tenant), puts Marker in a finding or an output.
func (t *Tree) writeOutside() error {
	mk := t.Marker
	files := map[string]string{
		"secret.yaml": fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\n  namespace: %s\n  labels: {%s: %s}\nstringData:\n  %s: %s\n", mk, mk, mk, mk, mk, mk),
		"kustomization.yaml": fmt.Sprintf("namespace: %s\nnamePrefix: %s-\nresources:\n- https://%s.example/x.yaml\n- %s.yaml\n- secret.yaml\n",
			mk, mk, mk, mk),
		"unknown.yaml":           fmt.Sprintf("apiVersion: %s.example.com/v1\nkind: K%s\nmetadata:\n  name: %s\nspec: {%s: 1}\n", mk, mk, mk, mk),
		"secret.env":             fmt.Sprintf("%s=%s\nbad key %s=1\n", mk, mk, mk),
		"dir/kustomization.yaml": fmt.Sprintf("namespace: %s\nresources:\n- handmade.yaml\n- ../secret.yaml\n- ../unknown.yaml\n", mk),
		"dir/handmade.yaml":      handMadeYAML(mk, mk, mk, "./", true),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(t.Outside, filepath.FromSlash(name)), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// repoState is where the machine is in one of the trees it writes.
type repoState struct {
	root *os.Root
	abs  string
	// cwd is slash-separated, relative to the root.
	cwd string
	// dirs, files and links the machine made, relative to the root.
	dirs, files, links []string
}

type machine struct {
	tree    *Tree
	in      []byte
	pos     int
	repos   [3]repoState
	repo    int
	written int
}

func (m *machine) next() byte {
	if m.pos >= len(m.in) {
		return 0
	}
	b := m.in[m.pos]
	m.pos++
	return b
}

func (m *machine) take(n int) []byte {
	end := min(m.pos+n, len(m.in))
	b := m.in[m.pos:end]
	m.pos = end
	return b
}

func (m *machine) cur() *repoState { return &m.repos[m.repo] }

// depth is how many directories cwd is below the root.
func (r *repoState) depth() int {
	if r.cwd == "." {
		return 0
	}
	return strings.Count(r.cwd, "/") + 1
}

// free reports whether nothing is at name in cwd, which is then its path.
func (r *repoState) free(name string) (string, bool) {
	p := path.Join(r.cwd, name)
	if name == "" || strings.ContainsAny(name, "/\x00") || name == "." || name == ".." {
		return p, false
	}
	_, err := r.root.Lstat(filepath.FromSlash(p))
	return p, errors.Is(err, fs.ErrNotExist)
}

// rel is target, relative to the root, as a path from cwd.
func (r *repoState) rel(target string) string {
	p, err := filepath.Rel(r.cwd, target)
	if err != nil {
		return target
	}
	return filepath.ToSlash(p)
}

// writeFile writes a file at name in cwd if nothing is there and the
// budget allows.
func (m *machine) writeFile(name string, data []byte) {
	r := m.cur()
	p, ok := r.free(name)
	if !ok || m.written+len(data) > maxBytes {
		return
	}
	if err := r.root.WriteFile(filepath.FromSlash(p), data, 0o644); err == nil {
		m.written += len(data)
		r.files = append(r.files, p)
	}
}

func (m *machine) writeYAML(name string, docs ...any) {
	var b strings.Builder
	for _, d := range docs {
		data, err := yaml.Marshal(d)
		if err != nil {
			return
		}
		b.WriteString("---\n")
		b.Write(data)
	}
	m.writeFile(name, []byte(b.String()))
}

func (m *machine) symlink(name, target string) {
	r := m.cur()
	p, ok := r.free(name)
	if !ok {
		return
	}
	if err := r.root.Symlink(target, filepath.FromSlash(p)); err == nil {
		r.links = append(r.links, p)
	}
}

// ref makes a path, for the kustomization or object in cwd to name.
func (m *machine) ref(how, arg byte) string {
	r := m.cur()
	switch int(how) % numRefs {
	case RefDir:
		return r.rel(pick(slices.Concat(r.dirs, r.links), arg))
	case RefFile:
		if len(r.files)+len(r.links) == 0 {
			return pick(fileNames, arg)
		}
		return r.rel(pick(slices.Concat(r.files, r.links), arg))
	case RefTraversal:
		return strings.Repeat("../", r.depth()+1+int(arg>>4)%3) + outsideName + "/" + pick(outsideFiles, arg)
	case RefAbsolute:
		return filepath.Join(m.tree.Outside, pick(outsideFiles, arg))
	case RefOutsideDir:
		return filepath.Join(m.tree.Outside, pick([]string{"", "dir"}, arg))
	case RefSystem:
		return pick(systemPaths, arg)
	case RefRemote:
		return pick(remotes, arg)
	case RefDots:
		self := path.Join("..", filepath.Base(r.abs), r.cwd)
		return pick([]string{".", "./", "..", strings.Repeat("../", r.depth()) + self, "./" + strings.Repeat("../", r.depth()+1), "a/../../" + pick(outsideFiles, arg)}, arg>>3)
	case RefThroughLink:
		if len(r.links) == 0 {
			return pick(fileNames, arg)
		}
		return r.rel(pick(r.links, arg)) + "/" + pick(outsideFiles, arg>>3)
	case RefGarbage:
		return string(m.take(int(arg) % 32))
	case RefMissing:
		return "missing/" + pick(fileNames, arg)
	default: // RefLong
		return strings.Repeat("a/", 100+int(arg)) + "x.yaml"
	}
}

func (m *machine) step(op Op) {
	r := m.cur()
	switch op {
	case OpDir:
		name := pick(dirNames, m.next())
		if r.depth() >= maxDepth {
			return
		}
		p, ok := r.free(name)
		if ok {
			if r.root.Mkdir(filepath.FromSlash(p), 0o755) != nil {
				return
			}
			r.dirs = append(r.dirs, p)
		}
		if info, err := r.root.Lstat(filepath.FromSlash(p)); err == nil && info.IsDir() {
			r.cwd = p
		}
	case OpUp:
		for range int(m.next())%4 + 1 {
			r.cwd = path.Dir(r.cwd)
		}
	case OpRepo:
		m.repo = int(m.next()) % len(m.repos)
		m.cur().cwd = "."
	case OpKustomization:
		m.kustomization()
	case OpFluxKustomization:
		file, name, how, arg, extra := m.next(), m.next(), m.next(), m.next(), m.next()
		spec := map[string]any{"interval": "10m", "path": m.ref(how, arg), "prune": true,
			"sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}}
		if extra&1 != 0 {
			spec["targetNamespace"] = pick(objectNames, extra>>2)
		}
		if extra&2 != 0 {
			spec["components"] = []any{m.ref(extra>>2, extra>>5)}
		}
		if extra&0x80 != 0 {
			spec["postBuild"] = map[string]any{"substitute": map[string]any{"TENANT": pick(objectNames, extra>>3)}}
		}
		m.writeYAML(pick(fileNames, file), map[string]any{"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
			"metadata": map[string]any{"name": pick(objectNames, name), "namespace": "flux-system"}, "spec": spec})
	case OpGitRepository:
		file, name, ns, url := m.next(), m.next(), m.next(), m.next()
		m.writeYAML(pick(fileNames, file), gitRepository(pick(objectNames, name), pick(objectNames, ns), pick(urls, url)))
	case OpHelmRelease:
		file, name, how, arg := m.next(), m.next(), m.next(), m.next()
		chart := m.ref(how, arg)
		m.writeYAML(pick(fileNames, file), map[string]any{"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
			"metadata": map[string]any{"name": pick(objectNames, name), "namespace": pick(objectNames, arg)},
			"spec": map[string]any{"interval": "1h", "chart": map[string]any{"spec": map[string]any{"chart": chart, "valuesFiles": []any{chart},
				"sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system", "namespace": "flux-system"}}},
				"valuesFrom": []any{map[string]any{"kind": "Secret", "name": pick(objectNames, how)}}}})
	case OpHandMade:
		file, label, account, ns, how, arg := m.next(), m.next(), m.next(), m.next(), m.next(), m.next()
		data := handMadeYAML(pick(objectNames, label), pick(objectNames, account), pick(objectNames, ns), m.ref(how, arg), label&0x80 == 0)
		m.writeFile(pick(fileNames, file), []byte(data))
	case OpTenant:
		file, name, ns, how, arg := m.next(), m.next(), m.next(), m.next(), m.next()
		m.writeYAML(pick(fileNames, file), map[string]any{"apiVersion": "landlord.dev/v1alpha1", "kind": "Tenant",
			"metadata": map[string]any{"name": pick(objectNames, name)},
			"spec": map[string]any{"namespaces": []any{map[string]any{"name": pick(objectNames, ns)}},
				"sources": []any{map[string]any{"name": pick(objectNames, name), "path": m.ref(how, arg),
					"git": map[string]any{"url": pick(urls, ns), "ref": map[string]any{"branch": "main"}}}}}})
	case OpSecret:
		file, name, sops := m.next(), m.next(), m.next()
		secret := map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": pick(objectNames, name)},
			"stringData": map[string]any{"token": "t"}}
		if sops&1 != 0 {
			secret["sops"] = map[string]any{"mac": "x"}
		}
		m.writeYAML(pick(fileNames, file), secret)
	case OpCRD:
		file, rule := m.next(), m.next()
		items := make([]any, int(rule)%64)
		for i := range items {
			items[i] = "a"
		}
		m.writeYAML(pick(fileNames, file), crd(pick(celRules, rule)), map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w"}, "spec": map[string]any{"x": strings.Repeat("a", int(rule)), "items": items}})
	case OpGarbage:
		name, n := m.next(), m.next()
		m.writeFile(pick(fileNames, name), m.take(int(n)))
	case OpLarge:
		name, n := m.next(), m.next()
		m.writeFile(pick(fileNames, name), fmt.Appendf(nil, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: large\ndata:\n  x: %s\n", strings.Repeat("a", int(n)*largeUnit)))
	case OpManyDocs:
		name, n := m.next(), m.next()
		var b strings.Builder
		for i := range int(n) * 20 {
			fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\ndata:\n  x: y\n", i)
		}
		m.writeFile(pick(fileNames, name), []byte(b.String()))
	case OpBomb:
		name, n := m.next(), m.next()
		m.writeFile(pick(fileNames, name), bomb(n))
	case OpEnv:
		name, lines := m.next(), m.next()
		var b strings.Builder
		for i := range int(lines) % 8 {
			b.WriteString(pick(envLines, lines+byte(i)) + "\n")
		}
		m.writeFile(pick(fileNames, name), []byte(b.String()))
	case OpLinkSecret:
		name, which := m.next(), m.next()
		target := filepath.Join(m.tree.Outside, pick(outsideFiles, which))
		if which&0x80 != 0 {
			target = strings.Repeat("../", r.depth()+1) + outsideName + "/" + pick(outsideFiles, which)
		}
		m.symlink(pick(fileNames, name), target)
	case OpLinkOutsideDir:
		name, which := m.next(), m.next()
		m.symlink(pick(dirNames, name), pick([]string{m.tree.Outside, filepath.Join(m.tree.Outside, "dir"),
			strings.Repeat("../", r.depth()+1) + outsideName, "/", "/etc", m.tree.Root}, which))
	case OpLinkLoop:
		name, which := m.next(), m.next()
		n := pick(dirNames, name)
		targets := []string{".", "..", n, strings.Repeat("../", r.depth()) + ".", r.abs, filepath.Join(r.abs, r.cwd, n)}
		if len(r.links) > 0 {
			targets = append(targets, r.rel(pick(r.links, which>>3)))
		}
		m.symlink(n, pick(targets, which))
	case OpLinkInside:
		name, which := m.next(), m.next()
		m.symlink(pick(slices.Concat(dirNames, fileNames), name), r.rel(pick(slices.Concat(r.dirs, r.files), which)))
	case OpLinkDevice:
		name, which := m.next(), m.next()
		m.symlink(pick(fileNames, name), pick(devices, which))
	}
}

// kustomization writes a kustomization file naming paths in its fields.
func (m *machine) kustomization() {
	file, kind, n := m.next(), m.next(), m.next()
	k := map[string]any{}
	switch kind % 4 {
	case 0:
		k["apiVersion"], k["kind"] = "kustomize.config.k8s.io/v1beta1", "Kustomization"
	case 1:
		k["apiVersion"], k["kind"] = "kustomize.config.k8s.io/v1alpha1", "Component"
	case 2:
		k["kind"] = pick(objectNames, kind>>2)
	}
	if kind&0x80 != 0 {
		k["namespace"] = pick(objectNames, kind>>2)
	}
	for range int(n) % 8 {
		f := pick(fields, m.next())
		p := m.ref(m.next(), m.next())
		switch {
		case f.name == "openapi":
			k["openapi"] = map[string]any{"path": p}
		case f.key == "":
			list, _ := k[f.name].([]any)
			k[f.name] = append(list, p)
		case f.key == "path":
			list, _ := k[f.name].([]any)
			k[f.name] = append(list, map[string]any{"path": p})
		case f.key == "env":
			list, _ := k[f.name].([]any)
			k[f.name] = append(list, map[string]any{"name": "g", "env": p})
		default: // generator files and envs
			list, _ := k[f.name].([]any)
			k[f.name] = append(list, map[string]any{"name": "g", f.key: []any{p}})
		}
	}
	m.writeYAML(pick(kustomizationFiles, file), k)
}

// handMadeYAML is a tenant as flux create tenant --export and a sync of
// its repository make it.
func handMadeYAML(label, account, namespace, syncPath string, labelled bool) string {
	meta := func(name, ns string) map[string]any {
		m := map[string]any{"name": name}
		if ns != "" {
			m["namespace"] = ns
		}
		if labelled {
			m["labels"] = map[string]any{"toolkit.fluxcd.io/tenant": label}
		}
		return m
	}
	docs := []any{
		map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": meta(namespace, "")},
		map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta(account, namespace)},
		map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": meta("gotk-reconciler", namespace),
			"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
			"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": account, "namespace": namespace}}},
		gitRepository(account, namespace, "https://git.example.com/teams/"+account),
		map[string]any{"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization", "metadata": meta(account, namespace),
			"spec": map[string]any{"serviceAccountName": account, "interval": "5m", "path": syncPath, "prune": true,
				"sourceRef": map[string]any{"kind": "GitRepository", "name": account}}},
	}
	var b strings.Builder
	for _, d := range docs {
		data, _ := yaml.Marshal(d)
		b.WriteString("---\n")
		b.Write(data)
	}
	return b.String()
}

func gitRepository(name, namespace, url string) map[string]any {
	return map[string]any{"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "GitRepository",
		"metadata": map[string]any{"name": name, "namespace": namespace},
		"spec":     map[string]any{"interval": "5m", "url": url, "ref": map[string]any{"branch": "main"}}}
}

func crd(rule string) map[string]any {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"spec": map[string]any{"type": "object", "x-kubernetes-validations": []any{map[string]any{"rule": rule}},
			"properties": map[string]any{"x": map[string]any{"type": "string"}, "items": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}}}}
	return map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{"group": "example.com", "scope": "Namespaced",
			"names":    map[string]any{"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": schema}}}}}
}

// bomb is a billion laughs of n%10+1 levels, or with n's high bit
// (n&0x7f)×40 nested flow sequences.
func bomb(n byte) []byte {
	if n&0x80 != 0 {
		depth := int(n&0x7f) * 40
		return fmt.Appendf(nil, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nested\ndata:\n  x: %s%s\n", strings.Repeat("[", depth), strings.Repeat("]", depth))
	}
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	levels := int(n)%10 + 1
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	fmt.Fprintf(&b, "data: {x: *l%d}\n", levels-1)
	return []byte(b.String())
}
