// Package tenancy answers who holds what: the tenant of a namespace, the
// tenants a user acts for, and the self-service rule. It is the one owner
// of those answers; the guard, the controller, lint and audit differ only
// in the Store they read from (an informer cache, a fleet on disk, a live
// list).
package tenancy

import (
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// Store is what a caller knows of Tenants and Namespaces.
type Store interface {
	// Tenant is the Tenant of that name, nil if there is none.
	Tenant(name string) *v1alpha1.Tenant
	// Assigning lists the Tenants naming ns in spec.namespaces.
	Assigning(ns string) []*v1alpha1.Tenant
	// Owning lists the Tenants naming the subject, as OwnerKey spells it,
	// in spec.owners.
	Owning(key string) []*v1alpha1.Tenant
	// Namespace is the namespace of that name, nil if it does not exist
	// (or, offline, is not declared).
	Namespace(name string) *corev1.Namespace
	// Labelled lists the namespaces labelled for the tenant.
	Labelled(tenant string) []*corev1.Namespace
	// Account is the ServiceAccount of that name in namespace if Landlord
	// made it, nil otherwise.
	Account(namespace, name string) *corev1.ServiceAccount
}

// OwnerKey spells an owner subject as Store.Owning and its indexes key it.
func OwnerKey(kind, namespace, name string) string {
	return kind + "/" + namespace + "/" + name
}

// OwnerKeys are the keys of a Tenant's owners, for an index.
func OwnerKeys(t *v1alpha1.Tenant) []string {
	keys := make([]string, 0, len(t.Spec.Owners))
	for _, o := range t.Spec.Owners {
		keys = append(keys, OwnerKey(o.Kind, o.Namespace, o.Name))
	}
	return keys
}

// SubjectKeys are the owner keys that name user, as OwnerKey spells them:
// its service account, its user name and each of its groups, the subjects
// RBAC would match it by.
func SubjectKeys(user authenticationv1.UserInfo) []string {
	var keys []string
	if ns, name, ok := SplitServiceAccount(user.Username); ok {
		keys = append(keys, OwnerKey(rbacv1.ServiceAccountKind, ns, name))
	}
	keys = append(keys, OwnerKey(rbacv1.UserKind, "", user.Username))
	for _, g := range user.Groups {
		keys = append(keys, OwnerKey(rbacv1.GroupKind, "", g))
	}
	return keys
}

// LabelledFor is the tenant an object's label names, for an index of a
// cache by tenant.
func LabelledFor(obj client.Object) []string {
	if t := obj.GetLabels()[v1alpha1.TenantLabel]; t != "" {
		return []string{t}
	}
	return nil
}

// Assigned reports whether the platform lists ns in the Tenant's spec.
func Assigned(t *v1alpha1.Tenant, ns string) bool {
	return slices.Contains(t.NamespaceNames(), ns)
}

// HoldsSelfService reports whether ns is a self-service namespace of t:
// labelled for t, not assigned, and either adopted already (an adopted
// namespace stays its tenant's whatever the prefix becomes) or named with
// the prefix. Without spec.selfService a tenant holds none.
func HoldsSelfService(t *v1alpha1.Tenant, ns *corev1.Namespace) bool {
	ss := t.Spec.SelfService
	if ss == nil || ns.Labels[v1alpha1.TenantLabel] != t.Name || Assigned(t, ns.Name) {
		return false
	}
	return Adopted(ns) || strings.HasPrefix(ns.Name, ss.Prefix)
}

// Made reports whether Landlord made the existing namespace ns for t: it
// carries t's label and Landlord's mark. An assigned namespace that is not
// is one the controller never takes over (NamespaceConflict), so its
// markers leave it out and the API server freezes it (LL026): no tenant
// holds it.
func Made(t *v1alpha1.Tenant, ns *corev1.Namespace) bool {
	return ns.Labels[v1alpha1.TenantLabel] == t.Name && ns.Labels[v1alpha1.ManagedByLabel] == v1alpha1.ManagedByValue
}

// Adopted reports whether the controller took a self-service namespace on.
func Adopted(ns *corev1.Namespace) bool {
	return ns.Labels[v1alpha1.ManagedByLabel] == v1alpha1.ManagedByValue &&
		ns.Labels[v1alpha1.OriginLabel] == string(v1alpha1.NamespaceOriginSelfService)
}

// Resolver answers tenancy questions from a Store. It implements
// policy.Tenants.
type Resolver struct {
	Store Store
}

// ForNamespace is the Tenant holding ns, or nil. An existing namespace is
// held by the tenant its label names, if that tenant assigns it and
// Landlord made it (Made), or holds it through self-service; a label
// decides between tenants that both list ns, and no tenant holds one
// Landlord did not make (the controller never takes it over). A namespace that does not exist is the
// first, by name, of the tenants assigning it.
func (r Resolver) ForNamespace(ns string) *v1alpha1.Tenant {
	if ns == "" {
		return nil
	}
	namespace := r.Store.Namespace(ns)
	if namespace == nil {
		if assigning := sorted(r.Store.Assigning(ns)); len(assigning) > 0 {
			return assigning[0]
		}
		return nil
	}
	t := r.Store.Tenant(namespace.Labels[v1alpha1.TenantLabel])
	if t == nil || !(Assigned(t, ns) && Made(t, namespace) || HoldsSelfService(t, namespace)) {
		return nil
	}
	return t
}

// Claimant is the tenant an existing namespace's label names, whether or
// not that tenant holds it: a claimed namespace nobody holds is frozen,
// not open.
func (r Resolver) Claimant(ns string) string {
	if namespace := r.Store.Namespace(ns); namespace != nil {
		return namespace.Labels[v1alpha1.TenantLabel]
	}
	return ""
}

// LandlordAccount reports whether Landlord made the ServiceAccount of that
// name in ns: a reconciler or one a TenantResource stamps.
func (r Resolver) LandlordAccount(ns, name string) bool {
	sa := r.Store.Account(ns, name)
	return sa != nil && sa.Labels[v1alpha1.ManagedByLabel] == v1alpha1.ManagedByValue
}

// Released is the tenant an existing namespace's released label names:
// the tenant that let it go with its data, "" for none.
func (r Resolver) Released(ns string) string {
	if namespace := r.Store.Namespace(ns); namespace != nil {
		return namespace.Labels[v1alpha1.ReleasedLabel]
	}
	return ""
}

// ForUser lists, by name, every Tenant user acts for: the one whose
// reconciler it is, in a namespace that tenant holds, and every one naming
// it, its service account or one of its groups among its owners.
func (r Resolver) ForUser(user authenticationv1.UserInfo) []*v1alpha1.Tenant {
	var found []*v1alpha1.Tenant
	if ns, name, ok := SplitServiceAccount(user.Username); ok {
		if t := r.ForNamespace(ns); t != nil && t.ReconcilerName() == name {
			found = append(found, t)
		}
	}
	for _, key := range SubjectKeys(user) {
		found = append(found, r.Store.Owning(key)...)
	}
	found = sorted(found)
	return slices.CompactFunc(found, func(a, b *v1alpha1.Tenant) bool { return a.Name == b.Name })
}

// SelfServiceCount is how many self-service namespaces the tenant holds,
// terminating ones included: they exist until they are gone.
func (r Resolver) SelfServiceCount(tenant string) int {
	t := r.Store.Tenant(tenant)
	if t == nil {
		return 0
	}
	n := 0
	for _, ns := range r.Store.Labelled(tenant) {
		if HoldsSelfService(t, ns) {
			n++
		}
	}
	return n
}

// sorted orders tenants by name, so that every answer is stable.
func sorted(tenants []*v1alpha1.Tenant) []*v1alpha1.Tenant {
	tenants = slices.Clone(tenants)
	slices.SortFunc(tenants, func(a, b *v1alpha1.Tenant) int { return strings.Compare(a.Name, b.Name) })
	return tenants
}

// ServiceAccountPrefix starts the user name of every service account.
const ServiceAccountPrefix = "system:serviceaccount:"

// ControllerNamespace is where Landlord's controller runs unless the chart
// is installed elsewhere; ControllerServiceAccount is its identity there.
const (
	ControllerNamespace      = "landlord-system"
	ControllerServiceAccount = "landlord-controller"
)

// ControllerUser is the user name of Landlord's controller running in
// namespace, the only writer of the objects it manages.
func ControllerUser(namespace string) string {
	return ServiceAccountPrefix + namespace + ":" + ControllerServiceAccount
}

// SplitServiceAccount splits a service account's user name into namespace
// and name.
func SplitServiceAccount(username string) (namespace, name string, ok bool) {
	rest, ok := strings.CutPrefix(username, ServiceAccountPrefix)
	if !ok {
		return "", "", false
	}
	namespace, name, ok = strings.Cut(rest, ":")
	return namespace, name, ok && namespace != "" && name != "" && !strings.Contains(name, ":")
}
