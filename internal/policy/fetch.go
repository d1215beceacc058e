package policy

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/internal/sourceurl"
)

// ruleFetches is rule LL027: the URLs Flux reaches that no field of the
// object names, which allowedSources (LL008) therefore cannot judge.
var ruleFetches = Rule{"LL027", "unjudged-fetch", "Flux also reaches URLs no field names (Git submodules, chart URLs of an HTTP Helm index, artifact URLs written in status): for a tenant confined by spec.allowedSources they are refused"}

// secretURLKeys are the Secret keys Flux reads as URLs: a Provider's
// secretRef "address" (which overrides spec.address) and "proxy", and the
// "address" of every proxySecretRef.
var secretURLKeys = []string{"address", "proxy"}

// secretFetches is rule LL008 on the Secret keys Flux reads as URLs. Any
// Secret may be named by a Provider or a proxySecretRef later, so each is
// judged as it is written. The value is never quoted: it may be a secret
// webhook URL.
func secretFetches(secret *corev1.Secret, s scope) field.ErrorList {
	if len(s.tenant.Spec.AllowedSources) == 0 {
		return nil
	}
	var errs field.ErrorList
	for _, key := range secretURLKeys {
		v, ok := secret.Data[key]
		// Trimmed as notification-controller trims it.
		if url := strings.TrimSpace(string(v)); ok && !sourceurl.Match(s.tenant.Spec.AllowedSources, url) && !notificationsAddress(url, s) {
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
