package policy

import (
	"fmt"

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
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/json"
)

// kinds are the kinds the rules judge, by group and kind: every served
// version decodes into the one typed here, so that an older version of a
// Flux kind is judged too rather than slipping through as unknown. The
// fields the rules read have kept their names across versions.
var kinds = map[schema.GroupKind]func() runtime.Object{
	{Group: "", Kind: "Namespace"}:             func() runtime.Object { return &corev1.Namespace{} },
	{Group: "", Kind: "Pod"}:                   func() runtime.Object { return &corev1.Pod{} },
	{Group: "", Kind: "ReplicationController"}: func() runtime.Object { return &corev1.ReplicationController{} },
	{Group: "", Kind: "Service"}:               func() runtime.Object { return &corev1.Service{} },
	{Group: "", Kind: "Secret"}:                func() runtime.Object { return &corev1.Secret{} },
	// Claims, Ingresses and budgets reach what tenants share: volumes, hostnames, nodes.
	{Group: "", Kind: "PersistentVolumeClaim"}:               func() runtime.Object { return &corev1.PersistentVolumeClaim{} },
	{Group: networkingv1.GroupName, Kind: "Ingress"}:         func() runtime.Object { return &networkingv1.Ingress{} },
	{Group: policyv1.GroupName, Kind: "PodDisruptionBudget"}: func() runtime.Object { return &policyv1.PodDisruptionBudget{} },
	// Kinds Landlord manages, judged by their labels alone (LL010).
	{Group: "", Kind: "ServiceAccount"}:                                          func() runtime.Object { return &corev1.ServiceAccount{} },
	{Group: "", Kind: "ConfigMap"}:                                               func() runtime.Object { return &corev1.ConfigMap{} },
	{Group: "", Kind: "ResourceQuota"}:                                           func() runtime.Object { return &corev1.ResourceQuota{} },
	{Group: "", Kind: "LimitRange"}:                                              func() runtime.Object { return &corev1.LimitRange{} },
	{Group: networkingv1.GroupName, Kind: "NetworkPolicy"}:                       func() runtime.Object { return &networkingv1.NetworkPolicy{} },
	{Group: rbacv1.GroupName, Kind: "RoleBinding"}:                               func() runtime.Object { return &rbacv1.RoleBinding{} },
	{Group: appsv1.GroupName, Kind: "Deployment"}:                                func() runtime.Object { return &appsv1.Deployment{} },
	{Group: appsv1.GroupName, Kind: "StatefulSet"}:                               func() runtime.Object { return &appsv1.StatefulSet{} },
	{Group: appsv1.GroupName, Kind: "DaemonSet"}:                                 func() runtime.Object { return &appsv1.DaemonSet{} },
	{Group: appsv1.GroupName, Kind: "ReplicaSet"}:                                func() runtime.Object { return &appsv1.ReplicaSet{} },
	{Group: batchv1.GroupName, Kind: "Job"}:                                      func() runtime.Object { return &batchv1.Job{} },
	{Group: batchv1.GroupName, Kind: "CronJob"}:                                  func() runtime.Object { return &batchv1.CronJob{} },
	kustomizev1.GroupVersion.WithKind(kustomizev1.KustomizationKind).GroupKind(): func() runtime.Object { return &kustomizev1.Kustomization{} },
	helmv2.GroupVersion.WithKind(helmv2.HelmReleaseKind).GroupKind():             func() runtime.Object { return &helmv2.HelmRelease{} },
	sourcev1.GroupVersion.WithKind(sourcev1.GitRepositoryKind).GroupKind():       func() runtime.Object { return &sourcev1.GitRepository{} },
	sourcev1.GroupVersion.WithKind(sourcev1.OCIRepositoryKind).GroupKind():       func() runtime.Object { return &sourcev1.OCIRepository{} },
	sourcev1.GroupVersion.WithKind(sourcev1.HelmRepositoryKind).GroupKind():      func() runtime.Object { return &sourcev1.HelmRepository{} },
	sourcev1.GroupVersion.WithKind(sourcev1.BucketKind).GroupKind():              func() runtime.Object { return &sourcev1.Bucket{} },
	sourcev1.GroupVersion.WithKind(sourcev1.ExternalArtifactKind).GroupKind():    func() runtime.Object { return &sourcev1.ExternalArtifact{} },
	notificationv1.GroupVersion.WithKind("Receiver").GroupKind():                 func() runtime.Object { return &notificationv1.Receiver{} },
	notificationv1beta3.GroupVersion.WithKind("Alert").GroupKind():               func() runtime.Object { return &notificationv1beta3.Alert{} },
	notificationv1beta3.GroupVersion.WithKind("Provider").GroupKind():            func() runtime.Object { return &notificationv1beta3.Provider{} },
	imagev1.GroupVersion.WithKind(imagev1.ImageRepositoryKind).GroupKind():       func() runtime.Object { return &imagev1.ImageRepository{} },
	imagev1.GroupVersion.WithKind(imagev1.ImagePolicyKind).GroupKind():           func() runtime.Object { return &imagev1.ImagePolicy{} },
	// A tenant's approved CRD is judged for its conversion webhook.
	{Group: apiextensionsv1.GroupName, Kind: "CustomResourceDefinition"}: func() runtime.Object { return &apiextensionsv1.CustomResourceDefinition{} },
	imageautov1.GroupVersion.WithKind(imageautov1.ImageUpdateAutomationKind).GroupKind(): func() runtime.Object {
		return &imageautov1.ImageUpdateAutomation{}
	},
}

// Decode turns an admission object's raw JSON and GroupVersionKind into the
// typed object the rules expect. Unknown kinds return nil, nil: not ours to
// judge. Field names match case-sensitively, as the apiserver's do, so that
// a mis-cased field the apiserver drops is not read here either.
func Decode(gvk schema.GroupVersionKind, raw []byte) (runtime.Object, error) {
	newObject, ok := kinds[gvk.GroupKind()]
	if !ok || len(raw) == 0 {
		return nil, nil
	}
	obj := newObject()
	if err := json.UnmarshalCaseSensitivePreserveInts(raw, obj); err != nil {
		return nil, fmt.Errorf("decode %s: %w", gvk.GroupKind(), err)
	}
	return obj, nil
}
