package policy

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ratchet drops from errs the violations old already had at an unchanged
// value: an update may carry a grandfathered violation along, never change
// it into another one. A violation is the same when its type, field and
// message are, and the object holds the same value at that field.
func ratchet(errs, had field.ErrorList, obj, old runtime.Object) field.ErrorList {
	if len(errs) == 0 || len(had) == 0 {
		return errs
	}
	seen := make(map[string]bool, len(had))
	for _, e := range had {
		seen[e.Error()] = true
	}
	now, before := asJSON(obj), asJSON(old)
	var kept field.ErrorList
	for _, e := range errs {
		if !seen[e.Error()] || !reflect.DeepEqual(valueAt(now, e.Field), valueAt(before, e.Field)) {
			kept = append(kept, e)
		}
	}
	return kept
}

// asJSON is obj as generic JSON, nil if it cannot be encoded.
func asJSON(obj runtime.Object) any {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

// valueAt walks a field path as field.Path prints it (a.b[0].c[key]) into
// generic JSON; nil where the path leads nowhere.
func valueAt(v any, path string) any {
	for _, step := range SplitFieldPath(path) {
		switch node := v.(type) {
		case map[string]any:
			v = node[step]
		case []any:
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= len(node) {
				return nil
			}
			v = node[i]
		default:
			return nil
		}
	}
	return v
}

// SplitFieldPath splits a field path as field.Path prints it into field
// names, map keys and indexes: spec.containers[0].env,
// metadata.labels[app.kubernetes.io/name]; keys in brackets keep their dots.
func SplitFieldPath(path string) []string {
	var steps []string
	for path != "" {
		switch path[0] {
		case '.':
			path = path[1:]
		case '[':
			end := strings.IndexByte(path, ']')
			if end < 0 {
				return append(steps, path[1:])
			}
			steps = append(steps, path[1:end])
			path = path[end+1:]
		default:
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			steps = append(steps, path[:end])
			path = path[end:]
		}
	}
	return steps
}
