package render

import (
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// ClusterResourcesName names the role and binding of the cluster-scoped
// objects approved for a tenant.
func ClusterResourcesName(t *v1alpha1.Tenant) string {
	return "landlord:" + t.Name + ":cluster-resources"
}

// clusterResourceVerbs are what Flux's server-side apply, health checks
// and garbage collection send for one object by name; RBAC checks the
// name of an apply that creates, and lists and watches only by a
// metadata.name field selector, so naming objects bounds every verb.
var clusterResourceVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete"}

// clusterResources let the tenant's reconciler write the cluster-scoped
// objects the platform approved, at their names only. A kind the API
// server does not serve yet (a CRD not installed) gets no rule.
func clusterResources(t *v1alpha1.Tenant, served map[schema.GroupKind]string) []client.Object {
	var rules []rbacv1.PolicyRule
	for _, cr := range t.Spec.ClusterResources {
		resource, ok := served[schema.GroupKind{Group: cr.APIGroup, Kind: cr.Kind}]
		if !ok {
			continue
		}
		rules = append(rules, rbacv1.PolicyRule{
			APIGroups: []string{cr.APIGroup}, Resources: []string{resource}, ResourceNames: cr.Names, Verbs: clusterResourceVerbs,
		})
	}
	if len(rules) == 0 {
		return nil
	}
	name := ClusterResourcesName(t)
	role := &rbacv1.ClusterRole{
		TypeMeta:   typeMeta(rbacv1.SchemeGroupVersion, "ClusterRole"),
		ObjectMeta: meta(t, name, ""),
		Rules:      rules,
	}
	binding := &rbacv1.ClusterRoleBinding{
		TypeMeta:   typeMeta(rbacv1.SchemeGroupVersion, "ClusterRoleBinding"),
		ObjectMeta: meta(t, name, ""),
		Subjects: []rbacv1.Subject{{
			Kind: rbacv1.ServiceAccountKind, Name: t.ReconcilerName(), Namespace: t.HomeNamespace(),
		}},
		RoleRef: clusterRoleRef(name),
	}
	return []client.Object{role, binding}
}

// UnservedClusterResources names the approved kinds the API server does
// not serve, for the Tenant's status.
func UnservedClusterResources(t *v1alpha1.Tenant, served map[schema.GroupKind]string) []string {
	var missing []string
	for i, cr := range t.Spec.ClusterResources {
		if _, ok := served[schema.GroupKind{Group: cr.APIGroup, Kind: cr.Kind}]; !ok {
			missing = append(missing, fmt.Sprintf("spec.clusterResources[%d]: %s", i, schema.GroupKind{Group: cr.APIGroup, Kind: cr.Kind}))
		}
	}
	return missing
}
