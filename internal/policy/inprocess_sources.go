package policy

import (
	"fmt"
	"strconv"
	"strings"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	notificationv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/kinds"
	"github.com/landlord-dev/landlord/internal/sourceurl"
)

// SourcesName names the ValidatingAdmissionPolicy of the rules on where
// Flux fetches from and posts to, and its binding.
const SourcesName = "landlord-sources"

// The kinds that name where Flux reaches: sources, image scans and
// notification providers.
var (
	gitRepositoryKind    = schema.GroupKind{Group: sourcev1.GroupVersion.Group, Kind: sourcev1.GitRepositoryKind}
	ociRepositoryKind    = schema.GroupKind{Group: sourcev1.GroupVersion.Group, Kind: sourcev1.OCIRepositoryKind}
	helmRepositoryKind   = schema.GroupKind{Group: sourcev1.GroupVersion.Group, Kind: sourcev1.HelmRepositoryKind}
	bucketKind           = schema.GroupKind{Group: sourcev1.GroupVersion.Group, Kind: sourcev1.BucketKind}
	externalArtifactKind = schema.GroupKind{Group: sourcev1.GroupVersion.Group, Kind: sourcev1.ExternalArtifactKind}
	imageRepositoryKind  = schema.GroupKind{Group: imagev1.GroupVersion.Group, Kind: imagev1.ImageRepositoryKind}
	providerKind         = schema.GroupKind{Group: notificationv1beta3.GroupVersion.Group, Kind: notificationv1beta3.ProviderKind}
)

// Providers that authenticate with a Secret of the object's namespace, not
// with an identity lent by the controller.
var (
	genericProviders = []string{"generic"}
	gitProviders     = []string{"generic", "github"}
)

// cloudNotifiers are the notification Provider types that authenticate
// with a cloud identity (notification-controller v1.7+): the controller's
// own when the Provider names no service account and its Secret, which the
// guard does not see, holds no static credential.
var cloudNotifiers = []string{"azureeventhub", "azuredevops", "googlepubsub"}

// sourceLabel and templateSource mark the GitRepositories Landlord renders
// from platform templates (render.SourceLabel, render.SourceTemplate).
const (
	sourceLabel    = "landlord.dev/source"
	templateSource = "template"
)

