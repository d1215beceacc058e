package render

import (
	"cmp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// QuotaScopeLabel marks the ResourceQuotas of a tenant-wide quota, whose
// use the controller follows to resize them.
const QuotaScopeLabel = "landlord.dev/quota-scope"

// resourceQuota caps one namespace; the tenant role can only read it.
func resourceQuota(t *v1alpha1.Tenant, ns string, hard corev1.ResourceList) *corev1.ResourceQuota {
	q := &corev1.ResourceQuota{
		TypeMeta:   typeMeta(corev1.SchemeGroupVersion, "ResourceQuota"),
		ObjectMeta: meta(t, QuotaName, ns),
		Spec:       corev1.ResourceQuotaSpec{Hard: hard},
	}
	if t.Spec.Quota.TenantWide() {
		q.Labels[QuotaScopeLabel] = string(v1alpha1.QuotaScopeTenant)
	}
	return q
}

// quotaHards is each namespace's hard limits. A tenant-wide quota gives
// each namespace what it uses plus an equal share of what the tenant has
// left, the units that do not divide going to the namespaces that use
// least: the namespaces' limits never add up to more than the tenant's,
// whatever they create at once. Counts are shared in whole objects. A
// tenant already over (Kubernetes' quota admits the creates in flight
// when its controller recounts) gets the excess cut below use, first
// where use exceeds what quota admission checked (the namespace that won
// the race), then from the namespaces using most: limits at each one's
// use would add up to more than the tenant's, room a deletion would
// reopen.
func quotaHards(t *v1alpha1.Tenant, all []string, used, checked map[string]corev1.ResourceList) map[string]corev1.ResourceList {
	out := make(map[string]corev1.ResourceList, len(all))
	for _, ns := range all {
		out[ns] = t.Spec.Quota.Hard.DeepCopy()
	}
	if !t.Spec.Quota.TenantWide() || len(all) == 0 {
		return out
	}
	for name, hard := range t.Spec.Quota.Hard {
		use := func(ns string) int64 {
			q := used[ns][name]
			return q.MilliValue()
		}
		// A namespace whose quota is still the tenant's but which it no
		// longer holds (one being deleted, whose pods may linger for their
		// grace period) counts until it is gone.
		var total int64
		for ns := range used {
			if !slices.Contains(all, ns) {
				total += use(ns)
			}
		}
		for _, ns := range all {
			total += use(ns)
		}
		unit := int64(1000)
		if compute(name) {
			unit = 1
		}
		if over := total - hard.MilliValue(); over > 0 {
			overshot := func(ns string) int64 {
				q, ok := checked[ns][name]
				if !ok {
					return 0
				}
				return max(use(ns)-q.MilliValue(), 0)
			}
			cutFirst := slices.Clone(all)
			slices.SortStableFunc(cutFirst, func(a, b string) int {
				return cmp.Or(cmp.Compare(overshot(b), overshot(a)), cmp.Compare(use(b), use(a)))
			})
			for _, ns := range cutFirst {
				cut := min(over, use(ns))
				out[ns][name] = *resource.NewMilliQuantity(use(ns)-cut, hard.Format)
				over -= cut
			}
			continue
		}
		free := (hard.MilliValue() - total) / unit
		share, rest := free/int64(len(all)), free%int64(len(all))
		leastFirst := slices.Clone(all)
		slices.SortStableFunc(leastFirst, func(a, b string) int { return cmp.Compare(use(a), use(b)) })
		for i, ns := range leastFirst {
			units := share
			if int64(i) < rest {
				units++
			}
			out[ns][name] = *resource.NewMilliQuantity(use(ns)+units*unit, hard.Format)
		}
	}
	return out
}

// compute reports a resource shared in milli-units (cpu, memory,
// storage, hugepages), not in whole objects.
func compute(name corev1.ResourceName) bool {
	for _, r := range []string{"cpu", "memory", "storage", "hugepages"} {
		if strings.Contains(string(name), r) {
			return true
		}
	}
	return false
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
