package render

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

var (
	readVerbs = []string{"get", "list", "watch"}
	allVerbs  = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
)

// TenantClusterRole is the landlord-tenant ClusterRole: admin of a
// namespace it is bound in, except that quotas and limit ranges are read
// only, and neither serviceaccounts/token nor impersonation is granted, so
// owners cannot act as the reconciler, which may hold extra grants. The
// objects Landlord manages among the writable kinds are guarded by admission.
func TenantClusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta: typeMeta(rbacv1.SchemeGroupVersion, "ClusterRole"),
		ObjectMeta: metav1.ObjectMeta{
			Name:   v1alpha1.DefaultRole,
			Labels: map[string]string{v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue},
		},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Verbs: allVerbs, Resources: []string{
				"pods", "services", "configmaps", "secrets", "persistentvolumeclaims",
				"serviceaccounts", "replicationcontrollers",
			}},
			{APIGroups: []string{""}, Verbs: []string{"create"}, Resources: []string{"pods/exec", "pods/attach", "pods/portforward", "pods/eviction"}},
			{APIGroups: []string{""}, Verbs: readVerbs, Resources: []string{
				"pods/log", "pods/status", "services/status", "endpoints", "events",
				"resourcequotas", "resourcequotas/status", "limitranges", "namespaces", "namespaces/status",
				"persistentvolumeclaims/status", "replicationcontrollers/status",
			}},
			{APIGroups: []string{"apps"}, Verbs: allVerbs, Resources: []string{
				"deployments", "deployments/scale", "statefulsets", "statefulsets/scale",
				"daemonsets", "replicasets", "replicasets/scale", "controllerrevisions",
			}},
			{APIGroups: []string{"batch"}, Verbs: allVerbs, Resources: []string{"jobs", "cronjobs"}},
			{APIGroups: []string{"autoscaling"}, Verbs: allVerbs, Resources: []string{"horizontalpodautoscalers"}},
			{APIGroups: []string{"policy"}, Verbs: allVerbs, Resources: []string{"poddisruptionbudgets"}},
			{APIGroups: []string{"networking.k8s.io"}, Verbs: allVerbs, Resources: []string{"ingresses", "networkpolicies"}},
			{APIGroups: []string{"rbac.authorization.k8s.io"}, Verbs: allVerbs, Resources: []string{"roles", "rolebindings"}},
			{APIGroups: []string{"coordination.k8s.io"}, Verbs: allVerbs, Resources: []string{"leases"}},
			{APIGroups: []string{"discovery.k8s.io"}, Verbs: readVerbs, Resources: []string{"endpointslices"}},
			{APIGroups: []string{"events.k8s.io"}, Verbs: readVerbs, Resources: []string{"events"}},
			{APIGroups: []string{
				"source.toolkit.fluxcd.io", "kustomize.toolkit.fluxcd.io", "helm.toolkit.fluxcd.io",
				"notification.toolkit.fluxcd.io", "image.toolkit.fluxcd.io",
			}, Verbs: allVerbs, Resources: []string{"*"}},
		},
	}
}
