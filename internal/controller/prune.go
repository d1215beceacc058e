package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/lockdown"
	"github.com/landlord-dev/landlord/internal/render"
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
// source, a guard rail, or a namespace taken out of the spec. A namespace
// that leaves goes to the tenant that lists it, else is released or
// deleted (see depart); everything else outside such namespaces is deleted.
//
// A namespace the render left out because the tenant did not hold it when
// this reconcile began is not leaving: another tenant may have handed it
// over since, guard rails and data included, and the next reconcile
// renders it.
func (r *TenantReconciler) prune(ctx context.Context, tenant *v1alpha1.Tenant, desired []client.Object, h render.Holdings) error {
	want := map[objectID]bool{}
	for _, obj := range desired {
		want[idOf(obj, obj.GetObjectKind().GroupVersionKind().GroupKind())] = true
	}
	namespaces, err := r.owned(ctx, tenant, []ownedKind{namespaceKind})
	if err != nil {
		return err
	}
	leaving := map[string]bool{} // namespaces that left the spec
	for _, ns := range namespaces {
		if want[ns.id] || slices.Contains(h.Refused, ns.obj.GetName()) {
			continue
		}
		leaving[ns.obj.GetName()] = true
		if err := r.depart(ctx, tenant, ns); err != nil {
			return err
		}
	}
	others, err := r.owned(ctx, tenant, namespacedAndClusterKinds())
	if err != nil {
		return err
	}
	for _, o := range others {
		if want[o.id] || leaving[o.id.namespace] || slices.Contains(h.Refused, o.id.namespace) {
			continue // departing with its namespace, or handed over since
		}
		if err := r.remove(ctx, o); err != nil {
			return err
		}
		r.tell(ctx, tenant, o.obj, "Pruned", "deleted %s: it left the Tenant's render", o)
	}
	return nil
}

// depart ends the tenant's hold on one of its namespaces: handed over to
// the tenant whose spec lists it, released with its data (keepsData), or
// deleted with everything inside. A namespace being deleted is let be.
func (r *TenantReconciler) depart(ctx context.Context, tenant *v1alpha1.Tenant, ns ownedObject) error {
	if ns.obj.GetDeletionTimestamp() != nil {
		return nil
	}
	heir, err := r.heir(ctx, tenant, ns.obj.GetName())
	switch {
	case err != nil:
		return err
	case heir != nil || keepsData(tenant, ns.obj):
		return r.letGo(ctx, tenant, ns, heir)
	}
	if err := r.remove(ctx, ns); err != nil {
		return err
	}
	r.tell(ctx, tenant, ns.obj, "Pruned", "deleted namespace %s and everything in it: it left spec.namespaces (deletionPolicy %s)", ns.id.name, tenant.Spec.DeletionPolicy)
	return nil
}

// letGo ends the tenant's power over a namespace and keeps its data. Every
// Flux object there is suspended first, so that deleting Landlord's makes
// kustomize-controller garbage-collect nothing (it prunes the inventory of
// a deleted Kustomization only when not suspended); then Landlord's Flux
// objects, the reconciler, Landlord's bindings and every RoleBinding
// reaching in from outside the namespace are deleted. The remaining guard
// rails stay: handed to heir, or unmarked. The namespace goes last, so a
// failed step is retried while it is still the tenant's: labelled for
// heir, or marked released, which the guard freezes (LL024).
func (r *TenantReconciler) letGo(ctx context.Context, tenant *v1alpha1.Tenant, ns ownedObject, heir *v1alpha1.Tenant) error {
	name := ns.obj.GetName()
	if err := r.suspendFlux(ctx, name); err != nil {
		return err
	}
	inside, err := r.owned(ctx, tenant, namespacedAndClusterKinds())
	if err != nil {
		return err
	}
	for _, o := range inside {
		if o.id.namespace != name {
			continue
		}
		switch {
		case grantsAccess(o) || isFlux(o):
			err = r.remove(ctx, o)
		case heir != nil:
			err = r.relabel(ctx, o, heir.Name)
		default:
			err = r.release(ctx, o)
		}
		if err != nil {
			return err
		}
	}
	if err := r.revokeBindings(ctx, tenant, name, heir != nil); err != nil {
		return err
	}
	if heir != nil {
		if err := r.revokeIdentities(ctx, tenant, name); err != nil {
			return err
		}
	}
	labels := fmt.Sprintf(`{%q:null,%q:null,%q:null,%q:%q}`,
		v1alpha1.TenantLabel, v1alpha1.ManagedByLabel, v1alpha1.OriginLabel, v1alpha1.ReleasedLabel, tenant.Name)
	if heir != nil {
		labels = fmt.Sprintf(`{%q:%q,%q:%q,%q:%q,%q:null}`, v1alpha1.TenantLabel, heir.Name, v1alpha1.ManagedByLabel, v1alpha1.ManagedByValue,
			v1alpha1.OriginLabel, v1alpha1.NamespaceOriginPlatform, v1alpha1.ReleasedLabel)
	}
	if err := r.patchLabels(ctx, ns, labels); err != nil {
		return err
	}
	if heir != nil {
		r.tell(ctx, tenant, ns.obj, "HandedOver", "handed namespace %s over to tenant %s: its spec lists it; the data stays, this tenant's access and Flux objects are gone", name, heir.Name)
	} else {
		r.tell(ctx, tenant, ns.obj, "Released", "released namespace %s with its data (deletionPolicy %s): access and Flux objects are gone, the guard freezes it", name, v1alpha1.DeletionPolicyRetain)
	}
	return nil
}

