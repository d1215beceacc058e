// Package diff compares two sets of Tenants, per cluster overlay, and says
// what Landlord would do about the difference: Tenants added, removed and
// changed field by field, the rendered objects created, changed and pruned,
// and the destructive ones named plainly. It is pure: the caller reads the
// fleet revisions, the cluster and the guard's verdicts.
package diff

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

// Input is what Compare compares.
type Input struct {
	// Base and Head are the Tenants of each overlay (a directory of the
	// fleet Flux applies, or the cluster) before and after.
	Base, Head map[string][]*v1alpha1.Tenant
	// Live is what each tenant holds on the cluster, by tenant name; nil
	// when the comparison is between two fleet revisions.
	Live map[string]Live
	// Guard is the guard's verdict on each tenant repository, by tenant.
	Guard map[string]Verdicts
}

// Live is what one tenant holds on the cluster.
type Live struct {
	// Objects counts the objects in each of its namespaces.
	Objects map[string]int
	// QuotaUsed is each namespace's ResourceQuota status.used.
	QuotaUsed map[string]corev1.ResourceList
}

// Verdicts are the guard's verdicts on a tenant repository against the base
// and the head fleet.
type Verdicts struct {
	Before Verdict `json:"before"`
	After  Verdict `json:"after"`
}

// Verdict is the guard's findings on a tenant repository against one fleet;
// none means it passes.
type Verdict struct {
	// Tenant says whether that fleet declares the tenant: the repository is
	// judged only if so.
	Tenant   bool     `json:"tenant"`
	Findings []string `json:"findings,omitempty"`
}

func (v Verdict) passes() bool { return v.Tenant && len(v.Findings) == 0 }

func (v Verdict) equal(o Verdict) bool {
	return v.Tenant == o.Tenant && slices.Equal(v.Findings, o.Findings)
}

// Report is the outcome of Compare.
type Report struct {
	// Destructive lists, first, every change that deletes or takes away.
	Destructive []Item `json:"destructive"`
	// Overlays are those with changes, by name.
	Overlays []Overlay `json:"overlays"`
	// Guard lists the tenant repositories whose verdict was asked, by tenant.
	Guard []Guard `json:"guard,omitempty"`
}

// Item is one destructive change.
type Item struct {
	Overlay string `json:"overlay,omitempty"`
	Tenant  string `json:"tenant"`
	Message string `json:"message"`
}

// Overlay is the changes to the Tenants of one overlay.
type Overlay struct {
	Name    string   `json:"name"`
	Tenants []Tenant `json:"tenants"`
}

// Tenant is the change to one Tenant.
type Tenant struct {
	Name string `json:"name"`
	// Change is added, removed or changed.
	Change  string   `json:"change"`
	Fields  []Field  `json:"fields,omitempty"`
	Objects []Object `json:"objects,omitempty"`
}

