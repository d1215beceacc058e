package render

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// resourceQuota caps one namespace; the tenant role can only read it.
func resourceQuota(t *v1alpha1.Tenant, ns string) *corev1.ResourceQuota {
	return &corev1.ResourceQuota{
		TypeMeta:   typeMeta(corev1.SchemeGroupVersion, "ResourceQuota"),
		ObjectMeta: meta(t, QuotaName, ns),
		Spec:       corev1.ResourceQuotaSpec{Hard: t.Spec.Quota.Hard.DeepCopy()},
	}
}

// limitRange sets container defaults and bounds in one namespace.
func limitRange(t *v1alpha1.Tenant, ns string) *corev1.LimitRange {
	limits := make([]corev1.LimitRangeItem, 0, len(t.Spec.LimitRange.Limits))
	for _, l := range t.Spec.LimitRange.Limits {
		limits = append(limits, *l.DeepCopy())
	}
	return &corev1.LimitRange{
		TypeMeta:   typeMeta(corev1.SchemeGroupVersion, "LimitRange"),
		ObjectMeta: meta(t, LimitRangeName, ns),
		Spec:       corev1.LimitRangeSpec{Limits: limits},
	}
}

// networkPolicy selects every pod of the namespace for ingress and allows
// it only from namespaces of the same tenant and from Network.AllowFrom,
// which denies every other tenant.
func networkPolicy(t *v1alpha1.Tenant, ns string) *networkingv1.NetworkPolicy {
	peers := []networkingv1.NetworkPolicyPeer{namespacePeer(v1alpha1.TenantLabel, t.Name)}
	for _, name := range t.Spec.Network.AllowFrom {
		peers = append(peers, namespacePeer(corev1.LabelMetadataName, name))
	}
	return &networkingv1.NetworkPolicy{
		TypeMeta:   typeMeta(networkingv1.SchemeGroupVersion, "NetworkPolicy"),
		ObjectMeta: meta(t, NetworkPolicyName, ns),
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress:     []networkingv1.NetworkPolicyIngressRule{{From: peers}},
		},
	}
}

func namespacePeer(key, value string) networkingv1.NetworkPolicyPeer {
	return networkingv1.NetworkPolicyPeer{
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{key: value}},
	}
}