// grantsAccess reports the objects through which the tenant acts in a
// namespace: its reconciler and the bindings Landlord made.
func grantsAccess(o ownedObject) bool {
	switch o.id.kind.Kind {
	case "ServiceAccount", "RoleBinding":
		return o.id.kind.Group == "" || o.id.kind.Group == rbacv1.GroupName
	}
	return false
}

func isFlux(o ownedObject) bool {
	return strings.HasSuffix(o.id.kind.Group, ".toolkit.fluxcd.io")
}

// +kubebuilder:rbac:groups=helm.toolkit.fluxcd.io,resources=helmreleases,verbs=list;patch
// +kubebuilder:rbac:groups=source.toolkit.fluxcd.io,resources=ocirepositories;helmrepositories;helmcharts;buckets,verbs=list;patch
// +kubebuilder:rbac:groups=image.toolkit.fluxcd.io,resources=imagerepositories;imageupdateautomations,verbs=list;patch

// suspendFlux suspends every Flux object in a namespace, the tenant's own
// and Landlord's, read live: the cache holds only Landlord's. A
// Kustomization also stops pruning, so that whoever deletes it later
// deletes nothing it applied; a suspended HelmRelease is not uninstalled.
func (r *TenantReconciler) suspendFlux(ctx context.Context, namespace string) error {
	for _, gvk := range lockdown.Suspendable {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		err := r.APIReader.List(ctx, list, client.InNamespace(namespace))
		if meta.IsNoMatchError(err) {
			continue // Flux is not installed, or not that controller
		}
		if err != nil {
			return fmt.Errorf("listing %s in %s: %w", gvk.Kind, namespace, err)
		}
		for i := range list.Items {
			obj := &list.Items[i]
			suspended, _, _ := unstructured.NestedBool(obj.Object, "spec", "suspend")
			prunes, _, _ := unstructured.NestedBool(obj.Object, "spec", "prune")
			if suspended && !prunes {
				continue
			}
			spec := `{"spec":{"suspend":true}}`
			if gvk.Kind == "Kustomization" {
				spec = `{"spec":{"suspend":true,"prune":false}}`
			}
			if err := r.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(spec)), client.FieldOwner(FieldOwner)); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("suspending %s %s/%s: %w", gvk.Kind, namespace, obj.GetName(), err)
			}
		}
	}
	return nil
}

// revokeBindings deletes every RoleBinding in a namespace that grants an
// identity from outside it: users, groups, service accounts of other
// namespaces. In a tenant namespace the guard admitted such subjects only
// for the tenant's owners and identities (LL011); the platform re-grants
// its own once the namespace is its. Bindings of the namespace's own
// service accounts stay, so that its workloads keep running, unless the
// namespace is handed over: then every binding Landlord did not make goes
// (see revokeIdentities).
func (r *TenantReconciler) revokeBindings(ctx context.Context, tenant *v1alpha1.Tenant, namespace string, handedOver bool) error {
	list := &rbacv1.RoleBindingList{}
	if err := r.APIReader.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return fmt.Errorf("listing role bindings in %s: %w", namespace, err)
	}
	for i := range list.Items {
		rb := &list.Items[i]
		why := "it grants an identity from outside the namespace the tenant lets go"
		if !slices.ContainsFunc(rb.Subjects, func(s rbacv1.Subject) bool { return fromOutside(s, namespace) }) {
			if !handedOver || rb.Labels[v1alpha1.ManagedByLabel] == v1alpha1.ManagedByValue {
				continue
			}
			why = "identities do not pass to the tenant a namespace is handed to"
		}
		if err := r.Delete(ctx, rb); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("revoking role binding %s/%s: %w", namespace, rb.Name, err)
		}
		r.tell(ctx, tenant, rb, "Revoked", "revoked RoleBinding %s/%s: %s", namespace, rb.Name, why)
	}
	return nil
}

