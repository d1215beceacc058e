package lint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/apivalidation"
	"github.com/landlord-dev/landlord/internal/fleet"
	"github.com/landlord-dev/landlord/internal/handmade"
)

// linter collects the findings of one run.
type linter struct {
	schemas   *apivalidation.Schemas
	locations *schemaLocations
	// strict makes a kind without a schema an error.
	strict bool

	mu    sync.Mutex
	found map[Finding]bool
	// checked holds the objects already validated and whether they were
	// valid, since a base's objects come out of every overlay taking it in.
	checked map[string]bool
	// applied are the fleet builds Flux applies, whose Tenants own the
	// tenant repositories.
	applied []*unit
	// incomplete is set when a directory the fleet applies does not build:
	// its Tenants are unknown.
	incomplete bool
	// tenants caches the decoded Tenants of each applied build.
	tenants map[*unit]*unitTenants
}

func (l *linter) add(findings ...Finding) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range findings {
		l.found[f] = true
	}
}

// fleet builds and validates every kustomization and loose manifest of the
// fleet, and finds the builds Flux applies.
func (l *linter) fleet(ctx context.Context, r *repo) error {
	l.add(r.static...)
	units := l.buildAll(ctx, r)
	l.addCRDs(units)
	applied := l.appliedUnits(ctx, r, units)
	// Applied builds Flux generates a kustomization for are not among the
	// others; objects in both are validated once.
	var objects []*object
	for _, u := range slices.Concat(units, applied) {
		objects = append(objects, u.objects...)
	}
	err := each(len(objects), func(i int) error {
		_, err := l.validate(ctx, objects[i], objects[i].namespace)
		l.secret(objects[i])
		l.fluxInstance(objects[i])
		return err
	})
	if err != nil {
		return err
	}
	l.applied = applied
	return ctx.Err()
}

// starts are the builds buildAll starts from: each buildable kustomization
// no other buildable one takes in, and each directory of loose manifests.
func (r *repo) starts() (kustomizations, loose []string) {
	taken := map[string]bool{}
	for _, dir := range r.kustomizationDirs() {
		if r.buildable(dir) {
			for _, ref := range r.kustomizations[dir].refs {
				taken[ref] = true
			}
		}
	}
	for _, dir := range r.kustomizationDirs() {
		if r.buildable(dir) && !taken[dir] {
			kustomizations = append(kustomizations, dir)
		}
	}
	return kustomizations, r.looseDirs()
}

// buildable reports whether the kustomization in dir builds on its own:
// components build only within a kustomization (kustomize refuses them
// alone), and kustomizations naming remote bases or paths outside the
// repository not at all.
func (r *repo) buildable(dir string) bool {
	k := r.kustomizations[dir]
	return !k.component && !r.blocked(dir)
}

// prebuild builds the starts of every repository at once, GOMAXPROCS at a
// time, before lint walks them in order: a tenant repository needs the
// fleet's Tenants to be judged, not to be built.
func prebuild(ctx context.Context, repos ...*repo) {
	var builds []func() *unit
	for _, r := range repos {
		kustomizations, loose := r.starts()
		for _, dir := range kustomizations {
			builds = append(builds, func() *unit { return r.unitFor(ctx, dir, asKustomization) })
		}
		for _, dir := range loose {
			builds = append(builds, func() *unit { return r.unitFor(ctx, dir, asManifests) })
		}
	}
	_ = each(len(builds), func(i int) error { builds[i](); return nil })
}

