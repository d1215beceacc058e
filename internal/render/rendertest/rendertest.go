// Package rendertest compares what Landlord made on a cluster with
// render.Objects, for tests: which kinds to list, how to name an object,
// whether a live object holds every rendered field.
package rendertest

import (
	"context"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/kinds"
)

// Kinds are the kinds a Tenant's render holds: those the controller owns.
var Kinds = kinds.GVKs(func(k kinds.Kind) bool { return k.Owned != kinds.Unowned })

// Key names an object as Kind/namespace/name.
func Key(u *unstructured.Unstructured) string {
	return fmt.Sprintf("%s/%s/%s", u.GetKind(), u.GetNamespace(), u.GetName())
}

// Live lists the objects of Kinds that opts select, by Key.
func Live(ctx context.Context, c client.Client, opts ...client.ListOption) (map[string]*unstructured.Unstructured, error) {
	live := map[string]*unstructured.Unstructured{}
	for _, gvk := range Kinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := c.List(ctx, list, opts...); err != nil {
			return nil, fmt.Errorf("listing %s: %w", gvk.Kind, err)
		}
		for i := range list.Items {
			live[Key(&list.Items[i])] = &list.Items[i]
		}
	}
	return live, nil
}

// ByKey converts rendered objects, which carry their kind, to unstructured
// ones by Key.
func ByKey(objects []client.Object) (map[string]*unstructured.Unstructured, error) {
	out := make(map[string]*unstructured.Unstructured, len(objects))
	for _, obj := range objects {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{Object: content}
		out[Key(u)] = u
	}
	return out, nil
}

// NotHolding says which rendered field or label the live object lacks, or
// "". Binding subjects must match exactly: one more is one identity more.
func NotHolding(want, got *unstructured.Unstructured) string {
	for k, v := range want.GetLabels() {
		if got.GetLabels()[k] != v {
			return fmt.Sprintf("label %s=%q, rendered %q", k, got.GetLabels()[k], v)
		}
	}
	for field, value := range want.Object {
		switch field {
		case "apiVersion", "kind", "metadata", "status":
			continue
		case "subjects":
			if !reflect.DeepEqual(value, got.Object[field]) {
				return fmt.Sprintf("subjects %v, rendered %v", got.Object[field], value)
			}
		}
		if !equality.Semantic.DeepDerivative(value, got.Object[field]) {
			return fmt.Sprintf("%s %v, rendered %v", field, got.Object[field], value)
		}
	}
	return ""
}
