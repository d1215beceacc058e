package render

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

var (
	readVerbs  = []string{"get", "list", "watch"}
	writeVerbs = []string{"create", "update", "patch", "delete", "deletecollection"}
	allVerbs   = append(append([]string{}, readVerbs...), writeVerbs...)
)

// fluxResources are the kinds of the Flux controllers a tenant drives, by
// API group, named one by one: in RBAC a "*" resource takes in the status
// subresources too, which Flux's controllers trust (an artifact's URL and
// path) and Landlord folds into the Tenant's status.
var fluxResources = []struct {
	group     string
	resources []string
}{
	{"source.toolkit.fluxcd.io", []string{"gitrepositories", "ocirepositories", "helmrepositories", "helmcharts", "buckets", "externalartifacts"}},
	{"kustomize.toolkit.fluxcd.io", []string{"kustomizations"}},
	{"helm.toolkit.fluxcd.io", []string{"helmreleases"}},
	{"notification.toolkit.fluxcd.io", []string{"alerts", "providers", "receivers"}},
	{"image.toolkit.fluxcd.io", []string{"imagerepositories", "imagepolicies", "imageupdateautomations"}},
}

// ClusterRoles returned by ClusterRoles besides the tenant role.
const (
	// SelfServiceRole lets a tenant with spec.selfService create namespaces,
	// and patch them since Flux applies server-side; the admission guard
	// holds it to its prefix, label and count, and to its own namespaces.
	SelfServiceRole = "landlord-self-service"
	// SelfServiceNamespaceRole lets a tenant delete a namespace; it is bound
	// only inside self-service namespaces, so RBAC alone keeps every other
	// namespace out of reach.
	SelfServiceNamespaceRole = "landlord-self-service-namespace"
)

// ClusterRoles are the cluster-wide roles the render binds: the tenant role
// and the two self-service roles.
func ClusterRoles() []*rbacv1.ClusterRole {
	return []*rbacv1.ClusterRole{
		TenantClusterRole(),
		namespaceRole(SelfServiceRole, "create", "patch"),
		namespaceRole(SelfServiceNamespaceRole, "get", "delete"),
	}
}

func namespaceRole(name string, verbs ...string) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta: typeMeta(rbacv1.SchemeGroupVersion, "ClusterRole"),
		ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: map[string]string{v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue},
		},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: verbs}},
	}
}

// TenantClusterRole is the landlord-tenant ClusterRole: namespace admin,
// bound per namespace, without write access to the guard rails nor to any
// status. It lists
// every resource explicitly: quotas, limit ranges and namespaces are read
// only, and neither serviceaccounts/token nor the impersonate verb is
// granted, so owners cannot mint the reconciler's tokens or act as it (it
// may hold extra cluster-wide grants).
func TenantClusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta: typeMeta(rbacv1.SchemeGroupVersion, "ClusterRole"),
		ObjectMeta: metav1.ObjectMeta{
			Name:   v1alpha1.DefaultRole,
			Labels: map[string]string{v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue},
		},
		Rules: tenantRules(),
	}
}

func tenantRules() []rbacv1.PolicyRule {
	rules := []rbacv1.PolicyRule{
		// Workloads and their configuration.
		rule("", allVerbs, "pods", "services", "configmaps", "secrets", "persistentvolumeclaims",
			"serviceaccounts", "replicationcontrollers", "replicationcontrollers/scale"),
		rule("", []string{"create", "get"}, "pods/exec", "pods/attach", "pods/portforward"),
		rule("", []string{"create"}, "pods/eviction"),
		rule("", readVerbs, "pods/log", "pods/status", "services/status", "persistentvolumeclaims/status",
			"replicationcontrollers/status"),
		rule("apps", allVerbs, "deployments", "deployments/scale", "statefulsets", "statefulsets/scale",
			"daemonsets", "replicasets", "replicasets/scale"),
		rule("apps", readVerbs, "deployments/status", "statefulsets/status", "daemonsets/status",
			"replicasets/status", "controllerrevisions"),
		rule("batch", allVerbs, "jobs", "cronjobs"),
		rule("batch", readVerbs, "jobs/status", "cronjobs/status"),
		rule("autoscaling", allVerbs, "horizontalpodautoscalers"),
		rule("policy", allVerbs, "poddisruptionbudgets"),
		rule("networking.k8s.io", allVerbs, "ingresses", "networkpolicies"),
		rule("rbac.authorization.k8s.io", allVerbs, "roles", "rolebindings"),
		rule("coordination.k8s.io", allVerbs, "leases"),
		rule("authorization.k8s.io", []string{"create"}, "localsubjectaccessreviews"),

		// Read only: what the platform sets and what the cluster reports.
		rule("", readVerbs, "namespaces", "namespaces/status", "resourcequotas", "resourcequotas/status", "limitranges",
			"endpoints", "events"),
		rule("discovery.k8s.io", readVerbs, "endpointslices"),
		rule("events.k8s.io", readVerbs, "events"),
	}
	for _, g := range fluxResources {
		status := make([]string, len(g.resources))
		for i, r := range g.resources {
			status[i] = r + "/status"
		}
		rules = append(rules, rule(g.group, allVerbs, g.resources...), rule(g.group, readVerbs, status...))
	}
	return rules
}

func rule(group string, verbs []string, resources ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{
		APIGroups: []string{group},
		Resources: resources,
		Verbs:     append([]string{}, verbs...),
	}
}
