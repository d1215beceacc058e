// Package handmade recognises tenants made by hand the way Flux's
// multi-tenancy guide makes them (flux create tenant --export, then a
// GitRepository and a Kustomization per tenant), or the way Capsule's Flux
// addon makes them, among a fleet's objects, and writes each as the
// equivalent Tenant, saying what does not map.
// Lint judges such a tenant's repository with the guard's rules through
// it, and landlord tenant import writes it out.
package handmade

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// TenantLabel is the label flux create tenant puts on what it makes.
const TenantLabel = "toolkit.fluxcd.io/tenant"

// Groups of the Flux kinds a hand-made tenant is made of.
const (
	kustomizeGroup = "kustomize.toolkit.fluxcd.io"
	sourceGroup    = "source.toolkit.fluxcd.io"
	helmGroup      = "helm.toolkit.fluxcd.io"
	rbacGroup      = "rbac.authorization.k8s.io"
)

// Object is one object of the fleet and where it is written.
type Object struct {
	*unstructured.Unstructured
	File string
	Line int
}

// Note says what of an object the Tenant does not hold, or holds
// differently.
type Note struct {
	Object  *Object
	Message string
}

// String is the note as FILE:LINE: MESSAGE.
func (n Note) String() string {
	return fmt.Sprintf("%s:%d: %s", n.Object.File, n.Object.Line, n.Message)
}

// Tenant is one hand-made tenant: its equivalent Tenant and the objects it
// was made of.
type Tenant struct {
	Tenant *v1alpha1.Tenant
	// Syncs are the Kustomizations syncing its repositories, one per source
	// of Tenant in order.
	Syncs []*Object
	// Objects are every object the Tenant replaces.
	Objects []*Object
	Notes   []Note
}

// Result is what Find recognised among a fleet's objects.
type Result struct {
	Tenants []*Tenant
	// Notes are about objects of no tenant Find made: tenants it could
	// not import, HelmReleases syncing for a tenant.
	Notes []Note
}

// fleet indexes objects by kind, namespace and name.
type fleet struct {
	all []*Object
	// byKey maps group/kind/namespace/name to the object.
	byKey map[string]*Object
	// byKind maps group/kind to its objects in order.
	byKind map[string][]*Object
}

func key(group, kind, namespace, name string) string {
	return group + "/" + kind + "/" + namespace + "/" + name
}

func (f *fleet) get(group, kind, namespace, name string) *Object {
	return f.byKey[key(group, kind, namespace, name)]
}

func (f *fleet) of(group, kind string) []*Object {
	return f.byKind[group+"/"+kind]
}

// Find recognises the hand-made tenants among objects: each Flux
// Kustomization that syncs a GitRepository of its own namespace as a
// service account of that namespace, which a RoleBinding there binds, the
// namespace and the account declared beside it. Syncs of one tenant (the
// toolkit.fluxcd.io/tenant label of the account or namespace, else the
// account's name) make one Tenant.
func Find(objects []*Object) *Result {
	f := &fleet{all: objects, byKey: map[string]*Object{}, byKind: map[string][]*Object{}}
	for _, o := range objects {
		group := o.GroupVersionKind().Group
		f.byKey[key(group, o.GetKind(), o.GetNamespace(), o.GetName())] = o
		f.byKind[group+"/"+o.GetKind()] = append(f.byKind[group+"/"+o.GetKind()], o)
	}
	res := &Result{}
	capsule := map[*Object]bool{}
	res.Tenants, res.Notes = f.capsuleTenants(capsule)
	byName := map[string]*building{}
	var names []string
	for _, ks := range f.of(kustomizeGroup, "Kustomization") {
		if capsule[ks] {
			continue
		}
		s, note := f.sync(ks)
		if note != "" {
			res.Notes = append(res.Notes, Note{ks, note})
		}
		if s == nil {
			continue
		}
		b := byName[s.tenant]
		if b == nil {
			b = &building{name: s.tenant}
			byName[s.tenant] = b
			names = append(names, s.tenant)
		}
		b.syncs = append(b.syncs, s)
	}
	for _, name := range names {
		res.Tenants = append(res.Tenants, f.tenant(byName[name]))
	}
	res.Notes = append(res.Notes, f.helmReleases(res.Tenants)...)
	return res
}

