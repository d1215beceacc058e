package policy

import (
	"slices"
	"strings"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	notificationv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// fluxContent applies the rules on Flux's kinds; ok is false for other kinds.
func fluxContent(obj runtime.Object, s scope) (errs field.ErrorList, ok bool) {
	switch o := obj.(type) {
	case *sourcev1.GitRepository:
		return append(gitRepository(o, s), gitFetches(o, s)...), true
	case *sourcev1.OCIRepository:
		return ociRepository(o, s), true
	case *sourcev1.HelmRepository:
		return append(helmRepository(o, s), helmFetches(o, s)...), true
	case *sourcev1.ExternalArtifact:
		return externalArtifact(s), true
	case *sourcev1.Bucket:
		return bucket(o, s), true
	case *notificationv1beta3.Provider:
		return append(notificationProvider(o, s), providerFetches(o, s)...), true
	case *imagev1.ImageRepository:
		return append(imageRepository(o, s), imageFetches(o, s)...), true
	}
	return nil, false
}

// identityFields is rule LL005 on a source's provider and service account.
// A provider outside local (those that authenticate with a Secret of the
// object's namespace) fetches with a cloud identity: without an
// object-level service account Flux lends it the controller's own, so it is
// refused to every tenant; with one, only where the Tenant allows workload
// identity. objectIdentity is false for kinds whose cloud provider always
// runs as the controller (HelmRepository has no serviceAccountName).
func identityFields(s scope, spec *field.Path, provider string, local []string, serviceAccountName string, objectIdentity bool) field.ErrorList {
	var errs field.ErrorList
	if provider != "" && !slices.Contains(local, provider) {
		switch {
		case !objectIdentity:
			errs = append(errs, notSupported(ruleWorkloadIdentity, spec.Child("provider"), provider,
				"this kind authenticates a cloud provider as the Flux controller itself", local))
		case serviceAccountName == "":
			errs = append(errs, notSupported(ruleWorkloadIdentity, spec.Child("provider"), provider,
				"without spec.serviceAccountName a cloud provider authenticates as the Flux controller itself"+
					ifWorkloadIdentity(s, " (or "+provider+" with a serviceAccountName of namespace "+s.ns+")", ""), local))
		case !s.allow.workloadIdentity:
			errs = append(errs, notSupported(ruleWorkloadIdentity, spec.Child("provider"), provider,
				"tenant "+s.tenant.Name+" may not use workload identity", local))
		}
	}
	return append(errs, serviceAccountIdentity(s, spec.Child("serviceAccountName"), serviceAccountName)...)
}

// serviceAccountIdentity is rule LL005 on an object-level service account,
// which lends its cloud identity only where the Tenant allows it.
func serviceAccountIdentity(s scope, p *field.Path, name string) field.ErrorList {
	if name == "" || s.allow.workloadIdentity {
		return nil
	}
	return field.ErrorList{forbidden(ruleWorkloadIdentity, p,
		"tenant "+s.tenant.Name+" may not use workload identity; allowed: unset, with credentials in a Secret")}
}

// ifWorkloadIdentity picks a message's words by whether the Tenant allows
// workload identity, so that a denial lists only what this tenant may do.
func ifWorkloadIdentity(s scope, allowed, otherwise string) string {
	if s.allow.workloadIdentity {
		return allowed
	}
	return otherwise
}

// cloudNotifiers are the notification Provider types that authenticate
// with a cloud identity (notification-controller v1.7+): the controller's
// own when the Provider names no service account and its Secret, which the
// guard does not see, holds no static credential.
var cloudNotifiers = []string{"azureeventhub", "azuredevops", "googlepubsub"}

func notificationProvider(p *notificationv1beta3.Provider, s scope) field.ErrorList {
	spec := field.NewPath("spec")
	if slices.Contains(cloudNotifiers, p.Spec.Type) && p.Spec.ServiceAccountName == "" {
		return field.ErrorList{required(ruleWorkloadIdentity, spec.Child("serviceAccountName"),
			"provider type "+p.Spec.Type+" without a serviceAccountName authenticates as notification-controller itself; allowed: "+
				ifWorkloadIdentity(s, "a serviceAccountName of namespace "+s.ns, "none: tenant "+s.tenant.Name+" may not use workload identity")+
				"; types other than "+strings.Join(cloudNotifiers, ", ")+" authenticate with their Secret")}
	}
	return serviceAccountIdentity(s, spec.Child("serviceAccountName"), p.Spec.ServiceAccountName)
}

func imageRepository(r *imagev1.ImageRepository, s scope) field.ErrorList {
	spec := field.NewPath("spec")
	errs := identityFields(s, spec, r.Spec.Provider, genericProviders, r.Spec.ServiceAccountName, true)
	if r.Spec.AccessFrom != nil {
		// Policies may only reference their own namespace, so granting
		// others access serves only other tenants.
		errs = append(errs, forbidden(ruleImageAutomation, spec.Child("accessFrom"), "access from other namespaces is denied; allowed: unset"))
	}
	return errs
}
