package policy

import (
	"fmt"
	"strings"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	imageautov1 "github.com/fluxcd/image-automation-controller/api/v1"
	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	notificationv1 "github.com/fluxcd/notification-controller/api/v1"
	notificationv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/internal/render"
)

// Flux's kinds whose rules run in the API server: what Flux impersonates,
// where it reads from, applies to and notifies about, and with whose keys
// it decrypts need only the object, its namespace's labels and the markers.
var (
	kustomizationKind   = schema.GroupKind{Group: kustomizev1.GroupVersion.Group, Kind: kustomizev1.KustomizationKind}
	helmReleaseKind     = schema.GroupKind{Group: helmv2.GroupVersion.Group, Kind: helmv2.HelmReleaseKind}
	receiverKind        = schema.GroupKind{Group: notificationv1.GroupVersion.Group, Kind: notificationv1.ReceiverKind}
	alertKind           = schema.GroupKind{Group: notificationv1beta3.GroupVersion.Group, Kind: notificationv1beta3.AlertKind}
	imagePolicyKind     = schema.GroupKind{Group: imagev1.GroupVersion.Group, Kind: imagev1.ImagePolicyKind}
	imageAutomationKind = schema.GroupKind{Group: imageautov1.GroupVersion.Group, Kind: imageautov1.ImageUpdateAutomationKind}
)

// fluxRules are LL001 to LL005 on Kustomizations and HelmReleases, LL006
// on notifications and LL007 on image automation: the rules of Flux's
// kinds that read no source's URL or credentials.
var fluxRules = []inProcessRule{
	impersonates(kustomizationKind),
	localRefRule(ruleCrossNamespace, kustomizationKind, "sourceRef.namespace"),
	dependsOnRule(kustomizationKind),
	tenantNamespaceRule(kustomizationKind, "targetNamespace"),
	kubeConfigRule(kustomizationKind),
	{
		rule:  ruleWorkloadIdentity,
		field: field.NewPath("spec", "decryption", "secretRef"),
		kind:  kustomizationKind,
		// Without keys of its own kustomize-controller decrypts with its
		// own: its cloud KMS identity, Vault token and global age key,
		// which decrypt the platform's secrets too. No ratchet: a write in
		// v1beta2, whose schema lacks decryption.serviceAccountName, strips
		// it from the object and from the old one alike.
		valid: `!has(object.spec.decryption) || has(object.spec.decryption.secretRef) || has(object.spec.decryption.serviceAccountName) && object.spec.decryption.serviceAccountName != ""`,
		detail: `"decryption without keys of its own uses kustomize-controller's keys; allowed: a secretRef naming a Secret of namespace " + request.namespace + ` +
			`(variables.workloadIdentity ? ", or a serviceAccountName of namespace " + request.namespace : "")`,
	},
	{
		rule:  ruleWorkloadIdentity,
		field: field.NewPath("spec", "decryption", "serviceAccountName"),
		kind:  kustomizationKind,
		valid: `!has(object.spec.decryption) || !has(object.spec.decryption.serviceAccountName) || object.spec.decryption.serviceAccountName == "" || variables.workloadIdentity || ` +
			unchanged("decryption"),
		detail: `"tenant " + ` + labelledTenant + ` + " may not use workload identity; allowed: unset, with credentials in a Secret"`,
	},

	impersonates(helmReleaseKind),
	localRefRule(ruleCrossNamespace, helmReleaseKind, "chart.spec.sourceRef.namespace"),
	localRefRule(ruleCrossNamespace, helmReleaseKind, "chartRef.namespace"),
	dependsOnRule(helmReleaseKind),
	tenantNamespaceRule(helmReleaseKind, "targetNamespace"),
	tenantNamespaceRule(helmReleaseKind, "storageNamespace"),
	kubeConfigRule(helmReleaseKind),

	sameTenantRule(receiverKind, "resources"),
	sameTenantRule(alertKind, "eventSources"),
	// Policies and automations reference their own namespace: another's
	// image scans or repositories are another tenant's.
	localRefRule(ruleImageAutomation, imagePolicyKind, "imageRepositoryRef.namespace"),
	localRefRule(ruleImageAutomation, imageAutomationKind, "sourceRef.namespace"),
}

// sameTenantRule is rule LL006 on the list at spec.<list>: notifications
// name objects of the tenant's namespaces only.
func sameTenantRule(kind schema.GroupKind, list string) inProcessRule {
	foreign := `has(r.namespace) && !(r.namespace in ["", request.namespace]) && !` + tenantHoldsNamed("r.namespace")
	return inProcessRule{
		rule:  ruleNotification,
		field: field.NewPath("spec", list),
		kind:  kind,
		valid: fmt.Sprintf(`!has(object.spec.%[1]s) || !object.spec.%[1]s.exists(r, %[2]s) || `, list, foreign) + unchanged(list),
		// Messages may not ask the authorizer, so which entry is not told.
		detail: `"must name objects of tenant " + ` + labelledTenant + ` + "; allowed: " + request.namespace + " or another namespace of tenant " + ` + labelledTenant,
	}
}