// sync is one Kustomization syncing a tenant's repository.
type sync struct {
	tenant         string
	ks, repo       *Object
	serviceAccount *Object
	namespace      *Object
	bindings       []*Object
}

// building gathers the syncs of one tenant.
type building struct {
	name  string
	syncs []*sync
}

// sync reads ks as a tenant's sync, nil when it is none; the note says why
// a Kustomization running as a tenant's account is not one.
func (f *fleet) sync(ks *Object) (*sync, string) {
	ns := ks.GetNamespace()
	sa := str(ks.Object, "spec", "serviceAccountName")
	if sa == "" || ns == "" {
		return nil, "" // the platform's own, running as kustomize-controller
	}
	account := f.get("", "ServiceAccount", ns, sa)
	namespace := f.get("", "Namespace", "", ns)
	bindings := f.bindingsOf(ns, sa)
	if account == nil || namespace == nil || len(bindings) == 0 {
		return nil, "" // an account the platform binds elsewhere, as Flux's own
	}
	s := &sync{ks: ks, serviceAccount: account, namespace: namespace, bindings: bindings}
	s.tenant = cmp.Or(account.GetLabels()[TenantLabel], namespace.GetLabels()[TenantLabel], sa)
	kind := str(ks.Object, "spec", "sourceRef", "kind")
	refNamespace := cmp.Or(str(ks.Object, "spec", "sourceRef", "namespace"), ns)
	if kind != "GitRepository" || refNamespace != ns {
		return nil, fmt.Sprintf("Kustomization %s/%s syncs %s %s/%s as tenant %s's account: not imported; a Tenant syncs GitRepositories of its own namespace",
			ns, ks.GetName(), kind, refNamespace, str(ks.Object, "spec", "sourceRef", "name"), s.tenant)
	}
	s.repo = f.get(sourceGroup, "GitRepository", ns, str(ks.Object, "spec", "sourceRef", "name"))
	if s.repo == nil {
		return nil, fmt.Sprintf("Kustomization %s/%s syncs GitRepository %s/%s, which the fleet does not declare: not imported",
			ns, ks.GetName(), ns, str(ks.Object, "spec", "sourceRef", "name"))
	}
	return s, ""
}

// bindingsOf are the RoleBindings of namespace ns naming account sa.
func (f *fleet) bindingsOf(ns, sa string) []*Object {
	var out []*Object
	for _, rb := range f.of(rbacGroup, "RoleBinding") {
		if rb.GetNamespace() != ns {
			continue
		}
		for _, s := range subjects(rb) {
			if s.kind == "ServiceAccount" && s.name == sa && cmp.Or(s.namespace, ns) == ns {
				out = append(out, rb)
				break
			}
		}
	}
	return out
}

type subject struct{ kind, name, namespace string }

func subjects(rb *Object) []subject {
	list, _, _ := unstructured.NestedSlice(rb.Object, "subjects")
	var out []subject
	for _, item := range list {
		m, _ := item.(map[string]any)
		out = append(out, subject{str(m, "kind"), str(m, "name"), str(m, "namespace")})
	}
	return out
}

