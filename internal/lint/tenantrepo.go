package lint

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/policy"
	"github.com/landlord-dev/landlord/internal/render"
)

// tenantRepo checks a tenant's repository: its kustomizations build, and
// each overlay a Tenant of the fleet syncs holds only objects the guard
// admits from the tenant's reconciler, valid against their schemas.
func (l *linter) tenantRepo(ctx context.Context, r *repo, tr TenantRepo) error {
	l.add(r.static...)
	for _, u := range l.buildAll(ctx, r) {
		for _, o := range u.objects {
			l.secret(o)
		}
	}
	judged := false
	for _, u := range l.applied {
		tenants := l.tenantsOf(u)
		to := tenants.byName[tr.Tenant]
		if to == nil {
			continue
		}
		judged = true
		src, err := gitSource(to.tenant, tr.Source)
		if err != nil {
			return fmt.Errorf("--tenant-repo %s: %w", tr.Tenant, err)
		}
		if err := l.overlay(ctx, r, tenants.index, to, src); err != nil {
			return err
		}
	}
	if !judged && l.incomplete {
		return ctx.Err() // the fleet's build findings say why
	}
	if !judged {
		var found []string
		for _, u := range l.applied {
			found = slices.AppendSeq(found, maps.Keys(l.tenantsOf(u).byName))
		}
		slices.Sort(found)
		return fmt.Errorf("--tenant-repo %s: no Tenant %s, nor a tenant made by hand of that name, in the kustomizations the fleet applies; allowed: %s",
			tr.Tenant, tr.Tenant, strings.Join(slices.Compact(found), ", "))
	}
	return ctx.Err()
}

// gitSource picks the tenant's Git source a repository holds: the one
// named, else the only one, else the one named after the tenant.
func gitSource(t *v1alpha1.Tenant, name string) (int, error) {
	var names []string
	for i, s := range t.Spec.Sources {
		if s.Git == nil {
			continue // a template is the platform's repository
		}
		if s.Name == name {
			return i, nil
		}
		names = append(names, s.Name)
	}
	switch {
	case len(names) == 0:
		return 0, fmt.Errorf("tenant %s has no Git source", t.Name)
	case name != "":
		return 0, fmt.Errorf("tenant %s has no Git source %s; allowed: %s", t.Name, name, strings.Join(names, ", "))
	case len(names) == 1:
		return slices.IndexFunc(t.Spec.Sources, func(s v1alpha1.Source) bool { return s.Git != nil }), nil
	case slices.Contains(names, t.Name):
		return slices.IndexFunc(t.Spec.Sources, func(s v1alpha1.Source) bool { return s.Name == t.Name }), nil
	}
	return 0, fmt.Errorf("tenant %s has %d Git sources: name one as %s/SOURCE=DIR, SOURCE one of %s", t.Name, len(names), t.Name, strings.Join(names, ", "))
}

// overlay judges the directory source i of the Tenant syncs, as the Flux
// Kustomization Landlord renders for it applies it: built, its variables
// substituted, in its target namespace, as the tenant's reconciler.
func (l *linter) overlay(ctx context.Context, r *repo, tenants *tenantIndex, to *tenantObject, i int) error {
	t := to.tenant
	ks, vars, err := l.syncOf(to, i)
	if err != nil || ks == nil {
		return err
	}
	dir := path.Clean(strings.TrimPrefix(ks.Spec.Path, "/"))
	if !isDir(r, dir) {
		declared, field := to.object, fmt.Sprintf("spec.sources[%d].path", i)
		if to.syncs != nil {
			declared, field = to.syncs[i], "spec.path"
		}
		l.add(declared.repo.finding(RuleSourcePath, declared.file, declared.line(field),
			fmt.Sprintf("%s: %q is not a directory of tenant %s's repository; Flux would fail Kustomization %s/%s", field, ks.Spec.Path, t.Name, ks.Namespace, ks.Name)))
		return nil
	}
	flux, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ks)
	if err != nil {
		return err
	}
	built := r.fluxUnit(ctx, dir, flux)
	objects := built.objects
	switch {
	case errors.Is(built.err, errBlocked):
		// What the build would take in from the repository itself is
		// judged all the same, so that a remote base hides no escape.
		objects = l.readable(ctx, r, dir)
	case built.err != nil:
		if _, ok := r.kustomizations[dir]; !ok {
			l.add(r.finding(RuleBuild, mentioned(r.filesUnder(dir), built.err.Error()), 1, built.err.Error()))
		}
		return nil
	}
	declared := map[string]string{}
	for _, o := range objects {
		if isKind(o.gvk, "", "Namespace") {
			if tenant := stringAt(o.obj, "metadata", "labels", v1alpha1.TenantLabel); tenant != "" {
				declared[o.name] = tenant
			}
		}
	}
	index := tenants.withSelfService(declared)
	reconciler := authenticationv1.UserInfo{
		Username: "system:serviceaccount:" + ks.Namespace + ":" + ks.Spec.ServiceAccountName,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + ks.Namespace, "system:authenticated"},
	}
	for _, o := range objects {
		o, err := substitute(o, vars)
		if err != nil {
			l.add(r.finding(RuleBuild, o.file, o.line(""), err.Error()))
			continue
		}
		if err := l.judge(ctx, o, t, ks, index, reconciler); err != nil {
			return err
		}
	}
	return nil
}

