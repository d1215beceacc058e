package policy

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ruleStorage is rule LL020, declared here beside it and listed in Rules.
var ruleStorage = Rule{"LL020", "volume-claims", "a claim naming an existing volume, by name or by selector, or another namespace's data source takes data the platform or another tenant left behind, and a storage class the Tenant does not allow provisions what the platform did not grant"}

// claimSpec is rule LL020 on a PersistentVolumeClaim's spec, or on a claim
// template of a StatefulSet or an ephemeral volume.
func claimSpec(spec *corev1.PersistentVolumeClaimSpec, p *field.Path, s scope) field.ErrorList {
	var errs field.ErrorList
	// The volume controller binds a claim by writing volumeName, and the
	// platform may hand a volume over: only a tenant's binding is judged.
	if !s.writer.platform {
		if spec.VolumeName != "" {
			errs = append(errs, invalid(ruleStorage, p.Child("volumeName"), spec.VolumeName, "claims may not bind an existing volume; allowed: unset, a new volume of an allowed storage class"))
		}
		if spec.Selector != nil {
			errs = append(errs, forbidden(ruleStorage, p.Child("selector"), "claims may not pick existing volumes by label; allowed: unset, a new volume of an allowed storage class"))
		}
	}
	if ref := spec.DataSourceRef; ref != nil && ref.Namespace != nil && !s.sameTenant(*ref.Namespace) {
		errs = append(errs, notSupported(ruleStorage, p.Child("dataSourceRef", "namespace"), *ref.Namespace,
			"claims may copy data only from namespaces of tenant "+s.tenant.Name, namespacesOf(s.tenant)))
	}
	if spec.StorageClassName != nil {
		allowed := s.allow.storage.Classes
		if d := s.shared.Defaults().StorageClass; d != "" {
			allowed = append([]string{d}, allowed...)
		}
		// "" asks for no class: a pre-provisioned volume, which is not the tenant's to pick.
		if name := *spec.StorageClassName; !slices.Contains(allowed, name) {
			errs = append(errs, oneOf(ruleStorage, p.Child("storageClassName"), name, "tenant "+s.tenant.Name+" may not provision volumes of this storage class", allowed))
		}
	}
	return errs
}

// claimTemplates is rule LL020 on the claims a StatefulSet will make.
func claimTemplates(templates []corev1.PersistentVolumeClaim, p *field.Path, s scope) field.ErrorList {
	var errs field.ErrorList
	for i := range templates {
		errs = append(errs, claimSpec(&templates[i].Spec, p.Index(i).Child("spec"), s)...)
	}
	return errs
}

// ephemeralClaims is rule LL020 on the claims a pod's ephemeral volumes
// make.
func ephemeralClaims(spec *corev1.PodSpec, p *field.Path, s scope) field.ErrorList {
	var errs field.ErrorList
	for i, v := range spec.Volumes {
		if v.Ephemeral != nil && v.Ephemeral.VolumeClaimTemplate != nil {
			errs = append(errs, claimSpec(&v.Ephemeral.VolumeClaimTemplate.Spec, p.Child("volumes").Index(i).Child("ephemeral", "volumeClaimTemplate", "spec"), s)...)
		}
	}
	return errs
}
