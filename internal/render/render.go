// Package render turns a Tenant into the objects it needs, as a pure
// function: no client, no clock, no randomness. The controller applies the
// result, `landlord tenant create --export` prints it.
package render

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/apivalidation"
)

// Names of the objects rendered in every tenant namespace.
const (
	ReconcilerBinding = "landlord-reconciler"
	OwnersBinding     = "landlord-owners"
	QuotaName         = "landlord-quota"
	LimitRangeName    = "landlord-limits"
	NetworkPolicyName = "landlord-isolation"
	// SelfServiceBinding lets the tenant delete a self-service namespace.
	SelfServiceBinding = "landlord-self-service"
)

// SourceLabel tells on Flux objects whether a source is the tenant's own
// repository (SourceGit) or a platform template (SourceTemplate), so policy
// and lint can tell them apart.
const (
	SourceLabel    = "landlord.dev/source"
	SourceGit      = "git"
	SourceTemplate = "template"
)

// Objects renders every object a Tenant needs, typed, with labels set,
// given what the tenant holds on the cluster: the result is exactly what
// the controller applies.
//
// The order is fixed: Namespaces in spec order, then the self-service ones;
// then per namespace its ServiceAccount, RoleBindings, ResourceQuota,
// LimitRange, NetworkPolicy and variables ConfigMap, and the objects the
// TenantResources stamp; then the ClusterRoleBindings of
// extraClusterRoles; then the role and binding of approved cluster
// resources; then the ClusterRoles and bindings marking the tenant's
// identities and namespaces; then with owners the ClusterRole and binding of their view;
// then, with template sources, the templates' account and variables in
// TemplatesNamespace and its binding in each tenant namespace; then per
// source its GitRepository and Kustomization; then the notifications'
// Provider and Alert. No object carries an ownerReference: the
// controller decides ownership.
func Objects(t *v1alpha1.Tenant, h Holdings) ([]client.Object, error) {
	errs := apivalidation.ValidateTenant(t)
	errs = append(errs, validateSelfService(t, h.SelfService)...)
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	all := h.Namespaces(t)
	objects := namespaces(t, h)
	var hards map[string]corev1.ResourceList
	if t.Spec.Quota != nil {
		hards = quotaHards(t, all, h.QuotaUsed, h.QuotaChecked)
	}
	for _, ns := range all {
		objects = append(objects, guarded(t, ns, all, hards[ns])...)
		stamps, err := stamped(t, ns, h.Stamps)
		if err != nil {
			return nil, err
		}
		objects = append(objects, stamps...)
	}
	for _, role := range t.Spec.ExtraClusterRoles {
		objects = append(objects, clusterRoleBinding(t, role))
	}
	objects = append(objects, clusterResources(t, h.Served)...)
	objects = append(objects, markers(t, all)...)
	if len(t.Spec.Owners) > 0 {
		objects = append(objects, ownerView(t, all)...)
	}
	if t.Spec.SelfService != nil {
		objects = append(objects, selfServiceBindings(t, all, h.SelfService)...)
	}
	if hasTemplates(t) {
		objects = append(objects, templateAccess(t, all)...)
	}
	for _, src := range t.Spec.Sources {
		objects = append(objects, gitRepository(t, src), kustomization(t, src))
	}
	if t.Spec.Notifications != nil && len(all) > 0 {
		objects = append(objects, notifications(t)...)
	}
	stampAccounts(objects)
	if err := clashes(objects); err != nil {
		return nil, err
	}
	return h.keep(objects), nil
}

// validateSelfService checks what the controller adopts against the spec:
// self-service set, no assigned namespace among them.
func validateSelfService(t *v1alpha1.Tenant, names []string) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("spec", "selfService")
	if len(names) == 0 {
		return nil
	}
	if t.Spec.SelfService == nil {
		return append(errs, field.Required(path, "self-service namespaces exist but spec.selfService is not set"))
	}
	// Neither prefix nor limit: a namespace adopted stays its tenant's when
	// either changes; they judge new ones only, in the controller.
	for _, name := range names {
		if slices.Contains(t.NamespaceNames(), name) {
			errs = append(errs, field.Invalid(path, name, "a self-service namespace is not in spec.namespaces"))
		}
	}
	return errs
}

// guarded is what one tenant namespace holds besides the Flux objects.
func guarded(t *v1alpha1.Tenant, ns string, all []string, hard corev1.ResourceList) []client.Object {
	objects := []client.Object{serviceAccount(t, ns), reconcilerBinding(t, ns, all)}
	if len(t.Spec.Owners) > 0 {
		objects = append(objects, ownersBinding(t, ns))
	}
	if t.Spec.Quota != nil {
		objects = append(objects, resourceQuota(t, ns, hard))
	}
	if t.Spec.LimitRange != nil {
		objects = append(objects, limitRange(t, ns))
	}
	if t.Isolated() {
		objects = append(objects, networkPolicy(t, ns))
	}
	return append(objects, variables(t, ns))
}

// meta is the metadata of every rendered object: name, namespace (empty for
// cluster-scoped kinds) and the tenant's labels.
func meta(t *v1alpha1.Tenant, name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels(t)}
}

// labels returns a fresh map each call: objects must not share one.
func labels(t *v1alpha1.Tenant) map[string]string {
	return map[string]string{
		v1alpha1.TenantLabel:    t.Name,
		v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue,
	}
}

func typeMeta(gv schema.GroupVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: gv.String(), Kind: kind}
}

// namespaces are the tenant's namespaces: those the platform assigns, then
// its self-service ones.
func namespaces(t *v1alpha1.Tenant, h Holdings) []client.Object {
	var objects []client.Object
	for _, ns := range t.Spec.Namespaces {
		objects = append(objects, namespace(t, ns.Name, v1alpha1.NamespaceOriginPlatform))
	}
	for _, ns := range h.SelfService {
		objects = append(objects, namespace(t, ns, v1alpha1.NamespaceOriginSelfService))
	}
	return objects
}