// syncOf is the Flux Kustomization that syncs source i of the tenant and
// the variables it substitutes: the one Landlord renders for a Tenant, the
// fleet's own for a tenant made by hand. Nil when the Tenant does not
// render, which a finding says.
func (l *linter) syncOf(to *tenantObject, i int) (*kustomizev1.Kustomization, map[string]string, error) {
	t := to.tenant
	if to.syncs != nil {
		ks := &kustomizev1.Kustomization{}
		if err := decode(to.syncs[i].obj, ks); err != nil {
			return nil, nil, nil // its schema findings say why
		}
		if ks.Namespace == "" {
			ks.Namespace = to.syncs[i].namespace
		}
		return ks, postBuildVariables(ks, nil), nil
	}
	objects, err := render.Objects(t, render.Holdings{})
	if err != nil {
		l.add(to.object.repo.finding(RuleSchema, to.object.file, to.object.line("spec"), "tenant "+t.Name+" does not render: "+err.Error()))
		return nil, nil, nil
	}
	var ks *kustomizev1.Kustomization
	configMaps := map[string]*corev1.ConfigMap{}
	for _, obj := range objects {
		switch o := obj.(type) {
		case *kustomizev1.Kustomization:
			if o.Name == t.Spec.Sources[i].Name {
				ks = o
			}
		case *corev1.ConfigMap:
			configMaps[o.Namespace+"/"+o.Name] = o
		}
	}
	if ks == nil {
		return nil, nil, fmt.Errorf("tenant %s renders no Kustomization for source %s", t.Name, t.Spec.Sources[i].Name)
	}
	return ks, postBuildVariables(ks, configMaps), nil
}

// readable are the objects of what dir's build takes in that lint can
// read: the builds of its kustomizations that build, and the files listed
// by those that do not.
func (l *linter) readable(ctx context.Context, r *repo, dir string) []*object {
	var objects []*object
	seen := map[string]bool{}
	var walk func(d string)
	walk = func(d string) {
		if seen[d] {
			return
		}
		seen[d] = true
		if r.buildable(d) {
			objects = append(objects, r.unitFor(ctx, d, asKustomization).objects...)
			return
		}
		objects = append(objects, l.listed(r, d).objects...)
		for _, ref := range r.kustomizations[d].refs {
			walk(ref)
		}
	}
	if _, ok := r.kustomizations[dir]; ok {
		walk(dir)
		return objects
	}
	for _, d := range r.kustomizationDirs() {
		if under(dir, d) {
			walk(d)
		}
	}
	for _, d := range r.looseDirs() {
		if under(dir, d) {
			objects = append(objects, r.unitFor(ctx, d, asManifests).objects...)
		}
	}
	return objects
}

// placed is the namespace Flux writes o in, empty for a cluster-scoped
// object, and whether o's kind is namespaced.
func (l *linter) placed(o *object, ks *kustomizev1.Kustomization) (string, bool, error) {
	k, err := l.schemas.Lookup(o.gvk)
	if err != nil {
		return "", false, err
	}
	if k != nil && !k.Namespaced() {
		return "", false, nil
	}
	// Flux's targetNamespace overrides every namespace; without one, an
	// object without a namespace lands in the Kustomization's.
	return cmp.Or(ks.Spec.TargetNamespace, o.namespace, ks.Namespace), true, nil
}