// buildAll builds the kustomizations of r and every directory of loose
// manifests. A kustomization another one takes in is built as part of it;
// on its own only when that one fails, to find which fails first, since a
// failure is reported where it starts and not again in every kustomization
// taking it in. A kustomization lint does not build is read as kubeconform
// reads files: the objects of the files it lists are in a unit of their
// own, so that a remote base hides no other finding.
func (l *linter) buildAll(ctx context.Context, r *repo) []*unit {
	var units []*unit
	// visited is false while a directory's build is being explained, true
	// once done: a cycle back to it is the failure to report, not one
	// inside.
	visited := map[string]bool{}
	var build func(dir string) (failed bool)
	build = func(dir string) bool {
		if done, ok := visited[dir]; ok {
			return done && r.unitFor(ctx, dir, asKustomization).err != nil
		}
		visited[dir] = false
		defer func() { visited[dir] = true }()
		u := r.unitFor(ctx, dir, asKustomization)
		if u.err == nil {
			units = append(units, u)
			return false
		}
		k := r.kustomizations[dir]
		inner := false
		for _, ref := range k.refs {
			if r.buildable(ref) && build(ref) {
				inner = true
			}
		}
		if !inner {
			file, line := r.buildErrorAt(k, u.err.Error())
			l.add(r.finding(RuleBuild, file, line, u.err.Error()))
		}
		return true
	}
	kustomizations, loose := r.starts()
	for _, dir := range kustomizations {
		if ctx.Err() != nil {
			return units
		}
		build(dir)
	}
	for _, dir := range loose {
		u := r.unitFor(ctx, dir, asManifests)
		if u.err != nil {
			l.add(r.finding(RuleBuild, mentioned(r.loose[dir], u.err.Error()), 1, u.err.Error()))
			continue
		}
		units = append(units, u)
	}
	for _, dir := range r.kustomizationDirs() {
		if r.blocked(dir) {
			units = append(units, l.listed(r, dir))
		}
	}
	return units
}

// listed reads the local files the kustomization in dir lists as
// resources, each on its own, as kubeconform would: the build that would
// transform them is not run. A file that does not parse is a build error.
func (l *linter) listed(r *repo, dir string) *unit {
	k := r.kustomizations[dir]
	u := &unit{dir: dir}
	for _, e := range entries(k.node) {
		if !e.dir || strings.HasPrefix(e.field, "components") || isRemote(e.value) || r.escapes(dir, e.value) {
			continue
		}
		file := path.Join(dir, e.value)
		if info, err := r.stat(file); err != nil || info.IsDir() {
			continue // a kustomization of its own, or missing: the build reports it
		}
		objects, err := r.read(file)
		if err != nil {
			l.add(r.finding(RuleBuild, file, 1, r.rel(err.Error())))
			continue
		}
		u.objects = append(u.objects, objects...)
	}
	return u
}

// errorLine is the line of the entry of k a build error names, else 1.
// brokenYAML is kustomize's report of a file it could not parse, naming it
// relative to the kustomization that lists it.
var brokenYAML = regexp.MustCompile(`MalformedYAMLError: yaml: line (\d+): .*? in File: (\S+)`)

// buildErrorAt is where a build error of k points: the file kustomize could
// not parse, at the parser's line; else the entry of k the message names.
func (r *repo) buildErrorAt(k *kustomization, msg string) (string, int) {
	if m := brokenYAML.FindStringSubmatch(msg); m != nil {
		file := path.Join(k.dir, m[2])
		if _, err := r.stat(file); err == nil {
			line, _ := strconv.Atoi(m[1])
			return file, line
		}
	}
	return k.file, errorLine(k, msg)
}

func errorLine(k *kustomization, msg string) int {
	line, longest := 1, 0
	for _, e := range entries(k.node) {
		if len(e.value) > longest && strings.Contains(msg, e.value) {
			line, longest = e.line, len(e.value)
		}
	}
	return line
}

// mentioned is the first of files a message names, else the first file.
func mentioned(files []string, msg string) string {
	for _, f := range files {
		if strings.Contains(msg, f) {
			return f
		}
	}
	for _, f := range files {
		if strings.Contains(msg, path.Base(f)) {
			return f
		}
	}
	if len(files) == 0 {
		return "."
	}
	return files[0]
}

// addCRDs makes the CRDs the fleet installs known to the schemas.
func (l *linter) addCRDs(units []*unit) {
	crdKind := apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")
	for _, u := range units {
		for _, o := range u.objects {
			if o.gvk != crdKind {
				continue
			}
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := decode(o.obj, crd); err != nil {
				continue // its schema findings say why
			}
			if err := l.schemas.AddCRD(crd); err != nil {
				l.add(o.repo.finding(RuleSchema, o.file, o.line("spec.versions"), err.Error()))
			}
		}
	}
}

// decode converts an object into a typed one.
func decode(obj map[string]any, into any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return utiljson.Unmarshal(data, into)
}

