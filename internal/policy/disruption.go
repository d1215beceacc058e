package policy

import (
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ruleDisruption is rule LL023, declared here beside it and listed in Rules.
var ruleDisruption = Rule{"LL023", "disruption-budget", "a PodDisruptionBudget that allows no eviction, whatever the replicas, blocks every drain of the nodes its pods run on, and with them the platform's upgrades and other tenants' pods"}

// disruptionBudget is rule LL023. A whole-number minAvailable at or above
// the replicas blocks drains too, but only the live replicas tell.
func disruptionBudget(pdb *policyv1.PodDisruptionBudget) field.ErrorList {
	spec := field.NewPath("spec")
	if v := pdb.Spec.MaxUnavailable; v != nil && scaled(v, 100, true) == 0 {
		return field.ErrorList{invalid(ruleDisruption, spec.Child("maxUnavailable"), v.String(), "a budget must allow evictions; allowed: at least 1 or 1%")}
	}
	if v := pdb.Spec.MinAvailable; v != nil && v.Type == intstr.String && scaled(v, 100, false) >= 100 {
		return field.ErrorList{invalid(ruleDisruption, spec.Child("minAvailable"), v.String(), "a budget must allow evictions; allowed: below 100%, or a number of pods")}
	}
	return nil
}

// scaled is v of total, -1 when v is malformed: the apiserver refuses
// those itself.
func scaled(v *intstr.IntOrString, total int, roundUp bool) int {
	n, err := intstr.GetScaledValueFromIntOrPercent(v, total, roundUp)
	if err != nil {
		return -1
	}
	return n
}
