package controller

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/apivalidation"
	"github.com/landlord-dev/landlord/internal/apply"
	"github.com/landlord-dev/landlord/internal/kinds"
	"github.com/landlord-dev/landlord/internal/render"
)

// foreignObject is a desired object whose name something other than
// Landlord holds; it is never taken over.
type foreignObject struct {
	obj client.Object
}

func (f foreignObject) String() string {
	gvk := f.obj.GetObjectKind().GroupVersionKind()
	if f.obj.GetNamespace() == "" {
		return fmt.Sprintf("%s %s", gvk.Kind, f.obj.GetName())
	}
	return fmt.Sprintf("%s %s/%s", gvk.Kind, f.obj.GetNamespace(), f.obj.GetName())
}

// convergeAll converges in stages: the namespaces, then the service
// accounts in them, then everything else, which binds those accounts. An
// account another writer created since foreignAccounts looked is not
// bound on a guess: the pass stops, and the next one leaves it out of the
// render. It returns the objects it refused.
func (r *TenantReconciler) convergeAll(ctx context.Context, tenant *v1alpha1.Tenant, h render.Holdings, objects []client.Object) ([]foreignObject, error) {
	foreign, err := r.converge(ctx, tenant, stage(objects, namespaces))
	if err != nil {
		return foreign, err
	}
	refused, err := r.converge(ctx, tenant, stage(objects, accounts))
	foreign = append(foreign, refused...)
	if err != nil {
		return foreign, err
	}
	for _, f := range refused {
		key := client.ObjectKeyFromObject(f.obj)
		if slices.Contains(render.Accounts(tenant, h), key) && !slices.Contains(h.ForeignAccounts, key) {
			return foreign, fmt.Errorf("%s was created by another writer while this pass ran; it is left out of the next", f)
		}
	}
	more, err := r.converge(ctx, tenant, stage(objects, rest))
	return append(foreign, more...), err
}

// convergeAdmission applies alone what the API server's policies read of
// the tenant: who acts for it, which namespaces it holds and what it
// allows there follow its spec even while the rest of its render waits. A
// spec the Tenant's schema refuses renders nothing to apply.
func (r *TenantReconciler) convergeAdmission(ctx context.Context, tenant *v1alpha1.Tenant) error {
	if len(apivalidation.ValidateTenant(tenant)) > 0 {
		return nil
	}
	claims, err := r.claimNamespaces(ctx, tenant)
	if err != nil {
		return err
	}
	h := claims.holdings()
	if h.ForeignAccounts, err = r.foreignAccounts(ctx, tenant, h); err != nil {
		return err
	}
	if h.Stamps, err = r.stamps(ctx, tenant); err != nil {
		return err
	}
	_, err = r.converge(ctx, tenant, render.Admission(tenant, h))
	return err
}

// foreignAccounts reads the accounts the render would bind: one Landlord
// made is in its cache; one missing there is read live, and another
// writer's is left out of the render, or whoever made it would act as the
// tenant's reconciler.
func (r *TenantReconciler) foreignAccounts(ctx context.Context, tenant *v1alpha1.Tenant, h render.Holdings) ([]types.NamespacedName, error) {
	var foreign []types.NamespacedName
	for _, key := range render.Accounts(tenant, h) {
		sa := &corev1.ServiceAccount{}
		err := r.Get(ctx, key, sa)
		if err == nil && r.ours(tenant, sa) {
			continue // only Landlord's objects are cached
		}
		if err == nil {
			foreign = append(foreign, key) // another tenant's, handed over while the cache lags
			continue
		}
		if !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("reading service account %s: %w", key, err)
		}
		err = r.APIReader.Get(ctx, key, sa)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return nil, fmt.Errorf("reading service account %s: %w", key, err)
		case !r.ours(tenant, sa):
			foreign = append(foreign, key)
		}
	}
	return foreign, nil
}

// Stages of convergeAll.
const (
	namespaces = iota
	accounts
	rest
)