// appliedUnits are the directories of the fleet that its Flux
// Kustomizations apply from the fleet's own GitRepository, built as Flux
// builds them. A fleet without such Kustomizations is taken as applied
// whole, every build of it.
func (l *linter) appliedUnits(ctx context.Context, r *repo, units []*unit) []*unit {
	ksKind := kustomizev1.GroupVersion.WithKind(kustomizev1.KustomizationKind)
	seen := map[string]bool{}
	var applied []*unit
	for _, u := range units {
		for _, o := range u.objects {
			if o.gvk != ksKind {
				continue
			}
			ks := &kustomizev1.Kustomization{}
			if err := decode(o.obj, ks); err != nil {
				continue // its schema findings say why
			}
			ref := ks.Spec.SourceRef
			refNamespace := ref.Namespace
			if refNamespace == "" {
				refNamespace = o.namespace
			}
			if ref.Kind != "GitRepository" || ref.Name != fleet.FluxSource || refNamespace != fleet.FluxNamespace {
				continue
			}
			dir := path.Clean(strings.TrimPrefix(ks.Spec.Path, "/"))
			if seen[dir] || dir == ".." || strings.HasPrefix(dir, "../") {
				continue
			}
			seen[dir] = true
			if !isDir(r, dir) {
				l.add(r.finding(RuleSourcePath, o.file, o.line("spec.path"),
					fmt.Sprintf("spec.path: %q is not a directory of the fleet repository; Flux would fail Kustomization %s/%s", ks.Spec.Path, o.namespace, o.name)))
				continue
			}
			au := r.fluxUnit(ctx, dir, o.obj)
			if au.err != nil {
				l.incomplete = true
				// A kustomization's failure, or a blocked one, is reported
				// where it is.
				if _, ok := r.kustomizations[dir]; !ok && !errors.Is(au.err, errBlocked) {
					l.add(r.finding(RuleBuild, o.file, o.line("spec.path"), "spec.path: "+au.err.Error()))
				}
				continue
			}
			applied = append(applied, au)
		}
	}
	if len(applied) == 0 {
		applied = units
	}
	slices.SortStableFunc(applied, func(a, b *unit) int { return strings.Compare(a.dir, b.dir) })
	return applied
}

// isDir reports whether dir, relative to the repository, is a directory.
func isDir(r *repo, dir string) bool {
	info, err := r.stat(dir)
	return err == nil && info.IsDir()
}

// validate judges o, created in namespace, against its kind's schema once,
// and reports whether the apiserver would take it.
func (l *linter) validate(ctx context.Context, o *object, namespace string) (valid bool, err error) {
	data, err := json.Marshal(o.obj)
	if err != nil {
		return false, err
	}
	// The namespace is left out: Flux's is one the Tenant's schema
	// validated, an object's own is in its content.
	key := o.repo.tenant + "\x00" + o.file + "\x00" + string(data)
	l.mu.Lock()
	valid, done := l.checked[key]
	l.mu.Unlock()
	if done {
		return valid, nil
	}
	valid, err = l.check(ctx, o, namespace)
	l.mu.Lock()
	l.checked[key] = valid
	l.mu.Unlock()
	return valid, err
}

func (l *linter) check(ctx context.Context, o *object, namespace string) (bool, error) {
	k, err := l.schemas.Lookup(o.gvk)
	if err != nil {
		return false, err
	}
	if k == nil {
		return l.checkLocated(o), nil
	}
	if _, encrypted := o.obj["sops"]; encrypted {
		// Flux decrypts before applying: encrypted values are not the
		// values the apiserver gets.
		return true, nil
	}
	problems := problemsOf(k.Validate(ctx, o.obj, namespace))
	for _, p := range problems {
		l.add(o.repo.finding(p.rule, o.file, o.line(p.field), p.message))
	}
	return len(problems) == 0, nil
}