// Field is one changed field of a Tenant; an empty side means absent.
type Field struct {
	Path   string `json:"path"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// Object is one rendered object Landlord creates, changes or prunes.
type Object struct {
	// Action is create, change or prune.
	Action    string `json:"action"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// Guard is the guard's verdict on one tenant repository before and after.
type Guard struct {
	Tenant string `json:"tenant"`
	Verdicts
}

// Changed reports whether anything changes.
func (r *Report) Changed() bool {
	return len(r.Overlays) > 0 || len(r.Destructive) > 0 || slices.ContainsFunc(r.Guard, func(g Guard) bool {
		return !g.Before.equal(g.After)
	})
}

// Changes of a Tenant.
const (
	Added   = "added"
	Removed = "removed"
	Changed = "changed"
)

// Compare renders every Tenant of both sides as the controller would and
// reports the differences. An error names the overlay and Tenant whose
// render failed.
func Compare(in Input) (*Report, error) {
	r := &Report{}
	overlays := map[string]bool{}
	for name := range in.Base {
		overlays[name] = true
	}
	for name := range in.Head {
		overlays[name] = true
	}
	for _, name := range sortedKeys(overlays) {
		o, items, err := compareOverlay(name, byName(in.Base[name]), byName(in.Head[name]), in.Live)
		if err != nil {
			return nil, err
		}
		r.Destructive = append(r.Destructive, items...)
		if len(o.Tenants) > 0 {
			r.Overlays = append(r.Overlays, o)
		}
	}
	for _, tenant := range sortedKeys(in.Guard) {
		v := in.Guard[tenant]
		r.Guard = append(r.Guard, Guard{Tenant: tenant, Verdicts: v})
		if v.Before.passes() && v.After.Tenant && !v.After.passes() {
			r.Destructive = append(r.Destructive, Item{Tenant: tenant,
				Message: fmt.Sprintf("tenant repository of %s stops passing the guard: %s, Flux will fail to apply it", tenant, verdict(v.After))})
		}
	}
	return r, nil
}

func compareOverlay(overlay string, base, head map[string]*v1alpha1.Tenant, live map[string]Live) (Overlay, []Item, error) {
	o := Overlay{Name: overlay}
	var items []Item
	// heirs says which head Tenant takes each namespace, for a namespace
	// leaving one Tenant for another.
	heirs := map[string]string{}
	for _, t := range head {
		for _, ns := range t.NamespaceNames() {
			heirs[ns] = t.Name
		}
	}
	names := map[string]bool{}
	for n := range base {
		names[n] = true
	}
	for n := range head {
		names[n] = true
	}
	for _, name := range sortedKeys(names) {
		before, after := base[name], head[name]
		l := live[name]
		objsBefore, err := rendered(overlay, before, l)
		if err != nil {
			return o, nil, err
		}
		objsAfter, err := rendered(overlay, after, l)
		if err != nil {
			return o, nil, err
		}
		t := Tenant{Name: name, Fields: fields(before, after), Objects: objects(objsBefore, objsAfter)}
		switch {
		case before == nil:
			t.Change = Added
		case after == nil:
			t.Change = Removed
		default:
			t.Change = Changed
		}
		if len(t.Fields) == 0 && len(t.Objects) == 0 {
			continue
		}
		o.Tenants = append(o.Tenants, t)
		for _, msg := range destructive(before, after, l, heirs) {
			items = append(items, Item{Overlay: overlay, Tenant: name, Message: msg})
		}
	}
	return o, items, nil
}

// rendered is what the controller applies for t given what it holds.
func rendered(overlay string, t *v1alpha1.Tenant, l Live) (map[string]client.Object, error) {
	if t == nil {
		return nil, nil
	}
	objs, err := render.Objects(t, render.Holdings{QuotaUsed: l.QuotaUsed})
	if err != nil {
		return nil, fmt.Errorf("%s: tenant %s does not render: %w", overlay, t.Name, err)
	}
	out := map[string]client.Object{}
	for _, obj := range objs {
		out[objectKey(obj)] = obj
	}
	return out, nil
}

// objectKey is "Kind namespace/name", sorting Namespaces together.
func objectKey(obj client.Object) string {
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	if obj.GetNamespace() == "" {
		return kind + " " + obj.GetName()
	}
	return kind + " " + obj.GetNamespace() + "/" + obj.GetName()
}

func objects(before, after map[string]client.Object) []Object {
	keys := map[string]bool{}
	for k := range before {
		keys[k] = true
	}
	for k := range after {
		keys[k] = true
	}
	var out []Object
	for _, k := range sortedKeys(keys) {
		b, a := before[k], after[k]
		var action string
		switch {
		case b == nil:
			action = "create"
		case a == nil:
			action = "prune"
		case !sameJSON(b, a):
			action = "change"
		default:
			continue
		}
		obj := cmp.Or(a, b)
		out = append(out, Object{Action: action, Kind: obj.GetObjectKind().GroupVersionKind().Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()})
	}
	return out
}

func sameJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// fields lists the Tenant's spec fields that differ, lists of named items
// keyed by name so that a reordering is no change.
func fields(before, after *v1alpha1.Tenant) []Field {
	flat := func(t *v1alpha1.Tenant) map[string]string {
		out := map[string]string{}
		if t == nil {
			return out
		}
		data, err := json.Marshal(t.Spec)
		if err != nil {
			return out
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			return out
		}
		flatten("spec", v, out)
		return out
	}
	b, a := flat(before), flat(after)
	paths := map[string]bool{}
	for p := range b {
		paths[p] = true
	}
	for p := range a {
		paths[p] = true
	}
	var out []Field
	for _, p := range sortedKeys(paths) {
		if b[p] != a[p] {
			out = append(out, Field{Path: p, Before: b[p], After: a[p]})
		}
	}
	return out
}

func flatten(path string, v any, out map[string]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			flatten(path+"."+k, e, out)
		}
	case []any:
		for i, e := range v {
			key := fmt.Sprint(i)
			if m, ok := e.(map[string]any); ok {
				if name, ok := m["name"].(string); ok {
					key = name
				}
			}
			flatten(path+"["+key+"]", e, out)
		}
	default:
		data, _ := json.Marshal(v)
		out[path] = strings.Trim(string(data), `"`)
	}
}

// destructive names, one sentence each, what the change from before to
// after deletes or takes away.
func destructive(before, after *v1alpha1.Tenant, l Live, heirs map[string]string) []string {
	if before == nil {
		return nil
	}
	var out []string
	if after == nil {
		out = append(out, fmt.Sprintf("tenant %s is removed (deletionPolicy %s)", before.Name, policyOf(before)))
	}
	for _, ns := range before.NamespaceNames() {
		if after != nil && slices.Contains(after.NamespaceNames(), ns) {
			continue
		}
		out = append(out, namespaceGone(before, ns, l, heirs[ns]))
	}
	if after == nil {
		return out
	}
	if policyOf(before) != policyOf(after) {
		out = append(out, fmt.Sprintf("deletionPolicy changes from %s to %s", policyOf(before), policyOf(after)))
	}
	out = append(out, quotaLowered(before, after, l)...)
	for _, o := range before.Spec.Owners {
		if !slices.Contains(after.Spec.Owners, o) {
			out = append(out, fmt.Sprintf("owner %s %s loses its RoleBinding in every namespace of the tenant", o.Kind, o.Name))
		}
	}
	for _, role := range before.Spec.ExtraClusterRoles {
		if !slices.Contains(after.Spec.ExtraClusterRoles, role) {
			out = append(out, fmt.Sprintf("ClusterRoleBinding of cluster role %s is removed", role))
		}
	}
	out = append(out, sourcesRepointed(before, after)...)
	return out
}

