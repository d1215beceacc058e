package policy

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ruleExternalName is rule LL021, declared here beside it and listed in Rules.
var ruleExternalName = Rule{"LL021", "external-name-service", "an ExternalName Service is a DNS alias to any name, another tenant's Services included, which ingress controllers and gateways then proxy to"}

// service is rules LL013, LL017 and LL021.
func service(svc *corev1.Service, s scope) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	switch t := svc.Spec.Type; t {
	case corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer:
		if !slices.Contains(s.allow.serviceTypes, t) {
			allowed := []string{string(corev1.ServiceTypeClusterIP)}
			for _, a := range s.allow.serviceTypes {
				allowed = append(allowed, string(a))
			}
			errs = append(errs, notSupported(ruleServiceType, spec.Child("type"), t, "tenant "+s.tenant.Name+" may not expose services outside the cluster", allowed))
		}
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName && !slices.Contains(s.allow.serviceTypes, corev1.ServiceTypeExternalName) {
		errs = append(errs, forbidden(ruleExternalName, spec.Child("type"), "tenant "+s.tenant.Name+" may not alias other names; allowed: ClusterIP, or ExternalName where spec.network.allowServiceTypes lists it"))
	}
	if len(svc.Spec.ExternalIPs) > 0 {
		errs = append(errs, forbidden(ruleExternalIPs, spec.Child("externalIPs"), "external IPs are denied; allowed: unset"))
	}
	return errs
}
