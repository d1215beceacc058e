package policy

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ruleDisruption is rule LL023, declared here beside it and listed in Rules.
var ruleDisruption = Rule{"LL023", "disruption-budget", "a PodDisruptionBudget that allows no eviction, whatever the replicas, blocks every drain of the nodes its pods run on, and a pod annotation node autoscalers read as never evict keeps its node from being scaled down or replaced: both hold back the platform's upgrades and other tenants' pods"}

// keepNode are the pod annotations node autoscalers read as "never evict
// this pod", with the value each compares to: the cluster autoscaler then
// never scales the pod's node down, Karpenter never consolidates or
// replaces it of its own accord. A drain by hand does not read them.
var keepNode = map[string]string{
	"cluster-autoscaler.kubernetes.io/safe-to-evict": "false",
	"karpenter.sh/do-not-disrupt":                    "true",
	// Karpenter's name for it before v1beta1, which releases before v1 read.
	"karpenter.sh/do-not-evict": "true",
}

// evictionAnnotations is rule LL023 on the annotations of a pod or a pod
// template, at p.
func evictionAnnotations(annotations map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, key := range slices.Sorted(maps.Keys(keepNode)) {
		if v, ok := annotations[key]; ok && v == keepNode[key] {
			errs = append(errs, invalid(ruleDisruption, p.Key(key), v,
				"node autoscalers never scale down or replace the node of a pod annotated so; allowed: any other value, or none"))
		}
	}
	return errs
}