// tenant writes the Tenant of b's syncs.
func (f *fleet) tenant(b *building) *Tenant {
	out := &Tenant{Tenant: &v1alpha1.Tenant{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "Tenant"},
		ObjectMeta: metav1.ObjectMeta{Name: b.name},
	}}
	t := out.Tenant
	note := func(o *Object, format string, args ...any) {
		out.Notes = append(out.Notes, Note{o, fmt.Sprintf(format, args...)})
	}
	home := b.syncs[0].ks.GetNamespace()
	namespaces := []string{home}
	for _, s := range b.syncs {
		namespaces = append(namespaces, s.ks.GetNamespace())
	}
	for _, ns := range f.of("", "Namespace") {
		if ns.GetLabels()[TenantLabel] == b.name {
			namespaces = append(namespaces, ns.GetName())
		}
	}
	seen := map[string]bool{}
	for _, ns := range namespaces {
		if !seen[ns] {
			seen[ns] = true
			t.Spec.Namespaces = append(t.Spec.Namespaces, v1alpha1.TenantNamespace{Name: ns})
		}
	}
	account := str(b.syncs[0].ks.Object, "spec", "serviceAccountName")
	if account != b.name {
		t.Spec.ServiceAccountName = account
	}
	claimed := map[*Object]bool{}
	claim := func(o *Object) {
		if o != nil && !claimed[o] {
			claimed[o] = true
			out.Objects = append(out.Objects, o)
		}
	}
	for _, ns := range t.Spec.Namespaces {
		claim(f.get("", "Namespace", "", ns.Name))
		claim(f.get("", "ServiceAccount", ns.Name, account))
	}
	variables := map[string]string{}
	for _, s := range b.syncs {
		if s.ks.GetNamespace() != home {
			note(s.ks, "Kustomization %s/%s: a Tenant syncs from its first namespace; imported as source %s in %s", s.ks.GetNamespace(), s.ks.GetName(), s.ks.GetName(), home)
		}
		if sa := str(s.ks.Object, "spec", "serviceAccountName"); sa != account {
			note(s.ks, "Kustomization %s/%s runs as %s, source %s as %s: a Tenant has one reconciler", s.ks.GetNamespace(), s.ks.GetName(), sa, b.syncs[0].ks.GetName(), account)
		}
		src := source(s, func(format string, args ...any) { note(s.ks, format, args...) }, func(format string, args ...any) { note(s.repo, format, args...) })
		for j, d := range src.DependsOn {
			if !slices.ContainsFunc(b.syncs, func(o *sync) bool { return o.ks.GetName() == d }) {
				note(s.ks, "Kustomization %s/%s: dependsOn %s is not a sync of tenant %s: dropped", s.ks.GetNamespace(), s.ks.GetName(), d, b.name)
				src.DependsOn[j] = ""
			}
		}
		src.DependsOn = slices.DeleteFunc(src.DependsOn, func(d string) bool { return d == "" })
		if subst, ok, _ := unstructured.NestedStringMap(s.ks.Object, "spec", "postBuild", "substitute"); ok {
			for k, v := range subst {
				if old, ok := variables[k]; ok && old != v {
					note(s.ks, "Kustomization %s/%s substitutes %s=%q, another sync %q: a Tenant has one set of variables; kept %q", s.ks.GetNamespace(), s.ks.GetName(), k, v, old, old)
					continue
				}
				variables[k] = v
			}
		}
		if from, ok, _ := unstructured.NestedSlice(s.ks.Object, "spec", "postBuild", "substituteFrom"); ok && len(from) > 0 {
			note(s.ks, "Kustomization %s/%s: postBuild.substituteFrom not imported: copy the variables into spec.variables", s.ks.GetNamespace(), s.ks.GetName())
		}
		t.Spec.Sources = append(t.Spec.Sources, src)
		out.Syncs = append(out.Syncs, s.ks)
		claim(s.ks)
		claim(s.repo)
	}
	if len(variables) > 0 {
		t.Spec.Variables = variables
	}
	f.bindings(out, b, account, claim, note)
	for _, o := range f.all {
		if claimed[o] || o.GetNamespace() == "" || !seen[o.GetNamespace()] {
			continue
		}
		if o.GroupVersionKind().Group == helmGroup && o.GetKind() == "HelmRelease" {
			continue // helmReleases says why
		}
		note(o, "%s %s/%s in tenant %s's namespace is not part of the Tenant: keep it in the fleet, or move it to the tenant's repository", o.GetKind(), o.GetNamespace(), o.GetName(), b.name)
	}
	note(b.syncs[0].namespace, "tenant %s gets what it did not have: Pod Security restricted, a NetworkPolicy isolating it from other tenants; set spec.podSecurity and spec.network.isolation: None to keep it as it was", b.name)
	return out
}