// stage returns the objects of one stage, in render order.
func stage(objects []client.Object, want int) []client.Object {
	var out []client.Object
	for _, obj := range objects {
		s := rest
		switch obj.(type) {
		case *corev1.Namespace:
			s = namespaces
		case *corev1.ServiceAccount:
			s = accounts
		}
		if s == want {
			out = append(out, obj)
		}
	}
	return out
}

// notAdopted says which objects were refused, or "" for none.
func notAdopted(foreign []foreignObject) string {
	if len(foreign) == 0 {
		return ""
	}
	names := make([]string, len(foreign))
	for i, f := range foreign {
		names[i] = f.String()
	}
	return strings.Join(names, ", ") + ": created by another writer before Landlord; never taken over, remove or rename it"
}

// converge makes each desired object exist as rendered and returns those it
// refused because another writer created them first. An object missing
// from the cache (which holds only Landlord's objects) is created, never
// applied onto whatever holds its name, then its fields are handed to
// Landlord's apply; one whose owned fields already say what the render
// says, and no more, is not sent at all; a binding whose immutable roleRef
// changed is replaced.
// Objects of one stage do not depend on each other, so they are sent
// concurrently: a tenant's round trips overlap instead of adding up.
func (r *TenantReconciler) converge(ctx context.Context, tenant *v1alpha1.Tenant, objects []client.Object) ([]foreignObject, error) {
	refused := make([]bool, len(objects))
	var g errgroup.Group
	g.SetLimit(convergeWorkers)
	for i, desired := range objects {
		g.Go(func() error {
			err := r.convergeOne(ctx, tenant, desired)
			if err == errForeign {
				refused[i] = true
				return nil
			}
			return err
		})
	}
	err := g.Wait()
	var foreign []foreignObject
	for i, obj := range objects {
		if refused[i] {
			foreign = append(foreign, foreignObject{obj})
		}
	}
	return foreign, err
}

// convergeWorkers bounds the requests one reconcile has in flight.
const convergeWorkers = 8

// convergeOne converges one object; errForeign when another writer holds it.
func (r *TenantReconciler) convergeOne(ctx context.Context, tenant *v1alpha1.Tenant, desired client.Object) error {
	existing, err := r.current(ctx, desired)
	switch {
	case err != nil:
		return err
	case existing == nil:
		return r.create(ctx, tenant, desired)
	case !r.ours(tenant, existing):
		return errForeign
	case roleRefChanged(desired, existing):
		return r.replace(ctx, desired, existing)
	}
	sent, err := apply.Normalized(desired)
	if err != nil {
		return err
	}
	takeBack := takesBack(desired, sent.Object)
	if upToDate(sent.Object, existing, takeBack) {
		return nil
	}
	if apply.Pending(existing, FieldOwner, takeBack) {
		if err := r.handover(ctx, tenant, desired, takeBack); err != nil {
			return err
		}
	}
	return apply.Objects(ctx, r.Client, FieldOwner, desired)
}

// errForeign marks an object name held by another writer.
var errForeign = fmt.Errorf("held by another writer")

// current is the object as cached, nil if the cache has none.
func (r *TenantReconciler) current(ctx context.Context, desired client.Object) (client.Object, error) {
	existing := desired.DeepCopyObject().(client.Object)
	err := r.Get(ctx, client.ObjectKeyFromObject(desired), existing)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", foreignObject{desired}, err)
	}
	return existing, nil
}

// create creates desired; when its name is taken, a live read tells a
// Landlord object the cache has not seen yet (applied) from another
// writer's (refused).
func (r *TenantReconciler) create(ctx context.Context, tenant *v1alpha1.Tenant, desired client.Object) error {
	obj := desired.DeepCopyObject().(client.Object)
	err := r.Create(ctx, obj, client.FieldOwner(FieldOwner))
	if !apierrors.IsAlreadyExists(err) {
		if err != nil {
			return fmt.Errorf("creating %s: %w", foreignObject{desired}, err)
		}
		return r.settle(ctx, desired, obj)
	}
	if _, isNamespace := desired.(*corev1.Namespace); isNamespace {
		// Lost a race for the name, or the cache lags: claimNamespaces
		// judges it on the next pass.
		return fmt.Errorf("creating %s: %w", foreignObject{desired}, err)
	}
	live := desired.DeepCopyObject().(client.Object)
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(desired), live); err != nil {
		return fmt.Errorf("reading %s: %w", foreignObject{desired}, err)
	}
	if !r.ours(tenant, live) {
		return errForeign
	}
	return apply.Objects(ctx, r.Client, FieldOwner, desired)
}

