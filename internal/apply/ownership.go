package apply

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/fluxcd/pkg/ssa/normalize"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// Normalized is obj as Objects sends it: the fields an apply of it owns,
// with what the API server would default in a custom kind set as it would
// set it, so that a create of obj holds the same fields as an apply and
// needs no second write to leave the defaults.
func Normalized(obj client.Object) (*unstructured.Unstructured, error) {
	u, err := normalize.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting %T: %w", obj, err)
	}
	if err := defaulted(u); err != nil {
		return nil, err
	}
	if err := normalize.Unstructured(u); err != nil {
		return nil, fmt.Errorf("normalizing %s %s: %w", u.GetKind(), client.ObjectKeyFromObject(u), err)
	}
	return u, nil
}

// Owned is the set of fields manager holds on obj: through server-side
// apply, and through plain writes of its own (its create), which Handover
// gives its apply before the next one; false when it holds none.
func Owned(obj metav1.Object, manager string) (*fieldpath.Set, bool, error) {
	owned, held := &fieldpath.Set{}, false
	for _, entry := range obj.GetManagedFields() {
		if entry.Manager != manager || entry.Subresource != "" {
			continue
		}
		set, err := fieldSet(entry)
		if err != nil {
			return nil, false, err
		}
		owned, held = owned.Union(set), true
	}
	return owned, held, nil
}

// applyOf reports manager's one Apply entry on the object itself.
func applyOf(entry metav1.ManagedFieldsEntry, manager string) bool {
	return entry.Manager == manager && entry.Operation == metav1.ManagedFieldsOperationApply && entry.Subresource == ""
}

// Unset returns a field manager owns that desired no longer sets: the
// next apply of desired removes it. The second result is false when
// desired sets every owned field.
func Unset(owned *fieldpath.Set, desired map[string]any) (fieldpath.Path, bool) {
	var missing fieldpath.Path
	owned.Iterate(func(p fieldpath.Path) {
		if missing == nil && !sets(desired, p) {
			missing = p.Copy()
		}
	})
	return missing, missing != nil
}

// sets reports whether obj holds a value at path p.
func sets(obj any, p fieldpath.Path) bool {
	current := obj
	for _, pe := range p {
		switch {
		case pe.FieldName != nil:
			m, ok := current.(map[string]any)
			if !ok {
				return false
			}
			if current, ok = m[*pe.FieldName]; !ok {
				return false
			}
		case pe.Index != nil:
			l, ok := current.([]any)
			if !ok || *pe.Index >= len(l) {
				return false
			}
			current = l[*pe.Index]
		case pe.Key != nil:
			item, ok := find(current, func(item any) bool { return keyed(item, *pe.Key) })
			if !ok {
				return false
			}
			current = item
		case pe.Value != nil:
			item, ok := find(current, func(item any) bool { return value.Equals(value.NewValueInterface(item), *pe.Value) })
			if !ok {
				return false
			}
			current = item
		}
	}
	return true
}

// find returns the first item of list that match accepts.
func find(list any, match func(any) bool) (any, bool) {
	l, ok := list.([]any)
	if !ok {
		return nil, false
	}
	for _, item := range l {
		if match(item) {
			return item, true
		}
	}
	return nil, false
}

// keyed reports whether item is the map a list-map key names.
func keyed(item any, key value.FieldList) bool {
	m, ok := item.(map[string]any)
	if !ok {
		return false
	}
	for _, f := range key {
		v, ok := m[f.Name]
		if !ok || !value.Equals(value.NewValueInterface(v), f.Value) {
			return false
		}
	}
	return true
}

// Pending reports whether fields of obj are held outside manager's one
// Apply entry where an apply of it must be able to remove them: all that
// its own plain writes (a create) hold, and what other writers hold under
// the top-level fields of takeBack. Until they are handed over, an apply
// cannot remove them.
func Pending(obj metav1.Object, manager string, takeBack []string) bool {
	for _, entry := range obj.GetManagedFields() {
		if taken, _, err := handedOver(entry, manager, takeBack); err != nil || !taken.Empty() {
			return true
		}
	}
	return false
}

