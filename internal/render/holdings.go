package render

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// Holdings is what the cluster says of a Tenant's namespaces and accounts:
// with it the render is exactly what the controller applies. The zero
// value renders the spec as written, as `tenant create --render` does for
// a Tenant not yet on a cluster.
type Holdings struct {
	// SelfService names the namespaces the tenant created that the
	// controller adopted; they get the guard rails of assigned ones.
	SelfService []string
	// Refused names namespaces of spec.namespaces the tenant does not hold
	// (another tenant's, or older than Landlord): nothing is rendered in
	// or for them.
	Refused []string
	// ForeignAccounts are service accounts at names the render uses that
	// another writer created first.
	ForeignAccounts []types.NamespacedName
	// QuotaUsed is what each namespace's ResourceQuota reports in use: a
	// tenant-wide quota is shared out by it.
	QuotaUsed map[string]corev1.ResourceList
	// QuotaChecked is the limits quota admission checked in each namespace
	// (the quota's status.hard): a namespace using more won Kubernetes'
	// quota race, and pays first when the tenant is over.
	QuotaChecked map[string]corev1.ResourceList
	// Stamps are what the TenantResources selecting the tenant keep in
	// each of its namespaces.
	Stamps []Stamp
	// Served is the resource the API server serves each kind of
	// spec.clusterResources at; a kind missing gets no grant.
	Served map[schema.GroupKind]string
}

// Namespaces are the tenant's namespaces the render fills: the assigned
// ones it holds, then the self-service ones.
func (h Holdings) Namespaces(t *v1alpha1.Tenant) []string {
	var held []string
	for _, name := range t.NamespaceNames() {
		if !slices.Contains(h.Refused, name) {
			held = append(held, name)
		}
	}
	return append(held, h.SelfService...)
}

// keep drops what lives in a refused namespace, and every binding subject
// that is an account of a refused namespace or of another writer: whoever
// holds that name could make the account and act as the tenant.
func (h Holdings) keep(objects []client.Object) []client.Object {
	kept := objects[:0]
	for _, obj := range objects {
		ns := obj.GetNamespace()
		if _, isNamespace := obj.(*corev1.Namespace); isNamespace {
			ns = obj.GetName()
		}
		if slices.Contains(h.Refused, ns) {
			continue
		}
		switch b := obj.(type) {
		case *rbacv1.RoleBinding:
			b.Subjects = slices.DeleteFunc(b.Subjects, h.foreign)
		case *rbacv1.ClusterRoleBinding:
			b.Subjects = slices.DeleteFunc(b.Subjects, h.foreign)
		}
		kept = append(kept, obj)
	}
	return kept
}

func (h Holdings) foreign(s rbacv1.Subject) bool {
	if s.Kind != rbacv1.ServiceAccountKind {
		return false
	}
	return slices.Contains(h.Refused, s.Namespace) ||
		slices.Contains(h.ForeignAccounts, types.NamespacedName{Namespace: s.Namespace, Name: s.Name})
}

// Accounts are the service accounts the render makes that its bindings
// name: the reconciler of each namespace the tenant holds and, with
// template sources, the templates' account. Whoever else created one
// first could act as the tenant: the controller reads them before
// rendering, and Holdings.ForeignAccounts leaves them out.
func Accounts(t *v1alpha1.Tenant, h Holdings) []types.NamespacedName {
	var out []types.NamespacedName
	for _, ns := range h.Namespaces(t) {
		out = append(out, client.ObjectKeyFromObject(serviceAccount(t, ns)))
	}
	if hasTemplates(t) {
		out = append(out, templatesAccount(t))
	}
	return out
}