// ours reports whether Landlord made obj for this tenant. Tenants cannot
// write Landlord's managed-by label (LL010), so the label is Landlord's
// word. A namespace is judged by claimNamespaces instead: self-service
// ones are the tenant's before they are Landlord's.
func (r *TenantReconciler) ours(tenant *v1alpha1.Tenant, obj client.Object) bool {
	if _, isNamespace := obj.(*corev1.Namespace); isNamespace {
		return true
	}
	labels := obj.GetLabels()
	return labels[v1alpha1.ManagedByLabel] == v1alpha1.ManagedByValue && labels[v1alpha1.TenantLabel] == tenant.Name
}

// roleRefChanged reports a binding whose role the spec changed: roleRef is
// immutable, so the binding must be replaced.
func roleRefChanged(desired, existing client.Object) bool {
	switch d := desired.(type) {
	case *rbacv1.RoleBinding:
		return d.RoleRef != existing.(*rbacv1.RoleBinding).RoleRef
	case *rbacv1.ClusterRoleBinding:
		return d.RoleRef != existing.(*rbacv1.ClusterRoleBinding).RoleRef
	}
	return false
}

// replace deletes a binding and creates it anew with its new role.
func (r *TenantReconciler) replace(ctx context.Context, desired, existing client.Object) error {
	if err := r.Delete(ctx, existing, client.Preconditions{UID: ptr.To(existing.GetUID())}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("replacing %s: %w", foreignObject{desired}, err)
	}
	obj := desired.DeepCopyObject().(client.Object)
	if err := r.Create(ctx, obj, client.FieldOwner(FieldOwner)); err != nil {
		return fmt.Errorf("replacing %s: %w", foreignObject{desired}, err)
	}
	return r.settle(ctx, desired, obj)
}

// settle leaves the fields of created, Landlord's create of desired, to
// its plain write, which convergeOne hands to its apply when a change must
// remove one of them: a tenant's provisioning then costs one write an
// object, not two. Where the API server added fields that what Landlord
// sends does not set (a namespace's finalizer; a Flux kind's defaults are
// sent, apply.Normalized), they are handed over now, so that Landlord's
// plain write never holds more than the render says.
func (r *TenantReconciler) settle(ctx context.Context, desired, created client.Object) error {
	sent, err := apply.Normalized(desired)
	if err != nil {
		return err
	}
	owned, _, err := apply.Owned(created, FieldOwner)
	if err != nil {
		return err
	}
	if _, unset := apply.Unset(owned, sent.Object); !unset {
		return nil
	}
	return r.patchHandover(ctx, desired, created, nil)
}

// upToDate reports whether applying sent would change nothing: existing
// holds every field sent, labels and annotations included, Landlord owns
// no field (by its applies or its create) that sent no longer sets, and
// no other writer holds one under takeBack. The second half is what
// makes a key removed from a Tenant leave the cluster.
func upToDate(sent map[string]any, existing client.Object, takeBack []string) bool {
	owned, held, err := apply.Owned(existing, FieldOwner)
	if err != nil || !held {
		return false
	}
	if _, unset := apply.Unset(owned, sent); unset {
		return false
	}
	if apply.Taken(existing, FieldOwner, takeBack) {
		return false
	}
	have, err := runtime.DefaultUnstructuredConverter.ToUnstructured(existing)
	if err != nil {
		return false
	}
	// Compared as existing's type spells them: sent holds the defaults as
	// its CRD spells them ("60s", false), a typed object as Go does ("1m0s",
	// nothing).
	want, err := typedForm(existing, sent)
	if err != nil {
		return false
	}
	for key, value := range want {
		switch key {
		case "apiVersion", "kind", "status":
			continue
		case "metadata":
			meta, _ := value.(map[string]any)
			haveMeta, _ := have["metadata"].(map[string]any)
			for _, field := range []string{"labels", "annotations"} {
				if !contains(haveMeta[field], meta[field]) {
					return false
				}
			}
			continue
		}
		if !contains(have[key], value) {
			return false
		}
	}
	return true
}