// bindings maps the RoleBindings of the tenant's account: the role they
// grant, the people they name (owners), and what Landlord does not keep.
func (f *fleet) bindings(out *Tenant, b *building, account string, claim func(*Object), note func(*Object, string, ...any)) {
	t := out.Tenant
	owners := map[v1alpha1.Owner]bool{}
	for _, ns := range t.Spec.Namespaces {
		for _, rb := range f.bindingsOf(ns.Name, account) {
			claim(rb)
			role := str(rb.Object, "roleRef", "name")
			switch {
			case str(rb.Object, "roleRef", "kind") != "ClusterRole":
				note(rb, "RoleBinding %s/%s grants Role %s: a Tenant binds a ClusterRole in each namespace; the reconciler gets the default tenant role landlord-tenant", rb.GetNamespace(), rb.GetName(), role)
			case role == "cluster-admin":
				note(rb, "RoleBinding %s/%s grants cluster-admin in %s: the Tenant's reconciler gets the default tenant role landlord-tenant instead (namespace admin without writes to quotas and limit ranges, service account tokens or impersonation); spec.role names another", rb.GetNamespace(), rb.GetName(), ns.Name)
			case t.Spec.Role == "" || t.Spec.Role == role:
				t.Spec.Role = role
			default:
				note(rb, "RoleBinding %s/%s grants %s, another %s: a Tenant has one role; kept %s", rb.GetNamespace(), rb.GetName(), role, t.Spec.Role, t.Spec.Role)
			}
			for _, s := range subjects(rb) {
				switch {
				case s.kind == "ServiceAccount" && s.name == account && cmp.Or(s.namespace, ns.Name) == ns.Name:
				case s.kind == "User" && strings.HasPrefix(s.name, "gotk:") && strings.HasSuffix(s.name, ":reconciler"):
					note(rb, "RoleBinding %s/%s: subject User %s dropped: Flux impersonates the reconciler's service account, never that user, under Landlord's lockdown", rb.GetNamespace(), rb.GetName(), s.name)
				case s.kind == "User" || s.kind == "Group" || s.kind == "ServiceAccount":
					owners[v1alpha1.Owner{Kind: s.kind, Name: s.name, Namespace: s.namespace}] = true
				}
			}
		}
	}
	for _, o := range slices.SortedFunc(maps.Keys(owners), func(a, b v1alpha1.Owner) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Namespace, b.Namespace))
	}) {
		t.Spec.Owners = append(t.Spec.Owners, o)
	}
	if len(t.Spec.Owners) > 0 {
		note(b.syncs[0].namespace, "tenant %s: the other subjects of its reconciler's RoleBindings are imported as spec.owners, bound to the tenant role in every namespace", b.name)
	}
}

// kustomizationFields and repositoryFields are the spec fields a Tenant's
// source holds; any other is reported.
var (
	kustomizationFields = []string{"serviceAccountName", "sourceRef", "path", "interval", "prune", "timeout", "targetNamespace", "dependsOn", "decryption", "postBuild"}
	repositoryFields    = []string{"url", "ref", "secretRef", "interval", "timeout"}
)