// checkLocated judges o, of a kind lint has no OpenAPI schema of, against
// the JSON schema of the first --schema-location holding one. Without one
// it is a warning, or with --strict an error: its CRD may come from a
// HelmRelease, which Flux installs before applying it.
func (l *linter) checkLocated(o *object) bool {
	found := l.locations.lookup(o.gvk)
	if found == nil {
		f := o.repo.finding(RuleUnknownKind, o.file, o.line(""),
			fmt.Sprintf("no schema for apiVersion %q, kind %q: not a built-in kind, a Flux or Landlord kind, a CRD of the fleet, nor in a --schema-location", o.gvk.GroupVersion(), o.gvk.Kind))
		if !l.strict {
			f.Severity = SeverityWarning
		}
		l.add(f)
		return false
	}
	if found.err != nil {
		l.add(o.repo.finding(RuleSchema, o.file, o.line(""), fmt.Sprintf("schema %s for kind %s: %v", found.file, o.gvk.Kind, found.err)))
		return false
	}
	if _, encrypted := o.obj["sops"]; encrypted {
		return true
	}
	problems := validateJSON(found.schema, o.obj)
	for _, p := range problems {
		l.add(o.repo.finding(RuleSchema, o.file, o.line(p.field), p.message))
	}
	return len(problems) == 0
}

// tenantKind is the Tenant's group, version and kind.
var tenantKind = v1alpha1.GroupVersion.WithKind("Tenant")

// unitTenants are the Tenants of a fleet build, by name and indexed.
type unitTenants struct {
	byName map[string]*tenantObject
	index  *tenantIndex
}

// tenantsOf decodes the Tenants of a fleet build once.
func (l *linter) tenantsOf(u *unit) *unitTenants {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ut, ok := l.tenants[u]; ok {
		return ut
	}
	ut := &unitTenants{byName: map[string]*tenantObject{}}
	var all []*v1alpha1.Tenant
	for _, o := range u.objects {
		if o.gvk != tenantKind {
			continue
		}
		t := &v1alpha1.Tenant{}
		if err := decode(o.obj, t); err != nil {
			continue // its schema findings say why
		}
		ut.byName[t.Name] = &tenantObject{tenant: t, object: o}
		all = append(all, t)
	}
	wrapped := make([]*handmade.Object, len(u.objects))
	of := make(map[*handmade.Object]*object, len(u.objects))
	for i, o := range u.objects {
		wrapped[i] = &handmade.Object{Unstructured: &unstructured.Unstructured{Object: o.obj}, File: o.file}
		of[wrapped[i]] = o
	}
	for _, h := range handmade.Find(wrapped).Tenants {
		if ut.byName[h.Tenant.Name] != nil {
			continue // a Tenant object of the same name holds it
		}
		if len(h.Syncs) == 0 {
			all = append(all, h.Tenant) // namespaces held, no repository to judge
			continue
		}
		to := &tenantObject{tenant: h.Tenant, object: of[h.Syncs[0]]}
		for _, ks := range h.Syncs {
			to.syncs = append(to.syncs, of[ks])
		}
		ut.byName[h.Tenant.Name] = to
		all = append(all, h.Tenant)
	}
	ut.index = newTenantIndex(all)
	l.tenants[u] = ut
	return ut
}

// tenantObject is a Tenant and where the fleet declares it.
type tenantObject struct {
	tenant *v1alpha1.Tenant
	object *object
	// syncs are, for a tenant made by hand, the Kustomization syncing each
	// of its sources, which Flux applies instead of a rendered one.
	syncs []*object
}

// isKind reports whether gvk is group/kind of any version.
func isKind(gvk schema.GroupVersionKind, group, kind string) bool {
	return gvk.Group == group && gvk.Kind == kind
}

// problem is one violation: the rule, the field path (empty for the whole
// object) and what is wrong.
type problem struct {
	rule    Rule
	field   string
	message string
}

// problemsOf are what the apiserver refuses in an object: unknown fields
// and schema errors as RuleSchema, failed CEL rules as RuleValidationRule.
func problemsOf(r apivalidation.Result) []problem {
	var problems []problem
	for _, p := range r.Unknown {
		problems = append(problems, problem{rule: RuleSchema, field: p, message: fmt.Sprintf("unknown field %q", p)})
	}
	for _, err := range r.Schema {
		problems = append(problems, fieldProblem(RuleSchema, err))
	}
	for _, err := range r.Rules {
		problems = append(problems, fieldProblem(RuleValidationRule, err))
	}
	return problems
}

// fieldProblem turns a field error into a problem of rule r; an error on
// the whole object, which the apiserver names "<nil>", has no field.
func fieldProblem(r Rule, err *field.Error) problem {
	if err.Field == "<nil>" {
		return problem{rule: r, message: err.Detail}
	}
	return problem{rule: r, field: err.Field, message: err.Error()}
}