// sourceRules are LL005, LL007, LL008 and LL027 on the kinds that name
// where Flux reaches: each needs the object, the tenant's allowedSources,
// notifications address and workload-identity allowance, which the
// controller keeps on each of its namespaces (render.PolicyAnnotations,
// render.PolicyLabels). They judge Landlord's own renders too: a Tenant's
// spec.sources is held to its allowedSources here.
var sourceRules = []inProcessRule{
	serviceAccountRule(gitRepositoryKind),
	providerRule(gitRepositoryKind, gitProviders, true),
	urlRule(gitRepositoryKind, field.NewPath("spec", "url"), specString("url"), ""),
	{
		rule:  ruleFetches,
		field: field.NewPath("spec", "recurseSubmodules"),
		kind:  gitRepositoryKind,
		valid: `variables.template || !variables.confined || !has(object.spec.recurseSubmodules) || !object.spec.recurseSubmodules || ` +
			same(gitRepositoryKind, specField("recurseSubmodules", "false")),
		detail: `"submodules are fetched from the URLs in the repository's .gitmodules, which no rule sees; allowed: false, with each submodule a GitRepository ` +
			`of its own matching spec.allowedSources of tenant " + ` + labelledTenant + ` + ", pulled in by spec.include"`,
	},

	serviceAccountRule(ociRepositoryKind),
	providerRule(ociRepositoryKind, genericProviders, true),
	urlRule(ociRepositoryKind, field.NewPath("spec", "url"), specString("url"), ""),

	providerRule(helmRepositoryKind, genericProviders, false),
	urlRule(helmRepositoryKind, field.NewPath("spec", "url"), specString("url"), ""),
	{
		// source-controller downloads a chart from whatever URL the HTTP
		// index lists, on any host, and no flag confines it; an OCI
		// repository pulls below its own URL. The platform may write an
		// HTTP one, vouching for its index. Whatever the URL: an OCI one
		// admitted outside allowedSources may not turn HTTP.
		rule:  ruleFetches,
		field: field.NewPath("spec", "url"),
		kind:  helmRepositoryKind,
		valid: fmt.Sprintf(`!variables.confined || %s == %q || variables.platform || `, specString("type")("object"), sourcev1.HelmRepositoryTypeOCI) +
			same(helmRepositoryKind, specString("url"), specString("type")),
		detail: `"source-controller downloads charts from any URL an HTTP Helm index lists, which no rule sees; allowed: spec.type oci, ` +
			`a chart from a GitRepository or OCIRepository, or an HTTP HelmRepository written by the platform"`,
	},

	serviceAccountRule(bucketKind),
	providerRule(bucketKind, genericProviders, true),
	// <scheme>://<endpoint>/<bucketName>, and unlike the other
	// sources it needs an allowedSources entry.
	urlRule(bucketKind, field.NewPath("spec", "endpoint"), func(o string) string {
		return fmt.Sprintf(`((has(%[1]s.spec.insecure) && %[1]s.spec.insecure ? "http://" : "https://") + %[2]s + "/" + %[3]s)`,
			o, specString("endpoint")(o), specString("bucketName")(o))
	}, "false"),
	// Its Security Token Service: source-controller asks it for
	// credentials, sending the username and password of sts.secretRef.
	urlRule(bucketKind, field.NewPath("spec", "sts", "endpoint"), func(o string) string {
		return fmt.Sprintf(`(has(%[1]s.spec.sts) && has(%[1]s.spec.sts.endpoint) ? %[1]s.spec.sts.endpoint : "")`, o)
	}, "!has(object.spec.sts)"),

	{
		// kustomize- and helm-controller download the URL in its status,
		// which whoever may write the object's status chooses.
		rule:   ruleFetches,
		field:  field.NewPath("spec"),
		kind:   externalArtifactKind,
		valid:  `variables.platform || ` + same(externalArtifactKind, specField("", "null")),
		detail: `"an ExternalArtifact's status names the URL Flux downloads, and tenants may write status; allowed: ExternalArtifacts written by the platform"`,
	},

	serviceAccountRule(imageRepositoryKind),
	providerRule(imageRepositoryKind, genericProviders, true),
	{
		// Policies may only reference their own namespace, so granting
		// others access serves only other tenants.
		rule:   ruleImageAutomation,
		field:  field.NewPath("spec", "accessFrom"),
		kind:   imageRepositoryKind,
		valid:  `!has(object.spec.accessFrom) || ` + same(imageRepositoryKind, specField("accessFrom", "null")),
		detail: `"access from other namespaces is denied; allowed: unset"`,
	},
	urlRule(imageRepositoryKind, field.NewPath("spec", "image"), func(o string) string {
		return fmt.Sprintf(`(%[1]s == "" ? "" : "oci://" + %[1]s)`, specString("image")(o))
	}, ""),

	{
		rule:  ruleWorkloadIdentity,
		field: field.NewPath("spec", "serviceAccountName"),
		kind:  providerKind,
		valid: fmt.Sprintf(`!(%s in %s) || %s != "" || `, specString("type")("object"), CELList(cloudNotifiers), specString("serviceAccountName")("object")) +
			same(providerKind, specString("type"), specString("serviceAccountName")),
		detail: `"provider type " + object.spec.type + " without a serviceAccountName authenticates as notification-controller itself; allowed: " + ` +
			`(variables.workloadIdentity ? "a serviceAccountName of namespace " + request.namespace : "none: tenant " + ` + labelledTenant + ` + " may not use workload identity") + ` +
			strconv.Quote("; types other than "+strings.Join(cloudNotifiers, ", ")+" authenticate with their Secret"),
	},
	serviceAccountRule(providerKind),
	// Where notification-controller posts: a confined tenant's address
	// and proxy are URLs like any source's, but for the address the
	// platform named in spec.notifications. A googlepubsub address is a
	// project ID, posted to Google's fixed endpoint.
	urlRule(providerKind, field.NewPath("spec", "address"), func(o string) string {
		address := specString("address")(o)
		return fmt.Sprintf(`(%s == "googlepubsub" || %s == variables.notifications ? "" : %s)`, specString("type")(o), address, address)
	}, ""),
	urlRule(providerKind, field.NewPath("spec", "proxy"), specString("proxy"), ""),
}

