package policy

import (
	"net/url"
	"slices"
	"strings"

	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// sourceLabel and templateSource mark the GitRepositories Landlord renders
// from platform templates (render.SourceLabel, render.SourceTemplate).
const (
	sourceLabel    = "landlord.dev/source"
	templateSource = "template"
)

// Providers that authenticate with a Secret of the object's namespace, not
// with an identity lent by the controller.
var (
	genericProviders = []string{"generic"}
	gitProviders     = []string{"generic", "github"}
)

func gitRepository(r *sourcev1.GitRepository, s scope) field.ErrorList {
	spec := field.NewPath("spec")
	errs := identityFields(s, spec, r.Spec.Provider, gitProviders, r.Spec.ServiceAccountName, true)
	if s.writer.platform && labelsOf(r)[sourceLabel] == templateSource {
		return errs // a platform template, outside allowedSources by design
	}
	return append(errs, allowedURL(spec.Child("url"), r.Spec.URL, s.tenant, false)...)
}

func ociRepository(r *sourcev1.OCIRepository, s scope) field.ErrorList {
	spec := field.NewPath("spec")
	errs := identityFields(s, spec, r.Spec.Provider, genericProviders, r.Spec.ServiceAccountName, true)
	return append(errs, allowedURL(spec.Child("url"), r.Spec.URL, s.tenant, false)...)
}

func helmRepository(r *sourcev1.HelmRepository, s scope) field.ErrorList {
	spec := field.NewPath("spec")
	errs := identityFields(s, spec, r.Spec.Provider, genericProviders, "", false)
	return append(errs, allowedURL(spec.Child("url"), r.Spec.URL, s.tenant, false)...)
}

// bucket matches <scheme>://<endpoint>/<bucketName> and, unlike the other
// sources, needs an allowedSources entry: an empty list denies it. So does
// its Security Token Service: source-controller asks spec.sts.endpoint for
// credentials, sending the username and password of spec.sts.secretRef.
func bucket(b *sourcev1.Bucket, s scope) field.ErrorList {
	spec := field.NewPath("spec")
	errs := identityFields(s, spec, b.Spec.Provider, genericProviders, b.Spec.ServiceAccountName, true)
	scheme := "https://"
	if b.Spec.Insecure {
		scheme = "http://"
	}
	errs = append(errs, allowedURL(spec.Child("endpoint"), scheme+b.Spec.Endpoint+"/"+b.Spec.BucketName, s.tenant, true)...)
	if sts := b.Spec.STS; sts != nil {
		errs = append(errs, allowedURL(spec.Child("sts", "endpoint"), sts.Endpoint, s.tenant, true)...)
	}
	return errs
}

// allowedURL is rule LL008; an empty allowedSources allows any URL unless
// strict.
func allowedURL(p *field.Path, raw string, t *v1alpha1.Tenant, strict bool) field.ErrorList {
	allowed := t.Spec.AllowedSources
	if len(allowed) == 0 && !strict {
		return nil
	}
	if slices.ContainsFunc(allowed, func(pattern string) bool { return matchURL(pattern, raw) }) {
		return nil
	}
	if len(allowed) == 0 {
		return field.ErrorList{forbidden(ruleSources, p, "tenant "+t.Name+" has no spec.allowedSources, which this kind needs; allowed: none")}
	}
	return field.ErrorList{notSupported(ruleSources, p, raw, "the URL matches no spec.allowedSources of tenant "+t.Name, allowed)}
}

// matchURL reports whether raw matches pattern: scheme, user and port
// exactly, host and path segment by segment, '*' within one segment, a
// trailing "/*" any path below. URLs with a query, a fragment or a dot
// segment never match: they can make a server read another path than the
// one matched.
func matchURL(pattern, raw string) bool {
	u, ok := parseURL(raw)
	if !ok {
		return false
	}
	pu, ok := parseURL(pattern)
	if !ok || pu.Scheme != u.Scheme || pu.User.String() != u.User.String() || pu.Port() != u.Port() {
		return false
	}
	if !glob(strings.ToLower(pu.Hostname()), strings.ToLower(u.Hostname())) {
		return false
	}
	want, got := segments(pu.Path), segments(u.Path)
	if n := len(want); n > 0 && want[n-1] == "*" {
		// A trailing "/*": the prefix, then at least one segment.
		want = want[:n-1]
		if len(got) <= len(want) {
			return false
		}
		got = got[:len(want)]
	}
	return slices.EqualFunc(want, got, glob)
}

// parseURL accepts absolute URLs without query, fragment or dot segments.
func parseURL(raw string) (*url.URL, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" || u.Opaque != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(raw, "#") {
		return nil, false
	}
	for _, seg := range segments(u.Path) {
		if seg == "." || seg == ".." || seg == "" {
			return nil, false
		}
	}
	return u, true
}

// segments splits a path without its leading and trailing slashes.
func segments(path string) []string {
	path = strings.Trim(path, "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

// glob matches s against pattern, in which only '*' is special and matches
// any run of characters, never across segments (the callers split first).
func glob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s = s[i+len(part):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}