// typedForm is u decoded into an object of like's type and encoded again;
// u itself where like is generic.
func typedForm(like client.Object, u map[string]any) (map[string]any, error) {
	if _, generic := like.(runtime.Unstructured); generic {
		return u, nil
	}
	typed := reflect.New(reflect.TypeOf(like).Elem()).Interface()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, typed); err != nil {
		return nil, err
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
}

// contains reports whether have holds want: maps key by key, lists item
// by item at equal length (the server defaults fields inside items), the
// rest equal.
func contains(have, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return len(w) == 0
		}
		for k, v := range w {
			if !contains(h[k], v) {
				return false
			}
		}
		return true
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return false
		}
		for i := range w {
			if !contains(h[i], w[i]) {
				return false
			}
		}
		return true
	case nil:
		return true
	}
	return reflect.DeepEqual(have, want)
}

// takesBack lists the top-level fields of sent whose content other
// writers may not add to: every one Landlord sets (spec, data, rules,
// subjects) but metadata, on every kind the registry names no other
// writer of. Labels and annotations others add (a cloud identity on the
// reconciler's account, a policy engine's mark) stay theirs; fields
// Landlord does not set at all (an account's imagePullSecrets) too.
func takesBack(desired client.Object, sent map[string]any) []string {
	kind, ok := kinds.Lookup(desired.GetObjectKind().GroupVersionKind().GroupKind())
	if !ok || kind.SharedWith != "" {
		return nil
	}
	var fields []string
	for field := range sent {
		switch field {
		case "apiVersion", "kind", "metadata", "status":
		default:
			fields = append(fields, field)
		}
	}
	slices.Sort(fields)
	return fields
}

// handover reads desired's object past the cache, which may lag, and gives
// Landlord's apply what plain writes hold on it: its own creates, and
// other writers' fields under takeBack, which is told on the Tenant.
func (r *TenantReconciler) handover(ctx context.Context, tenant *v1alpha1.Tenant, desired client.Object, takeBack []string) error {
	live := desired.DeepCopyObject().(client.Object)
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(desired), live); err != nil {
		return fmt.Errorf("reading %s: %w", foreignObject{desired}, err)
	}
	writers := apply.Writers(live, FieldOwner, takeBack)
	if err := r.patchHandover(ctx, desired, live, takeBack); err != nil {
		return err
	}
	if len(writers) > 0 {
		r.tell(ctx, tenant, desired, "TookBack", "took back what %s wrote in %s of %s: only the Tenant sets them",
			strings.Join(writers, ", "), strings.Join(takeBack, ", "), foreignObject{desired})
	}
	return nil
}

// handoverTries bounds the reads of an object others keep writing.
const handoverTries = 5

// patchHandover sends the hand-over of live's fields, desired naming it,
// before an apply that must remove what plain writes hold (Landlord's own
// create, so that the apply removes what the Tenant drops, and other
// writers' fields it takes back), and after a create the API server added
// to.
// A controller may write the object meanwhile (the quota's status): then
// it is read again and the hand-over made anew from what is there.
func (r *TenantReconciler) patchHandover(ctx context.Context, desired, live client.Object, takeBack []string) error {
	var err error
	for tries := 0; tries < handoverTries; tries++ {
		if tries > 0 {
			if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(live), live); err != nil {
				return fmt.Errorf("reading %s: %w", foreignObject{desired}, err)
			}
		}
		var patch []byte
		if patch, err = apply.Handover(live, FieldOwner, takeBack); err != nil || patch == nil {
			return err
		}
		if err = r.Patch(ctx, live, client.RawPatch(types.JSONPatchType, patch)); !apierrors.IsConflict(err) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("handing the fields of %s to %s: %w", foreignObject{desired}, FieldOwner, err)
	}
	return nil
}