// same is a CEL expression true on an update of kind keeping each value
// of (spelled for an object named o) as it was: the ratchet, so that
// Flux's controllers can still remove their finalizers from an object
// admitted before a rule or an allowance changed. It compares everything
// the rule's verdict reads, and holds only for writes in the registry's
// version of the kind: an older version's schema may lack a field (a
// Provider's or Bucket's v1beta2 has no serviceAccountName), which the API
// server then strips from the old object and the new alike.
func same(kind schema.GroupKind, values ...func(o string) string) string {
	k, _ := kinds.Lookup(kind)
	parts := []string{"oldObject != null", fmt.Sprintf("request.kind.version == %q", k.Version)}
	for _, v := range values {
		parts = append(parts, v("oldObject")+" == "+v("object"))
	}
	return "(" + strings.Join(parts, " && ") + ")"
}

// specString is a CEL expression, for an object named o, of the string at
// spec.<f>, "" where unset.
func specString(f string) func(o string) string { return specField(f, `""`) }

// specField is a CEL expression, for an object named o, of the value at
// spec.<f> (spec itself for ""), zero where unset.
func specField(f, zero string) func(o string) string {
	return func(o string) string {
		at := o + ".spec"
		if f != "" {
			at += "." + f
		}
		return fmt.Sprintf(`(has(%s) ? %[1]s : %s)`, at, zero)
	}
}

// allowedURL is a CEL expression true where the URL u evaluates to
// matches the tenant's allowedSources (sourceurl: the same expressions the
// Go judges match).
func allowedURL(u string) string {
	return fmt.Sprintf(`(!%[1]s.matches(%[2]q) && variables.regexps.exists(r, %[1]s.matches(r)))`, u, sourceurl.Malformed)
}

// urlRule is rule LL008 on the URL at p, which of spells for an object: it
// matches the tenant's allowedSources. unjudged is a CEL expression true
// where the URL is not judged, "" for the common case: an empty
// allowedSources allows any URL, and an empty URL is not judged. The
// GitRepositories Landlord renders from platform templates stand outside
// allowedSources by design. The ratchet lets an update keep the URL it had.
func urlRule(kind schema.GroupKind, p *field.Path, of func(o string) string, unjudged string) inProcessRule {
	u := of("object")
	if unjudged == "" {
		unjudged = `!variables.confined || ` + u + ` == ""`
	}
	if kind == gitRepositoryKind {
		unjudged = "variables.template || " + unjudged
	}
	return inProcessRule{
		rule:  ruleSources,
		field: p,
		kind:  kind,
		valid: fmt.Sprintf(`%s || %s || %s`, unjudged, allowedURL(u), same(kind, of)),
		detail: `!variables.annotated ? "namespace " + request.namespace + " does not carry tenant " + ` + labelledTenant + ` + "'s allowedSources yet; allowed: after Landlord's next reconcile of the tenant" : ` +
			`size(variables.allowed) == 0 ? "tenant " + ` + labelledTenant + ` + " has no spec.allowedSources, which this kind needs; allowed: none" : ` +
			`"the URL " + ` + u + ` + " matches no spec.allowedSources of tenant " + ` + labelledTenant + ` + "; allowed: " + variables.allowed.join(", ")`,
	}
}

