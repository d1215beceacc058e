package policy

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// ruleScheduling is rule LL019, declared here beside it and listed in Rules.
var ruleScheduling = Rule{"LL019", "pod-scheduling", "a priority class preempts other tenants' pods, and a node name, node selector or toleration lands pods on nodes the platform keeps for itself or another tenant, and a pod affinity term selecting namespaces keeps other tenants' pods off nodes or learns their labels: pods choose only what the Tenant allows"}

// defaultNodeLabels are the node labels any pod may select on: no tenant
// holds an operating system, an architecture or a zone.
var defaultNodeLabels = []string{corev1.LabelOSStable, corev1.LabelArchStable, corev1.LabelTopologyZone, corev1.LabelTopologyRegion}

// defaultTolerations are the node-condition taints Kubernetes' own
// controllers tolerate for pods (DefaultTolerationSeconds, the DaemonSet
// controller), so that ordinary charts and DaemonSets keep running.
var defaultTolerations = []string{
	corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable, corev1.TaintNodeMemoryPressure, corev1.TaintNodeDiskPressure,
	corev1.TaintNodePIDPressure, corev1.TaintNodeNetworkUnavailable, corev1.TaintNodeUnschedulable,
}

// scheduling is rule LL019 on a pod spec.
func scheduling(spec *corev1.PodSpec, p *field.Path, s scope) field.ErrorList {
	errs := priorityClass(spec.PriorityClassName, p.Child("priorityClassName"), s)
	// Kubelets create mirror pods bound to their node; a tenant's pod
	// pinned so skips the scheduler, and with it every taint.
	if spec.NodeName != "" && !s.writer.platform {
		errs = append(errs, forbidden(ruleScheduling, p.Child("nodeName"), "pods may not be pinned to a node; allowed: unset, the scheduler places pods"))
	}
	for _, key := range slices.Sorted(maps.Keys(spec.NodeSelector)) {
		if value := spec.NodeSelector[key]; !nodeLabelAllowed(key, []string{value}, s) {
			errs = append(errs, invalid(ruleScheduling, p.Child("nodeSelector").Key(key), value, "tenant "+s.tenant.Name+" may not select nodes by this label; allowed: "+allowedNodeLabels(s)))
		}
	}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil {
		na, path := a.NodeAffinity, p.Child("affinity", "nodeAffinity")
		if r := na.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
			terms := path.Child("requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
			for i := range r.NodeSelectorTerms {
				errs = append(errs, nodeSelectorTerm(&r.NodeSelectorTerms[i], terms.Index(i), s)...)
			}
		}
		preferred := path.Child("preferredDuringSchedulingIgnoredDuringExecution")
		for i := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			errs = append(errs, nodeSelectorTerm(&na.PreferredDuringSchedulingIgnoredDuringExecution[i].Preference, preferred.Index(i).Child("preference"), s)...)
		}
	}
	if a := spec.Affinity; a != nil {
		errs = append(errs, podAffinity(a.PodAffinity, a.PodAntiAffinity, p.Child("affinity"), s)...)
	}
	for i, t := range spec.Tolerations {
		if !tolerationAllowed(t, s.allow.scheduling.Tolerations) {
			errs = append(errs, forbidden(ruleScheduling, p.Child("tolerations").Index(i), "tenant "+s.tenant.Name+" may not tolerate taint "+quoteList([]string{t.Key})+
				"; allowed: the node conditions "+quoteList(defaultTolerations)+" and spec.scheduling.tolerations"))
		}
	}
	return errs
}

