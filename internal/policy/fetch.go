package policy

import (
	"slices"
	"strings"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	notificationv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ruleFetches is rule LL027: the URLs Flux reaches that no field of the
// object names, which allowedSources (LL008) therefore cannot judge.
var ruleFetches = Rule{"LL027", "unjudged-fetch", "Flux also reaches URLs no field names (Git submodules, chart URLs of an HTTP Helm index, artifact URLs written in status): for a tenant confined by spec.allowedSources they are refused"}

// secretURLKeys are the Secret keys Flux reads as URLs: a Provider's
// secretRef "address" (which overrides spec.address) and "proxy", and the
// "address" of every proxySecretRef.
var secretURLKeys = []string{"address", "proxy"}

// confined reports whether the tenant's fetches are held to allowedSources.
func confined(s scope) bool { return len(s.tenant.Spec.AllowedSources) > 0 }

// gitFetches is rule LL027 on a GitRepository: submodule URLs come from the
// repository's .gitmodules, which the guard never reads. spec.include names
// GitRepositories of the same namespace, each judged itself.
func gitFetches(r *sourcev1.GitRepository, s scope) field.ErrorList {
	if !confined(s) || !r.Spec.RecurseSubmodules || (s.writer.platform && labelsOf(r)[sourceLabel] == templateSource) {
		return nil
	}
	return field.ErrorList{forbidden(ruleFetches, field.NewPath("spec", "recurseSubmodules"),
		"submodules are fetched from the URLs in the repository's .gitmodules, which no rule sees; allowed: false, "+
			"with each submodule a GitRepository of its own matching spec.allowedSources of tenant "+s.tenant.Name+", pulled in by spec.include")}
}

// helmFetches is rule LL027 on a HelmRepository: source-controller
// downloads a chart from whatever URL the HTTP index lists, on any host,
// and no flag confines it. An OCI repository pulls below its own URL. The
// platform may write an HTTP one itself, vouching for its index; the error
// sits on spec.url so that the tenant may keep that one but never point it
// elsewhere. A URL outside allowedSources is LL008's already.
func helmFetches(r *sourcev1.HelmRepository, s scope) field.ErrorList {
	if !confined(s) || r.Spec.Type == sourcev1.HelmRepositoryTypeOCI || s.writer.platform || !allowedSource(r.Spec.URL, s) {
		return nil
	}
	return field.ErrorList{invalid(ruleFetches, field.NewPath("spec", "url"), r.Spec.URL,
		"source-controller downloads charts from any URL an HTTP Helm index lists, which no rule sees; allowed: spec.type oci, "+
			"a chart from a GitRepository or OCIRepository, or an HTTP HelmRepository written by the platform")}
}

// externalArtifact is rule LL027 on an ExternalArtifact: kustomize- and
// helm-controller download the URL in its status, which whoever may write
// the object's status chooses, tenants included.
func externalArtifact(s scope) field.ErrorList {
	if s.writer.platform {
		return nil
	}
	return field.ErrorList{forbidden(ruleFetches, field.NewPath("spec"),
		"an ExternalArtifact's status names the URL Flux downloads, and tenants may write status; allowed: ExternalArtifacts written by the platform")}
}

// imageFetches is rule LL008 on the registry an ImageRepository scans.
func imageFetches(r *imagev1.ImageRepository, s scope) field.ErrorList {
	if !confined(s) || r.Spec.Image == "" {
		return nil
	}
	return allowedURL(field.NewPath("spec", "image"), "oci://"+r.Spec.Image, s.tenant, false)
}

// providerFetches is rule LL008 on where notification-controller posts: a
// confined tenant's Provider address and proxy are URLs like any source's,
// but for the address the platform named in spec.notifications.
// Addresses in the Provider's Secrets are judged as the Secrets are
// written (secretFetches). A googlepubsub address is a project ID, posted
// to Google's fixed endpoint.
func providerFetches(p *notificationv1beta3.Provider, s scope) field.ErrorList {
	if !confined(s) {
		return nil
	}
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if p.Spec.Address != "" && p.Spec.Type != "googlepubsub" && !notificationsAddress(p.Spec.Address, s) {
		errs = append(errs, allowedURL(spec.Child("address"), p.Spec.Address, s.tenant, false)...)
	}
	if p.Spec.Proxy != "" {
		errs = append(errs, allowedURL(spec.Child("proxy"), p.Spec.Proxy, s.tenant, false)...)
	}
	return errs
}

// secretFetches is rule LL008 on the Secret keys Flux reads as URLs. Any
// Secret may be named by a Provider or a proxySecretRef later, so each is
// judged as it is written. The value is never quoted: it may be a secret
// webhook URL.
func secretFetches(secret *corev1.Secret, s scope) field.ErrorList {
	if !confined(s) {
		return nil
	}
	var errs field.ErrorList
	for _, key := range secretURLKeys {
		// Trimmed as notification-controller trims it.
		if v, ok := secret.Data[key]; ok && !allowedSource(strings.TrimSpace(string(v)), s) && !notificationsAddress(strings.TrimSpace(string(v)), s) {
			errs = append(errs, forbidden(ruleSources, field.NewPath("data").Key(key),
				"Flux reads this key as a URL (a Provider's address or proxy, a proxySecretRef's proxy) and it matches no spec.allowedSources of tenant "+
					s.tenant.Name+"; allowed: "+quoteList(s.tenant.Spec.AllowedSources)+", or another key name"))
		}
	}
	return errs
}

// notificationsAddress reports whether raw is the address the platform
// gave the tenant's notifications, which it approved by writing it there.
func notificationsAddress(raw string, s scope) bool {
	n := s.tenant.Spec.Notifications
	return n != nil && n.Address != "" && raw == n.Address
}

// allowedSource reports whether raw matches the tenant's allowedSources.
func allowedSource(raw string, s scope) bool {
	return slices.ContainsFunc(s.tenant.Spec.AllowedSources, func(pattern string) bool { return matchURL(pattern, raw) })
}
