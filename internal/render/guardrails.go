package render

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

func resourceQuota(t *v1alpha1.Tenant, ns string) *corev1.ResourceQuota {
	return &corev1.ResourceQuota{
		TypeMeta:   typeMeta(corev1.SchemeGroupVersion, "ResourceQuota"),
		ObjectMeta: meta(t, QuotaName, ns),
		Spec:       corev1.ResourceQuotaSpec{Hard: t.Spec.Quota.Hard.DeepCopy()},
	}
}

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

// networkPolicy selects every pod of the namespace for ingress, so only the
// listed peers get in: the tenant's own namespaces and network.allowFrom.
// Every other tenant's traffic is denied.
func networkPolicy(t *v1alpha1.Tenant, ns string) *networkingv1.NetworkPolicy {
	peers := []networkingv1.NetworkPolicyPeer{{
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{v1alpha1.TenantLabel: t.Name}},
	}}
	for _, from := range t.Spec.Network.AllowFrom {
		peers = append(peers, networkingv1.NetworkPolicyPeer{
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: from}},
		})
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