// impersonates is rule LL001. Flux impersonates the named account of the
// object's own namespace, so any name there stays within the tenant; an
// empty one would fall back to the controller's default.
func impersonates(kind schema.GroupKind) inProcessRule {
	return inProcessRule{
		rule:  ruleServiceAccount,
		field: field.NewPath("spec", "serviceAccountName"),
		kind:  kind,
		valid: `has(object.spec.serviceAccountName) && object.spec.serviceAccountName != ""`,
		detail: `"Flux must impersonate a service account of namespace " + request.namespace + "; allowed: the tenant's reconciler \"" + variables.reconciler + ` +
			`"\" or another service account of " + request.namespace`,
	}
}

// localRefRule is rule r (LL002, LL007) on the reference at spec.<ref>:
// it stays in the object's namespace. The ratchet compares the whole
// field of spec the reference is in.
func localRefRule(r Rule, kind schema.GroupKind, ref string) inProcessRule {
	at := "object.spec." + ref
	path := strings.Split(ref, ".")
	parent := path[0]
	return inProcessRule{
		rule:   r,
		field:  field.NewPath("spec", path...),
		kind:   kind,
		valid:  fmt.Sprintf(`!has(object.spec.%s) || !has(%s) || %[2]s in ["", request.namespace] || `, parent, at) + unchanged(parent),
		detail: `"cross-namespace references are denied (" + ` + at + ` + "); allowed: unset or " + request.namespace`,
	}
}

// dependsOnRule is rule LL002 on dependencies: each in the object's
// namespace.
func dependsOnRule(kind schema.GroupKind) inProcessRule {
	const foreign = `has(d.namespace) && !(d.namespace in ["", request.namespace])`
	return inProcessRule{
		rule:   ruleCrossNamespace,
		field:  field.NewPath("spec", "dependsOn"),
		kind:   kind,
		valid:  `!has(object.spec.dependsOn) || !object.spec.dependsOn.exists(d, ` + foreign + `) || ` + unchanged("dependsOn"),
		detail: `"cross-namespace references are denied (" + object.spec.dependsOn.filter(d, ` + foreign + `).map(d, d.namespace).join(", ") + "); allowed: unset or " + request.namespace`,
	}
}

// tenantNamespaceRule is rule LL003 on spec.<f>: Flux applies into the
// tenant's namespaces only, those where the tenant's reconciler acts for
// it. The message lists none but the object's own: which names another
// namespace of the tenant has is not the API server's to tell.
func tenantNamespaceRule(kind schema.GroupKind, f string) inProcessRule {
	at := "object.spec." + f
	return inProcessRule{
		rule:  ruleTargetNamespace,
		field: field.NewPath("spec", f),
		kind:  kind,
		valid: fmt.Sprintf(`!has(%[1]s) || %[1]s in ["", request.namespace] || %[2]s || `, at, tenantHoldsNamed(at)) + unchanged(f),
		detail: `"must be a namespace of tenant " + ` + labelledTenant + ` + "; allowed: " + request.namespace + " or another namespace of tenant " + ` +
			labelledTenant,
	}
}

// kubeConfigRule is rule LL004: no remote clusters.
func kubeConfigRule(kind schema.GroupKind) inProcessRule {
	return inProcessRule{
		rule:   ruleKubeConfig,
		field:  field.NewPath("spec", "kubeConfig"),
		kind:   kind,
		valid:  `!has(object.spec.kubeConfig) || ` + unchanged("kubeConfig"),
		detail: `"remote clusters are denied; allowed: unset"`,
	}
}

// tenantHolds is a CEL expression true when the namespace ns evaluates to
// is held by the tenant the request's namespace is labelled for: its
// reconciler there acts for that tenant, as render.Admission says of every
// namespace the tenant holds.
func tenantHolds(ns string) string {
	return fmt.Sprintf(`(variables.reconciler != "" && %s.name(%s).check(%q).allowed())`, reconcilerIn(ns), labelledTenant, render.ActForVerb)
}

// tenantHoldsNamed is tenantHolds for a namespace an object names: a name
// that is no namespace's is held by none (the authorizer would refuse to
// ask), and an account there that acts for every tenant, by a wildcard
// grant, says nothing.
func tenantHoldsNamed(ns string) string {
	return fmt.Sprintf(`(%[1]s.matches(%[2]q) && size(%[1]s) <= %[7]d && %[3]s && !%[4]s.name(%[5]q).check(%[6]q).allowed())`,
		ns, dnsLabel, tenantHolds(ns), reconcilerIn(ns), render.WildcardProbe, render.ActForVerb, validation.DNS1123LabelMaxLength)
}

// reconcilerIn starts an authorizer check of render's markers as the
// reconciler the request's namespace names, in namespace ns.
func reconcilerIn(ns string) string {
	return markerCheck(fmt.Sprintf(`authorizer.serviceAccount(%s, variables.reconciler)`, ns))
}

// dnsLabel is the form of a namespace's name.
const dnsLabel = `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
