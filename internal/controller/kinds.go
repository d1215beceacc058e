package controller

import (
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	notificationv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ownedKind is a kind the render produces, listed by tenant label.
type ownedKind struct {
	object func() client.Object
	list   func() client.ObjectList
}

// fluxKinds are deleted before anything else, Kustomizations first, so
// Flux garbage-collects the tenant's workloads while it still may.
var fluxKinds = []ownedKind{
	{func() client.Object { return &kustomizev1.Kustomization{} }, func() client.ObjectList { return &kustomizev1.KustomizationList{} }},
	{func() client.Object { return &sourcev1.GitRepository{} }, func() client.ObjectList { return &sourcev1.GitRepositoryList{} }},
}

// guardKinds live inside tenant namespaces: the guard rails, what
// TenantResources stamp, and the tenant's notifications.
var guardKinds = []ownedKind{
	{func() client.Object { return &corev1.ServiceAccount{} }, func() client.ObjectList { return &corev1.ServiceAccountList{} }},
	{func() client.Object { return &rbacv1.RoleBinding{} }, func() client.ObjectList { return &rbacv1.RoleBindingList{} }},
	{func() client.Object { return &corev1.ResourceQuota{} }, func() client.ObjectList { return &corev1.ResourceQuotaList{} }},
	{func() client.Object { return &corev1.LimitRange{} }, func() client.ObjectList { return &corev1.LimitRangeList{} }},
	{func() client.Object { return &networkingv1.NetworkPolicy{} }, func() client.ObjectList { return &networkingv1.NetworkPolicyList{} }},
	{func() client.Object { return &corev1.ConfigMap{} }, func() client.ObjectList { return &corev1.ConfigMapList{} }},
	{func() client.Object { return &corev1.Secret{} }, func() client.ObjectList { return &corev1.SecretList{} }},
	{func() client.Object { return &notificationv1beta3.Alert{} }, func() client.ObjectList { return &notificationv1beta3.AlertList{} }},
	{func() client.Object { return &notificationv1beta3.Provider{} }, func() client.ObjectList { return &notificationv1beta3.ProviderList{} }},
}

// clusterKinds are the cluster-scoped ones: bindings of extra roles and of
// self-service, and the owners' view, a role and its binding.
var clusterKinds = []ownedKind{
	{func() client.Object { return &rbacv1.ClusterRoleBinding{} }, func() client.ObjectList { return &rbacv1.ClusterRoleBindingList{} }},
	{func() client.Object { return &rbacv1.ClusterRole{} }, func() client.ObjectList { return &rbacv1.ClusterRoleList{} }},
}

var namespaceKind = ownedKind{func() client.Object { return &corev1.Namespace{} }, func() client.ObjectList { return &corev1.NamespaceList{} }}

// namespacedAndClusterKinds is every owned kind but Namespace, in deletion order.
func namespacedAndClusterKinds() []ownedKind {
	kinds := append([]ownedKind{}, fluxKinds...)
	kinds = append(kinds, guardKinds...)
	return append(kinds, clusterKinds...)
}

// ownedKinds is every kind Landlord creates, in deletion order.
func ownedKinds() []ownedKind {
	return append(namespacedAndClusterKinds(), namespaceKind)
}