// Taken reports whether other writers hold fields of obj under
// takeBack: what Pending reports but manager's own plain writes, which
// need no hand-over until an apply must remove a field they hold.
func Taken(obj metav1.Object, manager string, takeBack []string) bool {
	for _, entry := range obj.GetManagedFields() {
		if entry.Manager == manager {
			continue
		}
		if taken, _, err := handedOver(entry, manager, takeBack); err != nil || !taken.Empty() {
			return true
		}
	}
	return false
}

// Writers lists the other writers holding fields of obj under takeBack:
// those whose fields Handover gives manager.
func Writers(obj metav1.Object, manager string, takeBack []string) []string {
	var out []string
	for _, entry := range obj.GetManagedFields() {
		if entry.Manager == manager {
			continue
		}
		if taken, _, err := handedOver(entry, manager, takeBack); err == nil && !taken.Empty() {
			out = append(out, entry.Manager)
		}
	}
	return out
}

// handedOver splits entry's fields into what Handover gives manager and
// the rest the entry keeps: all of a plain write of its own is given, of
// another writer's the part under takeBack, of a subresource's (status is
// its controller's) or manager's Apply entry nothing.
func handedOver(entry metav1.ManagedFieldsEntry, manager string, takeBack []string) (taken, rest *fieldpath.Set, err error) {
	if entry.Subresource != "" || applyOf(entry, manager) {
		return &fieldpath.Set{}, nil, nil
	}
	set, err := fieldSet(entry)
	if err != nil || entry.Manager == manager {
		return set, &fieldpath.Set{}, err
	}
	taken = &fieldpath.Set{}
	for _, field := range takeBack {
		taken = taken.Union(set.FilterIncludeMatches(fieldpath.MakePrefixMatcherOrDie(field)))
	}
	return taken, set.Difference(taken), nil
}

// Handover returns the JSON patch that gathers into manager's Apply entry
// the fields Pending reports, as fluxcd/pkg/ssa's field-manager cleanup
// does; the next apply then owns them and removes what it no longer sets.
// Another writer keeps its entry for the rest of its fields. The patch
// holds obj's resourceVersion: a write in between makes it a conflict,
// never a hand-over of fields the caller did not see. Nil when nothing is
// pending.
func Handover(obj metav1.Object, manager string, takeBack []string) ([]byte, error) {
	owned := &fieldpath.Set{}
	var ours *metav1.ManagedFieldsEntry
	var kept []metav1.ManagedFieldsEntry
	moved := false
	for _, entry := range obj.GetManagedFields() {
		if applyOf(entry, manager) {
			set, err := fieldSet(entry)
			if err != nil {
				return nil, err
			}
			owned, ours = owned.Union(set), entry.DeepCopy()
			continue
		}
		taken, rest, err := handedOver(entry, manager, takeBack)
		if err != nil {
			return nil, err
		}
		if taken.Empty() {
			kept = append(kept, entry)
			continue
		}
		moved = true
		owned = owned.Union(taken)
		if !rest.Empty() {
			raw, err := rest.ToJSON()
			if err != nil {
				return nil, err
			}
			entry.FieldsV1 = &metav1.FieldsV1{Raw: raw}
			kept = append(kept, entry)
		}
		if ours == nil {
			ours = entry.DeepCopy()
		}
	}
	if !moved {
		return nil, nil
	}
	raw, err := owned.ToJSON()
	if err != nil {
		return nil, fmt.Errorf("encoding the fields of %s: %w", manager, err)
	}
	ours.Manager, ours.Operation, ours.Subresource = manager, metav1.ManagedFieldsOperationApply, ""
	ours.FieldsType, ours.FieldsV1 = "FieldsV1", &metav1.FieldsV1{Raw: raw}
	ours.Time = &metav1.Time{Time: time.Now().UTC().Truncate(time.Second)}
	patch := []map[string]any{
		{"op": "replace", "path": "/metadata/resourceVersion", "value": obj.GetResourceVersion()},
		{"op": "replace", "path": "/metadata/managedFields", "value": append(kept, *ours)},
	}
	return json.Marshal(patch)
}

func fieldSet(entry metav1.ManagedFieldsEntry) (*fieldpath.Set, error) {
	set := &fieldpath.Set{}
	if entry.FieldsV1 == nil {
		return set, nil
	}
	if err := set.FromJSON(bytes.NewReader(entry.FieldsV1.Raw)); err != nil {
		return nil, fmt.Errorf("reading the fields of %s: %w", entry.Manager, err)
	}
	return set, nil
}
