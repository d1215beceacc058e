package controller

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterroles,verbs=escalate

// served asks the API server which resource serves each approved
// cluster-scoped kind; a kind it does not serve (a CRD not installed yet)
// is left out and reported, and a namespaced kind is refused.
func (r *TenantReconciler) served(tenant *v1alpha1.Tenant) (map[schema.GroupKind]string, error) {
	served := map[schema.GroupKind]string{}
	for i, cr := range tenant.Spec.ClusterResources {
		gk := schema.GroupKind{Group: cr.APIGroup, Kind: cr.Kind}
		mapping, err := r.RESTMapper().RESTMapping(gk)
		if meta.IsNoMatchError(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("spec.clusterResources[%d]: resolving %s: %w", i, gk, err)
		}
		if mapping.Scope.Name() != meta.RESTScopeNameRoot {
			return nil, fmt.Errorf("spec.clusterResources[%d]: %s is namespaced; a tenant writes namespaced objects in its own namespaces, without approval", i, gk)
		}
		served[gk] = mapping.Resource.Resource
	}
	return served, nil
}

// unserved says which approved kinds wait for the API server to serve
// them, or "" for none.
func unserved(missing []string) string {
	if len(missing) == 0 {
		return ""
	}
	return strings.Join(missing, ", ") + ": not served by the API server (is its CRD installed?); no grant until it is"
}
