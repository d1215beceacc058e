// Package apply server-side applies typed objects under one field owner.
package apply

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Objects applies each object, forcing ownership so that hand edits of
// fields the owner sets are reverted. Objects must carry their kind.
func Objects(ctx context.Context, c client.Client, owner string, objects ...client.Object) error {
	for _, obj := range objects {
		u, err := configuration(obj)
		if err != nil {
			return err
		}
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(owner), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying %s %s: %w", u.GetKind(), client.ObjectKeyFromObject(u), err)
		}
	}
	return nil
}

// configuration keeps the fields an owner sets: no status, no server-set
// metadata.
func configuration(obj client.Object) (*unstructured.Unstructured, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting %T: %w", obj, err)
	}
	u := &unstructured.Unstructured{Object: content}
	delete(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u, nil
}
