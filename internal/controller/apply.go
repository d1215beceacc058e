package controller

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// apply server-side applies every object with Landlord's one field owner,
// forcing ownership so hand edits of guard rails are reverted.
func (r *TenantReconciler) apply(ctx context.Context, objects []client.Object) error {
	for _, obj := range objects {
		u, err := applyConfiguration(obj)
		if err != nil {
			return err
		}
		if err := r.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying %s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, client.ObjectKeyFromObject(obj), err)
		}
	}
	return nil
}

// applyConfiguration turns a typed object into the fields Landlord owns:
// no status, no server-set metadata.
func applyConfiguration(obj client.Object) (*unstructured.Unstructured, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting %T: %w", obj, err)
	}
	u := &unstructured.Unstructured{Object: content}
	delete(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u, nil
}