func policyOf(t *v1alpha1.Tenant) v1alpha1.DeletionPolicy {
	if t.Retains() {
		return v1alpha1.DeletionPolicyRetain
	}
	return v1alpha1.DeletionPolicyDelete
}

// namespaceGone says what becomes of a namespace the tenant no longer has,
// as the controller's prune decides: handed over, released or deleted.
func namespaceGone(t *v1alpha1.Tenant, ns string, l Live, heir string) string {
	held := ""
	if n, ok := l.Objects[ns]; ok {
		held = fmt.Sprintf(" (it holds %d objects)", n)
	}
	switch {
	case heir != "" && heir != t.Name:
		return fmt.Sprintf("namespace %s%s moves to tenant %s: its data stays, %s's bindings and Flux objects there are removed", ns, held, heir, t.Name)
	case t.Retains():
		return fmt.Sprintf("namespace %s%s is released with its data: %s's bindings and Flux objects there are removed", ns, held, t.Name)
	default:
		return fmt.Sprintf("namespace %s%s is deleted with everything in it", ns, held)
	}
}

// quotaLowered names each lowered quota key and, given the cluster's use,
// where the new limit is already exceeded: in each namespace the tenant
// keeps, or summed over them for a tenant-wide quota.
func quotaLowered(before, after *v1alpha1.Tenant, l Live) []string {
	if before.Spec.Quota == nil || after.Spec.Quota == nil {
		return nil
	}
	var out []string
	for _, key := range sortedKeys(before.Spec.Quota.Hard) {
		was := before.Spec.Quota.Hard[key]
		now, ok := after.Spec.Quota.Hard[key]
		if !ok || now.Cmp(was) >= 0 {
			continue
		}
		msg := fmt.Sprintf("quota %s is lowered from %s to %s", key, was.String(), now.String())
		total := resource.Quantity{}
		var over []string
		for _, ns := range after.NamespaceNames() {
			used, ok := l.QuotaUsed[ns][key]
			if !ok {
				continue
			}
			total.Add(used)
			if used.Cmp(now) > 0 {
				over = append(over, fmt.Sprintf("%s uses %s", ns, used.String()))
			}
		}
		switch {
		case after.Spec.Quota.TenantWide() && total.Cmp(now) > 0:
			msg += fmt.Sprintf(", below current use %s", total.String())
		case !after.Spec.Quota.TenantWide() && len(over) > 0:
			msg += ", below current use: " + strings.Join(over, ", ")
		}
		out = append(out, msg)
	}
	return out
}

// sourcesRepointed names each Git source removed or pointed elsewhere: Flux
// prunes what the old one applied that the new one lacks.
func sourcesRepointed(before, after *v1alpha1.Tenant) []string {
	var out []string
	for _, b := range before.Spec.Sources {
		i := slices.IndexFunc(after.Spec.Sources, func(a v1alpha1.Source) bool { return a.Name == b.Name })
		if i < 0 {
			out = append(out, fmt.Sprintf("source %s is removed: Flux prunes what it applied", b.Name))
			continue
		}
		a := after.Spec.Sources[i]
		if !reflect.DeepEqual(b.Git, a.Git) || !reflect.DeepEqual(b.Template, a.Template) {
			out = append(out, fmt.Sprintf("source %s is repointed from %s to %s", b.Name, describeGit(b), describeGit(a)))
		}
		if b.Path != a.Path {
			out = append(out, fmt.Sprintf("source %s path changes from %s to %s", b.Name, cmp.Or(b.Path, "."), cmp.Or(a.Path, ".")))
		}
	}
	return out
}

// describeGit is a source's repository and ref, as url@branch or the like.
func describeGit(s v1alpha1.Source) string {
	g := cmp.Or(s.Git, s.Template)
	if g == nil {
		return "nothing"
	}
	if g.Ref == nil {
		return g.URL
	}
	return g.URL + "@" + cmp.Or(g.Ref.Branch, g.Ref.Tag, g.Ref.SemVer, g.Ref.Commit)
}

func byName(tenants []*v1alpha1.Tenant) map[string]*v1alpha1.Tenant {
	out := map[string]*v1alpha1.Tenant{}
	for _, t := range tenants {
		out[t.Name] = t
	}
	return out
}

func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