// podAffinity confines pod (anti-)affinity terms to the tenant's
// namespaces: a term's namespaceSelector selects across every namespace
// ({} is all of them), so that a required anti-affinity keeps other
// tenants' pods Pending and an affinity learns their labels. Terms name
// the tenant's namespaces in namespaces, or none (the pod's own).
func podAffinity(aff *corev1.PodAffinity, anti *corev1.PodAntiAffinity, p *field.Path, s scope) field.ErrorList {
	var errs field.ErrorList
	judge := func(term *corev1.PodAffinityTerm, path *field.Path) {
		if term.NamespaceSelector != nil {
			errs = append(errs, forbidden(ruleScheduling, path.Child("namespaceSelector"),
				"a namespace selector reaches other tenants' pods; allowed: namespaces of tenant "+s.tenant.Name+" listed in namespaces"))
		}
		for i, ns := range term.Namespaces {
			if !s.sameTenant(ns) {
				errs = append(errs, notSupported(ruleScheduling, path.Child("namespaces").Index(i), ns,
					"pod affinity may name the tenant's namespaces only", namespacesOf(s.tenant)))
			}
		}
	}
	each := func(path *field.Path, required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm) {
		for i := range required {
			judge(&required[i], path.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i))
		}
		for i := range preferred {
			judge(&preferred[i].PodAffinityTerm, path.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i).Child("podAffinityTerm"))
		}
	}
	if aff != nil {
		each(p.Child("podAffinity"), aff.RequiredDuringSchedulingIgnoredDuringExecution, aff.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	if anti != nil {
		each(p.Child("podAntiAffinity"), anti.RequiredDuringSchedulingIgnoredDuringExecution, anti.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	return errs
}

// priorityClass allows no class, the cluster's default, which the
// Priority admission plugin writes into pods naming none, and the
// Tenant's list.
func priorityClass(name string, p *field.Path, s scope) field.ErrorList {
	allowed := s.allow.scheduling.PriorityClasses
	if d := s.shared.Defaults().PriorityClass; d != "" {
		allowed = append([]string{d}, allowed...)
	}
	if name == "" || slices.Contains(allowed, name) {
		return nil
	}
	return field.ErrorList{oneOf(ruleScheduling, p, name, "tenant "+s.tenant.Name+" may not preempt with this priority class", allowed)}
}

// nodeSelectorTerm judges one term of node affinity: every label it names,
// and no node picked by name, which only the DaemonSet controller does.
func nodeSelectorTerm(term *corev1.NodeSelectorTerm, p *field.Path, s scope) field.ErrorList {
	var errs field.ErrorList
	for i, r := range term.MatchExpressions {
		values := r.Values
		if r.Operator != corev1.NodeSelectorOpIn {
			values = nil // any other operator may reach any value of the key
		}
		if !nodeLabelAllowed(r.Key, values, s) {
			errs = append(errs, invalid(ruleScheduling, p.Child("matchExpressions").Index(i), r.Key+" "+string(r.Operator)+" "+quoteList(r.Values),
				"tenant "+s.tenant.Name+" may not select nodes by this label; allowed: "+allowedNodeLabels(s)+", with operator In where values are listed"))
		}
	}
	if len(term.MatchFields) > 0 && !s.writer.platform {
		errs = append(errs, forbidden(ruleScheduling, p.Child("matchFields"), "pods may not pick nodes by name; allowed: unset, matchExpressions on allowed labels"))
	}
	return errs
}

// nodeLabelAllowed reports whether pods may select nodes by key with the
// given values; nil values stand for any value of key.
func nodeLabelAllowed(key string, values []string, s scope) bool {
	if slices.Contains(defaultNodeLabels, key) {
		return true
	}
	i := slices.IndexFunc(s.allow.scheduling.NodeLabels, func(l v1alpha1.NodeLabel) bool { return l.Key == key })
	if i < 0 {
		return false
	}
	allowed := s.allow.scheduling.NodeLabels[i].Values
	if len(allowed) == 0 {
		return true
	}
	return values != nil && !slices.ContainsFunc(values, func(v string) bool { return !slices.Contains(allowed, v) })
}

// allowedNodeLabels names the labels pods may select on, for messages.
func allowedNodeLabels(s scope) string {
	keys := slices.Clone(defaultNodeLabels)
	for _, l := range s.allow.scheduling.NodeLabels {
		if len(l.Values) == 0 {
			keys = append(keys, l.Key)
		} else {
			for _, v := range l.Values {
				keys = append(keys, l.Key+"="+v)
			}
		}
	}
	return quoteList(keys)
}

// tolerationAllowed reports whether t tolerates only taints the defaults
// or the Tenant's list name; an empty key with Exists tolerates them all.
func tolerationAllowed(t corev1.Toleration, allowed []v1alpha1.AllowedToleration) bool {
	if t.Key == "" {
		return false
	}
	if slices.Contains(defaultTolerations, t.Key) {
		return true
	}
	return slices.ContainsFunc(allowed, func(a v1alpha1.AllowedToleration) bool {
		value := a.Value == "" || t.Operator != corev1.TolerationOpExists && t.Value == a.Value
		return a.Key == t.Key && value && (a.Effect == "" || t.Effect == a.Effect)
	})
}

// oneOf is a violation of rule r by v at p, listing allowed, or saying
// none is when the list is empty.
func oneOf(r Rule, p *field.Path, v, detail string, allowed []string) *field.Error {
	if len(allowed) == 0 {
		return invalid(r, p, v, detail+"; allowed: unset")
	}
	return notSupported(r, p, v, detail, allowed)
}