// source is the Tenant source of one sync; noteKs and noteRepo report what
// of the Kustomization and the GitRepository it does not hold, but the
// Kustomization's fields the caller reports itself.
func source(s *sync, noteKs, noteRepo func(string, ...any), reported ...string) v1alpha1.Source {
	ks, repo := s.ks.Object, s.repo.Object
	src := v1alpha1.Source{Name: s.ks.GetName(), Git: &v1alpha1.GitSource{URL: str(repo, "spec", "url")}}
	if ref, ok, _ := unstructured.NestedStringMap(repo, "spec", "ref"); ok {
		r := v1alpha1.GitRef{Branch: ref["branch"], Tag: ref["tag"], SemVer: ref["semver"], Commit: ref["commit"]}
		if r != (v1alpha1.GitRef{}) {
			src.Git.Ref = &r
		}
		if ref["name"] != "" {
			noteRepo("GitRepository %s/%s: ref.name %s not imported: a Tenant's ref is a branch, tag, semver or commit", s.repo.GetNamespace(), s.repo.GetName(), ref["name"])
		}
	}
	src.Git.SecretRef = str(repo, "spec", "secretRef", "name")
	src.Path = str(ks, "spec", "path")
	interval := str(ks, "spec", "interval")
	if d, err := time.ParseDuration(interval); err == nil {
		src.Interval = &metav1.Duration{Duration: d}
	}
	if ri := str(repo, "spec", "interval"); ri != "" && ri != interval {
		noteKs("Kustomization %s/%s runs every %s, GitRepository %s every %s: a Tenant's source has one interval; imported as %s", s.ks.GetNamespace(), s.ks.GetName(), interval, s.repo.GetName(), ri, interval)
	}
	// Flux's prune defaults to false, a Tenant's to true: say it always.
	prune, _, _ := unstructured.NestedBool(ks, "spec", "prune")
	src.Prune = &prune
	if d, err := time.ParseDuration(str(ks, "spec", "timeout")); err == nil {
		src.Timeout = &metav1.Duration{Duration: d}
	}
	src.TargetNamespace = str(ks, "spec", "targetNamespace")
	deps, _, _ := unstructured.NestedSlice(ks, "spec", "dependsOn")
	for _, d := range deps {
		m, _ := d.(map[string]any)
		if ns := str(m, "namespace"); ns != "" && ns != s.ks.GetNamespace() {
			noteKs("Kustomization %s/%s: dependsOn %s/%s of another namespace dropped", s.ks.GetNamespace(), s.ks.GetName(), ns, str(m, "name"))
			continue
		}
		src.DependsOn = append(src.DependsOn, str(m, "name"))
	}
	if dec, ok, _ := unstructured.NestedMap(ks, "spec", "decryption"); ok {
		src.Decryption = &v1alpha1.Decryption{Provider: str(dec, "provider"), SecretRef: str(dec, "secretRef", "name")}
	}
	for _, field := range unmapped(ks, slices.Concat(kustomizationFields, reported)) {
		noteKs("Kustomization %s/%s: spec.%s not imported: a Tenant's source does not hold it", s.ks.GetNamespace(), s.ks.GetName(), field)
	}
	if sub, ok, _ := unstructured.NestedMap(ks, "spec", "postBuild"); ok {
		for _, field := range slices.Sorted(maps.Keys(sub)) {
			if field != "substitute" && field != "substituteFrom" {
				noteKs("Kustomization %s/%s: spec.postBuild.%s not imported", s.ks.GetNamespace(), s.ks.GetName(), field)
			}
		}
	}
	for _, field := range unmapped(repo, repositoryFields) {
		noteRepo("GitRepository %s/%s: spec.%s not imported: a Tenant's Git source does not hold it", s.repo.GetNamespace(), s.repo.GetName(), field)
	}
	return src
}

// unmapped lists the spec fields of obj not in known, sorted.
func unmapped(obj map[string]any, known []string) []string {
	spec, _, _ := unstructured.NestedMap(obj, "spec")
	var out []string
	for field := range spec {
		if !slices.Contains(known, field) {
			out = append(out, field)
		}
	}
	slices.Sort(out)
	return out
}

// helmReleases notes each HelmRelease running as a hand-made tenant's
// account, or as an account a namespace's RoleBinding binds: a Tenant
// syncs Git sources only.
func (f *fleet) helmReleases(tenants []*Tenant) []Note {
	var notes []Note
	for _, hr := range f.of(helmGroup, "HelmRelease") {
		sa := str(hr.Object, "spec", "serviceAccountName")
		if sa == "" || len(f.bindingsOf(hr.GetNamespace(), sa)) == 0 {
			continue
		}
		owner := ""
		for _, t := range tenants {
			if slices.Contains(t.Tenant.NamespaceNames(), hr.GetNamespace()) {
				owner = " of tenant " + t.Tenant.Name
			}
		}
		notes = append(notes, Note{hr, fmt.Sprintf("HelmRelease %s/%s runs as %s%s: not imported; a Tenant syncs Git repositories: move the HelmRelease and its source into the tenant's repository, from where its reconciler applies them",
			hr.GetNamespace(), hr.GetName(), sa, owner)})
	}
	return notes
}

// str reads a string at a path of a JSON object, "" if absent.
func str(obj map[string]any, fields ...string) string {
	s, _, _ := unstructured.NestedString(obj, fields...)
	return s
}