// revokeIdentities ends, in a namespace handed to another tenant, every
// identity the previous tenant could still act as there: the data goes to
// the heir, identities do not. With the bindings revokeBindings deleted,
// every ServiceAccount goes with its token Secrets, the default one
// included: the service account controller makes it anew under
// another UID, so that no token the previous tenant kept is valid. The
// heir's render then binds its own reconciler; workloads get accounts of
// the heir's making.
func (r *TenantReconciler) revokeIdentities(ctx context.Context, tenant *v1alpha1.Tenant, namespace string) error {
	accounts := &corev1.ServiceAccountList{}
	if err := r.APIReader.List(ctx, accounts, client.InNamespace(namespace)); err != nil {
		return fmt.Errorf("listing service accounts in %s: %w", namespace, err)
	}
	tokens := &corev1.SecretList{}
	if err := r.APIReader.List(ctx, tokens, client.InNamespace(namespace), client.MatchingFields{"type": string(corev1.SecretTypeServiceAccountToken)}); err != nil {
		return fmt.Errorf("listing token secrets in %s: %w", namespace, err)
	}
	var revoked []ownedObject
	add := func(kind string, obj client.Object) {
		if obj.GetLabels()[v1alpha1.ManagedByLabel] != v1alpha1.ManagedByValue { // Landlord's go by letGo
			revoked = append(revoked, ownedObject{id: objectID{kind: schema.GroupKind{Kind: kind}, namespace: namespace, name: obj.GetName()}, obj: obj})
		}
	}
	for i := range accounts.Items {
		add("ServiceAccount", &accounts.Items[i])
	}
	for i := range tokens.Items {
		add("Secret", &tokens.Items[i])
	}
	for _, o := range revoked {
		if err := r.Delete(ctx, o.obj); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("revoking %s: %w", o, err)
		}
		r.tell(ctx, tenant, o.obj, "Revoked", "revoked %s: identities do not pass to the tenant a namespace is handed to", o)
	}
	return nil
}

// fromOutside reports a subject that is not a service account of namespace.
func fromOutside(s rbacv1.Subject, namespace string) bool {
	if s.Kind != rbacv1.ServiceAccountKind {
		return true
	}
	return s.Namespace != "" && s.Namespace != namespace
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
func (r *TenantReconciler) owned(ctx context.Context, tenant *v1alpha1.Tenant, owned []ownedKind) ([]ownedObject, error) {
	var out []ownedObject
	for _, kind := range owned {
		list := kind.NewList()
		err := r.List(ctx, list, client.MatchingFields{tenantIndex: tenant.Name},
			client.MatchingLabels{v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue})
		if meta.IsNoMatchError(err) {
			continue // Flux is not installed: nothing of its kinds exists
		}
		if err != nil {
			return nil, fmt.Errorf("listing %T: %w", list, err)
		}
		gvk, err := r.GroupVersionKindFor(kind.New())
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

// tell records a destructive decision: one log line and one Event on the
// Tenant, naming the object and why. The object is the Event's related
// one too, so that decisions on several objects are not folded into one
// Event series.
func (r *TenantReconciler) tell(ctx context.Context, tenant *v1alpha1.Tenant, obj client.Object, reason, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	ctrl.LoggerFrom(ctx).Info(msg, "tenant", tenant.Name, "decision", reason, "namespace", obj.GetNamespace(), "name", obj.GetName())
	r.Recorder.Eventf(tenant, obj, corev1.EventTypeNormal, reason, reason, "%s", msg)
}

// remove deletes an object as cached, and only so: when the cache lags a
// change (a namespace handed to another tenant, say) the delete fails and
// the reconcile is retried on what is there.
func (r *TenantReconciler) remove(ctx context.Context, o ownedObject) error {
	precondition := client.Preconditions{UID: ptr.To(o.obj.GetUID()), ResourceVersion: ptr.To(o.obj.GetResourceVersion())}
	if err := r.Delete(ctx, o.obj, precondition, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting %s: %w", o, err)
	}
	return nil
}

// release strips Landlord's marks so the object lives on unmanaged.
func (r *TenantReconciler) release(ctx context.Context, o ownedObject) error {
	return r.patchLabels(ctx, o, fmt.Sprintf(`{%q:null,%q:null,%q:null}`,
		v1alpha1.TenantLabel, v1alpha1.ManagedByLabel, v1alpha1.OriginLabel))
}

// relabel hands a guard rail to the heir of its namespace, whose render
// then converges it as its own.
func (r *TenantReconciler) relabel(ctx context.Context, o ownedObject, heir string) error {
	return r.patchLabels(ctx, o, fmt.Sprintf(`{%q:%q}`, v1alpha1.TenantLabel, heir))
}

// patchLabels merges labels, a JSON object where null removes a key.
func (r *TenantReconciler) patchLabels(ctx context.Context, o ownedObject, labels string) error {
	patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":`+labels+`}}`))
	if err := r.Patch(ctx, o.obj, patch, client.FieldOwner(FieldOwner)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("relabelling %s: %w", o, err)
	}
	return nil
}
