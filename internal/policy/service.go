package policy

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// service is rules LL013 and LL017.
func service(svc *corev1.Service, s scope) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	switch t := svc.Spec.Type; t {
	case corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer:
		if !slices.Contains(s.allow.serviceTypes, t) {
			allowed := []string{string(corev1.ServiceTypeClusterIP), string(corev1.ServiceTypeExternalName)}
			for _, a := range s.allow.serviceTypes {
				allowed = append(allowed, string(a))
			}
			errs = append(errs, notSupported(ruleServiceType, spec.Child("type"), t, "tenant "+s.tenant.Name+" may not expose services outside the cluster", allowed))
		}
	}
	if len(svc.Spec.ExternalIPs) > 0 {
		errs = append(errs, forbidden(ruleExternalIPs, spec.Child("externalIPs"), "external IPs are denied; allowed: unset"))
	}
	return errs
}
