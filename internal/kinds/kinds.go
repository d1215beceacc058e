// Package kinds is the one table of every kind Landlord touches and what
// it does with each: renders and owns it, lets a TenantResource stamp it,
// judges it, grants it to tenants, suspends it on release. Render, the
// controller's cache, watches and prune, the webhook's routes, the
// policy's decoders, the tenant role, lockdown and audit all read it, so
// that no second list can fall behind.
package kinds

import (
	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	imageautov1 "github.com/fluxcd/image-automation-controller/api/v1"
	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	notificationv1 "github.com/fluxcd/notification-controller/api/v1"
	notificationv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Kind is one kind and what Landlord does with it.
type Kind struct {
	schema.GroupVersionKind
	// Resource is its plural in the API.
	Resource   string
	Namespaced bool
	// New makes its typed object, nil where nothing decodes it.
	New func() client.Object
	// NewList makes its typed list, nil where nothing lists it.
	NewList func() client.ObjectList

	// Owned is when the controller deletes the kind's objects that it
	// rendered, or Unowned: the render makes them, the controller caches,
	// watches and prunes them.
	Owned Stage
	// SharedWith says who else writes Landlord's objects of the kind, so
	// that the controller leaves their fields alone; elsewhere it takes
	// back what other writers add.
	SharedWith string
	// Stamped kinds are what a TenantResource may stamp into tenant
	// namespaces.
	Stamped bool

	// Judged kinds are decoded by the policy and, when namespaced, routed
	// to the guard in tenant namespaces on every write.
	Judged bool
	// InProcess kinds are judged only by the API server's own policy
	// (policy.InProcess: LL010, and the rules of the kind's content it
	// holds): no rule of the webhook's reads them, so their writes never
	// call it.
	InProcess bool
	// Unjudged says why tenants may write the kind with no judgement.
	Unjudged string

	// Tenant is the tenant role's access to the kind.
	Tenant Access
	// Spawned kinds are made by the cluster's controllers from what
	// tenants write, as many as their specs ask for: the tenant defaults
	// count them as they count what tenants create.
	Spawned bool
	// Subresources are the tenant role's grants on subresources, by name.
	Subresources map[string]Access
	// Suspended kinds act while spec.suspend is false: a released
	// namespace keeps them suspended.
	Suspended bool
	// TrustedStatus kinds have a status their controllers or Landlord
	// trust: the audit proves tenants cannot write it.
	TrustedStatus bool
}

// Stage orders the deletion of what the controller owns.
type Stage int

// Stages, in deletion order: Flux objects first, Kustomizations before
// sources, so that Flux garbage-collects the tenant's workloads while it
// still may; the guard rails in namespaces; the cluster-wide grants; the
// namespaces last.
const (
	Unowned Stage = iota
	FluxStage
	NamespacedStage
	ClusterStage
	NamespaceStage
)

// Access is what the tenant role grants on a kind or subresource.
type Access int

// Accesses, from none to every verb.
const (
	NoAccess Access = iota
	Read
	// Create is create alone (evictions, access reviews).
	Create
	// Connect is create and get (exec, attach, port-forward).
	Connect
	Write
)

var (
	readAccess = map[string]Access{"status": Read}
	scale      = map[string]Access{"status": Read, "scale": Write}
)

// All is every kind Landlord touches, in deletion order where owned.
var All = []Kind{
	// Flux's kinds. Kustomizations go before their sources.
	{GroupVersionKind: kustomizev1.GroupVersion.WithKind(kustomizev1.KustomizationKind), Resource: "kustomizations", Namespaced: true,
		New: func() client.Object { return &kustomizev1.Kustomization{} }, NewList: func() client.ObjectList { return &kustomizev1.KustomizationList{} },
		Owned: FluxStage, SharedWith: "kustomize-controller adds its finalizer", Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess,
		Suspended: true, TrustedStatus: true},
	{GroupVersionKind: sourcev1.GroupVersion.WithKind(sourcev1.GitRepositoryKind), Resource: "gitrepositories", Namespaced: true,
		New: func() client.Object { return &sourcev1.GitRepository{} }, NewList: func() client.ObjectList { return &sourcev1.GitRepositoryList{} },
		Owned: FluxStage, SharedWith: "source-controller adds its finalizer", Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess,
		Suspended: true, TrustedStatus: true},
	{GroupVersionKind: helmv2.GroupVersion.WithKind(helmv2.HelmReleaseKind), Resource: "helmreleases", Namespaced: true,
		New:    func() client.Object { return &helmv2.HelmRelease{} },
		Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess, Suspended: true, TrustedStatus: true},
	{GroupVersionKind: sourcev1.GroupVersion.WithKind(sourcev1.OCIRepositoryKind), Resource: "ocirepositories", Namespaced: true,
		New:    func() client.Object { return &sourcev1.OCIRepository{} },
		Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess, Suspended: true, TrustedStatus: true},
	{GroupVersionKind: sourcev1.GroupVersion.WithKind(sourcev1.HelmRepositoryKind), Resource: "helmrepositories", Namespaced: true,
		New:    func() client.Object { return &sourcev1.HelmRepository{} },
		Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess, Suspended: true},
	{GroupVersionKind: sourcev1.GroupVersion.WithKind(sourcev1.HelmChartKind), Resource: "helmcharts", Namespaced: true,
		New:    func() client.Object { return &sourcev1.HelmChart{} },
		Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess, Suspended: true},
	{GroupVersionKind: sourcev1.GroupVersion.WithKind(sourcev1.BucketKind), Resource: "buckets", Namespaced: true,
		New:    func() client.Object { return &sourcev1.Bucket{} },
		Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess, Suspended: true},
	{GroupVersionKind: sourcev1.GroupVersion.WithKind(sourcev1.ExternalArtifactKind), Resource: "externalartifacts", Namespaced: true,
		New:    func() client.Object { return &sourcev1.ExternalArtifact{} },
		Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess, TrustedStatus: true},
	{GroupVersionKind: notificationv1.GroupVersion.WithKind(notificationv1.ReceiverKind), Resource: "receivers", Namespaced: true,
		New:    func() client.Object { return &notificationv1.Receiver{} },
		Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess},
	{GroupVersionKind: imagev1.GroupVersion.WithKind(imagev1.ImageRepositoryKind), Resource: "imagerepositories", Namespaced: true,
		New:    func() client.Object { return &imagev1.ImageRepository{} },
		Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess, Suspended: true},
	{GroupVersionKind: imagev1.GroupVersion.WithKind(imagev1.ImagePolicyKind), Resource: "imagepolicies", Namespaced: true,
		New:    func() client.Object { return &imagev1.ImagePolicy{} },
		Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess},
	{GroupVersionKind: imageautov1.GroupVersion.WithKind(imageautov1.ImageUpdateAutomationKind), Resource: "imageupdateautomations", Namespaced: true,
		New:    func() client.Object { return &imageautov1.ImageUpdateAutomation{} },
		Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess, Suspended: true},

	// What Landlord renders inside tenant namespaces.
	{GroupVersionKind: corev1.SchemeGroupVersion.WithKind("ServiceAccount"), Resource: "serviceaccounts", Namespaced: true,
		New: func() client.Object { return &corev1.ServiceAccount{} }, NewList: func() client.ObjectList { return &corev1.ServiceAccountList{} },
		Owned: NamespacedStage, Stamped: true, Judged: true, InProcess: true, Tenant: Write},
	{GroupVersionKind: rbacv1.SchemeGroupVersion.WithKind("RoleBinding"), Resource: "rolebindings", Namespaced: true,
		New: func() client.Object { return &rbacv1.RoleBinding{} }, NewList: func() client.ObjectList { return &rbacv1.RoleBindingList{} },
		Owned: NamespacedStage, Judged: true, Tenant: Write},
	{GroupVersionKind: corev1.SchemeGroupVersion.WithKind("ResourceQuota"), Resource: "resourcequotas", Namespaced: true,
		New: func() client.Object { return &corev1.ResourceQuota{} }, NewList: func() client.ObjectList { return &corev1.ResourceQuotaList{} },
		Owned: NamespacedStage, Stamped: true, Judged: true, InProcess: true, Tenant: Read, Subresources: readAccess},
	{GroupVersionKind: corev1.SchemeGroupVersion.WithKind("LimitRange"), Resource: "limitranges", Namespaced: true,
		New: func() client.Object { return &corev1.LimitRange{} }, NewList: func() client.ObjectList { return &corev1.LimitRangeList{} },
		Owned: NamespacedStage, Stamped: true, Judged: true, InProcess: true, Tenant: Read},
	{GroupVersionKind: networkingv1.SchemeGroupVersion.WithKind("NetworkPolicy"), Resource: "networkpolicies", Namespaced: true,
		New: func() client.Object { return &networkingv1.NetworkPolicy{} }, NewList: func() client.ObjectList { return &networkingv1.NetworkPolicyList{} },
		Owned: NamespacedStage, Stamped: true, Judged: true, InProcess: true, Tenant: Write},
	{GroupVersionKind: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Resource: "configmaps", Namespaced: true,
		New: func() client.Object { return &corev1.ConfigMap{} }, NewList: func() client.ObjectList { return &corev1.ConfigMapList{} },
		Owned: NamespacedStage, Stamped: true, Judged: true, InProcess: true, Tenant: Write},
	{GroupVersionKind: corev1.SchemeGroupVersion.WithKind("Secret"), Resource: "secrets", Namespaced: true,
		New: func() client.Object { return &corev1.Secret{} }, NewList: func() client.ObjectList { return &corev1.SecretList{} },
		Owned: NamespacedStage, Stamped: true, Judged: true, Tenant: Write},
	{GroupVersionKind: notificationv1beta3.GroupVersion.WithKind(notificationv1beta3.AlertKind), Resource: "alerts", Namespaced: true,
		New: func() client.Object { return &notificationv1beta3.Alert{} }, NewList: func() client.ObjectList { return &notificationv1beta3.AlertList{} },
		Owned: NamespacedStage, Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess},
	{GroupVersionKind: notificationv1beta3.GroupVersion.WithKind(notificationv1beta3.ProviderKind), Resource: "providers", Namespaced: true,
		New: func() client.Object { return &notificationv1beta3.Provider{} }, NewList: func() client.ObjectList { return &notificationv1beta3.ProviderList{} },
		Owned: NamespacedStage, Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess},

	// The cluster-wide grants: extra roles, self-service, the owners' view.
	{GroupVersionKind: rbacv1.SchemeGroupVersion.WithKind("ClusterRoleBinding"), Resource: "clusterrolebindings",
		New: func() client.Object { return &rbacv1.ClusterRoleBinding{} }, NewList: func() client.ObjectList { return &rbacv1.ClusterRoleBindingList{} },
		Owned: ClusterStage},
	{GroupVersionKind: rbacv1.SchemeGroupVersion.WithKind("ClusterRole"), Resource: "clusterroles",
		New: func() client.Object { return &rbacv1.ClusterRole{} }, NewList: func() client.ObjectList { return &rbacv1.ClusterRoleList{} },
		Owned: ClusterStage},

	{GroupVersionKind: corev1.SchemeGroupVersion.WithKind("Namespace"), Resource: "namespaces",
		New: func() client.Object { return &corev1.Namespace{} }, NewList: func() client.ObjectList { return &corev1.NamespaceList{} },
		Owned: NamespaceStage, SharedWith: "the API server labels it, and a self-service tenant creates it", Judged: true,
		Tenant: Read, Subresources: readAccess},

	// What tenants run, judged for what it reaches that tenants share.
	{GroupVersionKind: corev1.SchemeGroupVersion.WithKind("Pod"), Resource: "pods", Namespaced: true,
		New: func() client.Object { return &corev1.Pod{} }, Judged: true, InProcess: true, Tenant: Write,
		Subresources: map[string]Access{"status": Read, "log": Read, "exec": Connect, "attach": Connect, "portforward": Connect, "eviction": Create}},
	{GroupVersionKind: corev1.SchemeGroupVersion.WithKind("ReplicationController"), Resource: "replicationcontrollers", Namespaced: true,
		New: func() client.Object { return &corev1.ReplicationController{} }, Judged: true, InProcess: true, Tenant: Write, Subresources: scale},
	{GroupVersionKind: corev1.SchemeGroupVersion.WithKind("Service"), Resource: "services", Namespaced: true,
		New: func() client.Object { return &corev1.Service{} }, Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess},
	{GroupVersionKind: corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"), Resource: "persistentvolumeclaims", Namespaced: true,
		New: func() client.Object { return &corev1.PersistentVolumeClaim{} }, Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess},
	{GroupVersionKind: appsv1.SchemeGroupVersion.WithKind("Deployment"), Resource: "deployments", Namespaced: true,
		New: func() client.Object { return &appsv1.Deployment{} }, Judged: true, InProcess: true, Tenant: Write, Subresources: scale},
	{GroupVersionKind: appsv1.SchemeGroupVersion.WithKind("StatefulSet"), Resource: "statefulsets", Namespaced: true,
		New: func() client.Object { return &appsv1.StatefulSet{} }, Judged: true, InProcess: true, Tenant: Write, Subresources: scale},
	{GroupVersionKind: appsv1.SchemeGroupVersion.WithKind("DaemonSet"), Resource: "daemonsets", Namespaced: true,
		New: func() client.Object { return &appsv1.DaemonSet{} }, Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess},
	{GroupVersionKind: appsv1.SchemeGroupVersion.WithKind("ReplicaSet"), Resource: "replicasets", Namespaced: true,
		New: func() client.Object { return &appsv1.ReplicaSet{} }, Judged: true, InProcess: true, Tenant: Write, Subresources: scale},
	{GroupVersionKind: batchv1.SchemeGroupVersion.WithKind("Job"), Resource: "jobs", Namespaced: true,
		New: func() client.Object { return &batchv1.Job{} }, Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess},
	{GroupVersionKind: batchv1.SchemeGroupVersion.WithKind("CronJob"), Resource: "cronjobs", Namespaced: true,
		New: func() client.Object { return &batchv1.CronJob{} }, Judged: true, InProcess: true, Tenant: Write, Subresources: readAccess},
	{GroupVersionKind: networkingv1.SchemeGroupVersion.WithKind("Ingress"), Resource: "ingresses", Namespaced: true,
		New: func() client.Object { return &networkingv1.Ingress{} }, Judged: true, Tenant: Write},
	// The Gateway API's (LL030): what routes attach to and the hostnames
	// they claim. A ReferenceGrant opens the tenant's own objects to
	// others' references, never the reverse.
	{GroupVersionKind: gatewayv1.SchemeGroupVersion.WithKind("Gateway"), Resource: "gateways", Namespaced: true,
		New: func() client.Object { return &gatewayv1.Gateway{} }, Judged: true, Tenant: Write, Subresources: readAccess},
	{GroupVersionKind: gatewayv1.SchemeGroupVersion.WithKind("ListenerSet"), Resource: "listenersets", Namespaced: true,
		New: func() client.Object { return &gatewayv1.ListenerSet{} }, Judged: true, Tenant: Write, Subresources: readAccess},
	{GroupVersionKind: gatewayv1.SchemeGroupVersion.WithKind("HTTPRoute"), Resource: "httproutes", Namespaced: true,
		New: func() client.Object { return &gatewayv1.HTTPRoute{} }, Judged: true, Tenant: Write, Subresources: readAccess},
	{GroupVersionKind: gatewayv1.SchemeGroupVersion.WithKind("GRPCRoute"), Resource: "grpcroutes", Namespaced: true,
		New: func() client.Object { return &gatewayv1.GRPCRoute{} }, Judged: true, Tenant: Write, Subresources: readAccess},
	{GroupVersionKind: gatewayv1.SchemeGroupVersion.WithKind("TLSRoute"), Resource: "tlsroutes", Namespaced: true,
		New: func() client.Object { return &gatewayv1.TLSRoute{} }, Judged: true, Tenant: Write, Subresources: readAccess},
	{GroupVersionKind: gatewayv1.SchemeGroupVersion.WithKind("TCPRoute"), Resource: "tcproutes", Namespaced: true,
		New: func() client.Object { return &gatewayv1.TCPRoute{} }, Judged: true, Tenant: Write, Subresources: readAccess},
	{GroupVersionKind: gatewayv1.SchemeGroupVersion.WithKind("UDPRoute"), Resource: "udproutes", Namespaced: true,
		New: func() client.Object { return &gatewayv1.UDPRoute{} }, Judged: true, Tenant: Write, Subresources: readAccess},
	{GroupVersionKind: gatewayv1.SchemeGroupVersion.WithKind("ReferenceGrant"), Resource: "referencegrants", Namespaced: true,
		Tenant: Write, Unjudged: "it lets other namespaces reference the tenant's own objects, never the tenant reach theirs"},
	{GroupVersionKind: policyv1.SchemeGroupVersion.WithKind("PodDisruptionBudget"), Resource: "poddisruptionbudgets", Namespaced: true,
		New: func() client.Object { return &policyv1.PodDisruptionBudget{} }, Judged: true, InProcess: true, Tenant: Write},
	{GroupVersionKind: rbacv1.SchemeGroupVersion.WithKind("Role"), Resource: "roles", Namespaced: true,
		New: func() client.Object { return &rbacv1.Role{} }, Judged: true, InProcess: true, Tenant: Write},
	// Approved cluster resources that could make themselves the cluster's
	// default are judged for it.
	{GroupVersionKind: storagev1.SchemeGroupVersion.WithKind("StorageClass"), Resource: "storageclasses",
		New: func() client.Object { return &storagev1.StorageClass{} }, Judged: true},
	{GroupVersionKind: networkingv1.SchemeGroupVersion.WithKind("IngressClass"), Resource: "ingressclasses",
		New: func() client.Object { return &networkingv1.IngressClass{} }, Judged: true},
	{GroupVersionKind: schedulingv1.SchemeGroupVersion.WithKind("PriorityClass"), Resource: "priorityclasses",
		New: func() client.Object { return &schedulingv1.PriorityClass{} }, Judged: true},
	// A tenant's approved CRD is judged for its conversion webhook.
	{GroupVersionKind: apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"), Resource: "customresourcedefinitions",
		New: func() client.Object { return &apiextensionsv1.CustomResourceDefinition{} }, Judged: true},

	// Granted to tenants with no judgement.
	{GroupVersionKind: schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}, Resource: "horizontalpodautoscalers", Namespaced: true,
		Tenant: Write, Unjudged: "it scales a workload of its own namespace, within the quota"},
	{GroupVersionKind: schema.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}, Resource: "leases", Namespaced: true,
		Tenant: Write, Unjudged: "leader election among the tenant's own pods; it names nothing"},
	{GroupVersionKind: schema.GroupVersionKind{Group: "authorization.k8s.io", Version: "v1", Kind: "LocalSubjectAccessReview"}, Resource: "localsubjectaccessreviews", Namespaced: true,
		Tenant: Create, Unjudged: "a question about its own namespace, persisted nowhere"},
	// A StatefulSet or DaemonSet keeps as many as its revisionHistoryLimit.
	{GroupVersionKind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ControllerRevision"}, Resource: "controllerrevisions", Namespaced: true, Tenant: Read,
		Spawned: true},
	{GroupVersionKind: corev1.SchemeGroupVersion.WithKind("Endpoints"), Resource: "endpoints", Namespaced: true, Tenant: Read},
	{GroupVersionKind: corev1.SchemeGroupVersion.WithKind("Event"), Resource: "events", Namespaced: true, Tenant: Read},
	{GroupVersionKind: schema.GroupVersionKind{Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice"}, Resource: "endpointslices", Namespaced: true, Tenant: Read},
	{GroupVersionKind: schema.GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"}, Resource: "events", Namespaced: true, Tenant: Read},
}

// ObjectCount is the ResourceQuota key that counts the kind's objects in
// a namespace.
func (k Kind) ObjectCount() string {
	if k.Group == "" {
		return "count/" + k.Resource
	}
	return "count/" + k.Resource + "." + k.Group
}

// Select lists the kinds keep accepts, in table order.
func Select(keep func(Kind) bool) []Kind {
	var out []Kind
	for _, k := range All {
		if keep(k) {
			out = append(out, k)
		}
	}
	return out
}

// GVKs lists the group, version and kind of each kind keep accepts.
func GVKs(keep func(Kind) bool) []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for _, k := range Select(keep) {
		out = append(out, k.GroupVersionKind)
	}
	return out
}

// Owned lists the kinds the controller owns at stage.
func Owned(stage Stage) []Kind {
	return Select(func(k Kind) bool { return k.Owned == stage })
}

// Lookup finds a kind by group and kind, whatever the version.
func Lookup(gk schema.GroupKind) (Kind, bool) {
	for _, k := range All {
		if k.GroupKind() == gk {
			return k, true
		}
	}
	return Kind{}, false
}