// providerRule is rule LL005 on spec.provider: a provider outside local
// (those that authenticate with a Secret of the object's namespace)
// fetches with a cloud identity. Without an object-level service account
// Flux lends it the controller's own, so it is refused to every tenant;
// with one, only where the Tenant allows workload identity. objectIdentity
// is false for kinds whose cloud provider always runs as the controller
// (HelmRepository has no serviceAccountName).
func providerRule(kind schema.GroupKind, local []string, objectIdentity bool) inProcessRule {
	provider, account := specString("provider")("object"), specString("serviceAccountName")("object")
	r := inProcessRule{
		rule:   ruleWorkloadIdentity,
		field:  field.NewPath("spec", "provider"),
		kind:   kind,
		valid:  fmt.Sprintf(`%s == "" || %[1]s in %s || `, provider, CELList(local)) + same(kind, specString("provider"), specString("serviceAccountName")),
		detail: strconv.Quote("this kind authenticates a cloud provider as the Flux controller itself; allowed: " + strings.Join(local, ", ")),
	}
	if objectIdentity {
		r.valid = fmt.Sprintf(`(%s != "" && variables.workloadIdentity) || `, account) + r.valid
		r.detail = fmt.Sprintf(`(%[1]s == "" ? "without spec.serviceAccountName a cloud provider authenticates as the Flux controller itself" : "tenant " + %[2]s + " may not use workload identity") + `+
			`"; allowed: %[3]s" + (variables.workloadIdentity ? ", or " + object.spec.provider + " with a serviceAccountName of namespace " + request.namespace : "")`,
			account, labelledTenant, strings.Join(local, ", "))
	}
	return r
}

// serviceAccountRule is rule LL005 on an object-level service account,
// which lends its cloud identity only where the Tenant allows it.
func serviceAccountRule(kind schema.GroupKind) inProcessRule {
	return inProcessRule{
		rule:   ruleWorkloadIdentity,
		field:  field.NewPath("spec", "serviceAccountName"),
		kind:   kind,
		valid:  specString("serviceAccountName")("object") + ` == "" || variables.workloadIdentity || ` + same(kind, specString("serviceAccountName")),
		detail: `"tenant " + ` + labelledTenant + ` + " may not use workload identity; allowed: unset, with credentials in a Secret"`,
	}
}

// sourceVariables are what the source rules read, evaluated once a request.
var sourceVariables = []admissionregistrationv1.Variable{
	{Name: "workloadIdentity", Expression: namespaceLabel(v1alpha1.WorkloadIdentityLabel, `""`) + ` == "true"`},
	// annotated: the controller has written the tenant's facts on the
	// namespace; until it has, every URL is refused, never left open.
	{Name: "annotated", Expression: fmt.Sprintf(`has(namespaceObject.metadata.annotations) && %q in namespaceObject.metadata.annotations`, v1alpha1.SourceRegexpsAnnotation)},
	{Name: "allowed", Expression: namespaceAnnotation(v1alpha1.AllowedSourcesAnnotation) + `.split("\n").filter(p, p != "")`},
	{Name: "regexps", Expression: namespaceAnnotation(v1alpha1.SourceRegexpsAnnotation) + `.split("\n").filter(p, p != "")`},
	// confined: the tenant's fetches are held to allowedSources.
	{Name: "confined", Expression: `!variables.annotated || size(variables.allowed) > 0`},
	{Name: "notifications", Expression: namespaceAnnotation(v1alpha1.NotificationsAddressAnnotation)},
	// template: a GitRepository Landlord renders from a platform template.
	{Name: "template", Expression: fmt.Sprintf(`variables.platform && has(object.metadata.labels) && %q in object.metadata.labels && object.metadata.labels[%[1]q] == %q`,
		sourceLabel, templateSource)},
}

// namespaceAnnotation is a CEL expression for the value of the request
// namespace's annotation key, "" where it has none.
func namespaceAnnotation(key string) string {
	return fmt.Sprintf(`(has(namespaceObject.metadata.annotations) && %[1]q in namespaceObject.metadata.annotations ? namespaceObject.metadata.annotations[%[1]q] : "")`, key)
}

// Sources is the ValidatingAdmissionPolicy of sourceRules and its binding:
// creates and updates of their kinds in tenant namespaces, by anyone.
// Kubernetes' controllers and Flux's, which remove finalizers and owners,
// change no field the rules read, which the ratchet lets through.
func Sources(platform Platform) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	return kindPolicy(SourcesName, sourceRules, nil, append([]admissionregistrationv1.Variable{{Name: "platform", Expression: platform.CEL()}}, sourceVariables...))
}
