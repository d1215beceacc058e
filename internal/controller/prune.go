package controller

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// objectID identifies an object across kinds.
type objectID struct {
	kind      schema.GroupKind
	namespace string
	name      string
}

func idOf(obj client.Object, gk schema.GroupKind) objectID {
	return objectID{kind: gk, namespace: obj.GetNamespace(), name: obj.GetName()}
}

// prune removes what the tenant owns but the render no longer holds: a
// source or a namespace taken out of the spec. Namespaces follow the
// deletion policy; everything else inside a kept namespace is deleted.
func (r *TenantReconciler) prune(ctx context.Context, tenant *v1alpha1.Tenant, desired []client.Object) (int, error) {
	want := map[objectID]bool{}
	for _, obj := range desired {
		want[idOf(obj, obj.GetObjectKind().GroupVersionKind().GroupKind())] = true
	}
	leaving := map[string]bool{} // namespaces that left the spec
	owned, err := r.owned(ctx, tenant, []ownedKind{namespaceKind})
	if err != nil {
		return 0, err
	}
	for _, ns := range owned {
		if !want[ns.id] {
			leaving[ns.obj.GetName()] = true
		}
	}

	pruned := 0
	others, err := r.owned(ctx, tenant, namespacedAndClusterKinds())
	if err != nil {
		return 0, err
	}
	for _, o := range append(others, owned...) {
		if want[o.id] {
			continue
		}
		// A namespace left unwanted is one that left the spec.
		isNamespace := o.id.kind.Kind == "Namespace"
		inside := leaving[o.obj.GetNamespace()]
		switch {
		case (isNamespace || inside) && tenant.Retains():
			err = r.release(ctx, o)
		case inside:
			continue // deleting its namespace deletes it
		default:
			err = r.remove(ctx, o)
		}
		if err != nil {
			return pruned, err
		}
		pruned++
	}
	return pruned, nil
}

// ownedObject is an object of the tenant found by label.
type ownedObject struct {
	id  objectID
	obj client.Object
}

func (o ownedObject) String() string {
	if o.id.namespace == "" {
		return fmt.Sprintf("%s %s", o.id.kind.Kind, o.id.name)
	}
	return fmt.Sprintf("%s %s/%s", o.id.kind.Kind, o.id.namespace, o.id.name)
}

// owned lists the tenant's objects of the given kinds: those carrying both
// its tenant label and Landlord's managed-by mark.
func (r *TenantReconciler) owned(ctx context.Context, tenant *v1alpha1.Tenant, kinds []ownedKind) ([]ownedObject, error) {
	var out []ownedObject
	for _, kind := range kinds {
		list := kind.list()
		err := r.List(ctx, list, client.MatchingLabels{
			v1alpha1.TenantLabel:    tenant.Name,
			v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue,
		})
		if meta.IsNoMatchError(err) {
			continue // Flux is not installed: nothing of its kinds exists
		}
		if err != nil {
			return nil, fmt.Errorf("listing %T: %w", list, err)
		}
		gvk, err := r.GroupVersionKindFor(kind.object())
		if err != nil {
			return nil, err
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return nil, err
		}
		for _, item := range items {
			obj := item.(client.Object)
			out = append(out, ownedObject{id: idOf(obj, gvk.GroupKind()), obj: obj})
		}
	}
	return out, nil
}

func (r *TenantReconciler) remove(ctx context.Context, o ownedObject) error {
	if err := r.Delete(ctx, o.obj, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting %s: %w", o, err)
	}
	return nil
}

// release strips Landlord's marks so the object lives on unmanaged.
func (r *TenantReconciler) release(ctx context.Context, o ownedObject) error {
	patch := client.RawPatch("application/merge-patch+json", []byte(fmt.Sprintf(
		`{"metadata":{"labels":{%q:null,%q:null,%q:null}}}`,
		v1alpha1.TenantLabel, v1alpha1.ManagedByLabel, v1alpha1.OriginLabel)))
	if err := r.Patch(ctx, o.obj, patch, client.FieldOwner(FieldOwner)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("releasing %s: %w", o, err)
	}
	return nil
}