// judge validates o as written in the namespace Flux puts it in and runs
// the policy engine on it, as the guard does on the reconciler's request.
func (l *linter) judge(ctx context.Context, o *object, t *v1alpha1.Tenant, ks *kustomizev1.Kustomization, index *tenantIndex, user authenticationv1.UserInfo) error {
	namespace, namespaced, err := l.placed(o, ks)
	if err != nil {
		return err
	}
	valid, err := l.validate(ctx, o, namespace)
	if err != nil {
		return err
	}
	if namespaced {
		if owner := index.resolver().ForNamespace(namespace); owner == nil || owner.Name != t.Name {
			l.add(o.repo.finding(RuleNamespace, o.file, o.line("metadata.namespace"),
				fmt.Sprintf("metadata.namespace: %q is not a namespace of tenant %s; allowed: %s", namespace, t.Name, strings.Join(tenantNamespaces(t), ", "))))
			return nil
		}
	}
	raw, err := judgedJSON(o)
	if err != nil {
		return err
	}
	typed, err := policy.Decode(o.gvk, raw)
	if err != nil {
		if valid {
			// The apiserver would take it and the guard refuse it.
			l.add(o.repo.finding(RuleSchema, o.file, o.line(""), "the guard cannot decode it: "+err.Error()))
		}
		return nil
	}
	req := policy.Request{Operation: admissionv1.Create, Namespace: namespace, Object: typed, Kind: o.gvk.GroupKind(), Name: o.name, User: user}
	if ops := policy.Default(req, index.resolver()); len(ops) > 0 {
		// The mutating webhook runs first: apply its defaults.
		patch, err := json.Marshal(ops)
		if err != nil {
			return err
		}
		p, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			return err
		}
		if raw, err = p.Apply(raw); err != nil {
			return err
		}
		if req.Object, err = policy.Decode(o.gvk, raw); err != nil {
			return err
		}
	}
	judgeIndex := index
	if isKind(o.gvk, "", "Namespace") {
		judgeIndex = index.creatingNamespace(o.name)
	}
	for _, e := range policy.Evaluate(req, judgeIndex.resolver()) {
		id := policy.RuleID(e)
		l.add(o.repo.finding(Rule{ID: id}, o.file, o.line(e.Field), policyMessage(e, id)))
	}
	return nil
}

// postBuildVariables are the variables Flux substitutes for ks: those of
// the ConfigMaps it substitutes from, as rendered, then its inline ones.
func postBuildVariables(ks *kustomizev1.Kustomization, configMaps map[string]*corev1.ConfigMap) map[string]string {
	vars := map[string]string{}
	if ks.Spec.PostBuild == nil {
		return vars
	}
	for _, ref := range ks.Spec.PostBuild.SubstituteFrom {
		if cm := configMaps[ks.Namespace+"/"+ref.Name]; ref.Kind == "ConfigMap" && cm != nil {
			maps.Copy(vars, cm.Data)
		}
	}
	maps.Copy(vars, ks.Spec.PostBuild.Substitute)
	return vars
}

// judgedJSON is the object the guard sees: without SOPS metadata, and for
// a Secret without its data, which no rule reads and SOPS may have
// encrypted.
func judgedJSON(o *object) ([]byte, error) {
	obj := maps.Clone(o.obj)
	delete(obj, "sops")
	if isKind(o.gvk, "", "Secret") {
		delete(obj, "data")
		delete(obj, "stringData")
	}
	return json.Marshal(obj)
}

// policyMessage is the error without the rule id its detail starts with,
// which the finding carries on its own.
func policyMessage(e *field.Error, id string) string {
	c := *e
	c.Detail = strings.TrimPrefix(c.Detail, id+": ")
	return c.Error()
}

// tenantNamespaces lists the tenant's namespaces for messages.
func tenantNamespaces(t *v1alpha1.Tenant) []string {
	names := t.NamespaceNames()
	if t.Spec.SelfService != nil {
		names = append(names, t.Spec.SelfService.Prefix+"*")
	}
	return names
}

// stringAt reads a string at a path of a JSON object, "" if absent.
func stringAt(obj map[string]any, fields ...string) string {
	var cur any = obj
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = m[f]
	}
	s, _ := cur.(string)
	return s
}

// substitute replaces ${VAR} in o with vars as kustomize-controller's
// postBuild does, with its own code: on the object's YAML, unset variables
// empty, unless the object turns substitution off.
func substitute(o *object, vars map[string]string) (*object, error) {
	if len(vars) == 0 {
		return o, nil
	}
	res, err := resources.FromMap(o.obj)
	if err != nil {
		return o, err
	}
	inline := make(map[string]any, len(vars))
	for k, v := range vars {
		inline[k] = v
	}
	// Variables from ConfigMaps are merged in already: Flux reads them
	// from the cluster unless dry-running.
	ks := unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"postBuild": map[string]any{"substitute": inline}}}}
	out, err := fluxkustomize.SubstituteVariables(context.Background(), nil, ks, res, fluxkustomize.SubstituteWithDryRun(true))
	if err != nil || out == nil {
		return o, err // nil: the object turns substitution off
	}
	c := *o
	if c.obj, err = objectOf(out); err != nil {
		return o, err
	}
	c.namespace = stringAt(c.obj, "metadata", "namespace")
	c.name = stringAt(c.obj, "metadata", "name")
	return &c, nil
}
