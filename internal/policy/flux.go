package policy

import (
	"slices"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	imageautov1 "github.com/fluxcd/image-automation-controller/api/v1"
	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	notificationv1 "github.com/fluxcd/notification-controller/api/v1"
	notificationv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// fluxContent applies the rules on Flux's kinds; ok is false for other kinds.
func fluxContent(obj runtime.Object, s scope) (errs field.ErrorList, ok bool) {
	switch o := obj.(type) {
	case *kustomizev1.Kustomization:
		return kustomization(o, s), true
	case *helmv2.HelmRelease:
		return helmRelease(o, s), true
	case *sourcev1.GitRepository:
		return gitRepository(o, s), true
	case *sourcev1.OCIRepository:
		return ociRepository(o, s), true
	case *sourcev1.HelmRepository:
		return helmRepository(o, s), true
	case *sourcev1.Bucket:
		return bucket(o, s), true
	case *notificationv1.Receiver:
		return receiver(o, s), true
	case *notificationv1beta3.Alert:
		return alert(o, s), true
	case *notificationv1beta3.Provider:
		return identityFields(s, field.NewPath("spec"), "", nil, o.Spec.ServiceAccountName), true
	case *imagev1.ImageRepository:
		return imageRepository(o, s), true
	case *imagev1.ImagePolicy:
		return localRef(ruleImageAutomation, field.NewPath("spec", "imageRepositoryRef", "namespace"), o.Spec.ImageRepositoryRef.Namespace, s), true
	case *imageautov1.ImageUpdateAutomation:
		return localRef(ruleImageAutomation, field.NewPath("spec", "sourceRef", "namespace"), o.Spec.SourceRef.Namespace, s), true
	}
	return nil, false
}

func kustomization(k *kustomizev1.Kustomization, s scope) field.ErrorList {
	spec := field.NewPath("spec")
	errs := serviceAccountRequired(spec.Child("serviceAccountName"), k.Spec.ServiceAccountName, s)
	errs = append(errs, localRef(ruleCrossNamespace, spec.Child("sourceRef", "namespace"), k.Spec.SourceRef.Namespace, s)...)
	for i, d := range k.Spec.DependsOn {
		errs = append(errs, localRef(ruleCrossNamespace, spec.Child("dependsOn").Index(i).Child("namespace"), d.Namespace, s)...)
	}
	errs = append(errs, tenantNamespace(spec.Child("targetNamespace"), k.Spec.TargetNamespace, s)...)
	errs = append(errs, kubeConfig(spec.Child("kubeConfig"), k.Spec.KubeConfig)...)
	if d := k.Spec.Decryption; d != nil {
		errs = append(errs, identityFields(s, spec.Child("decryption"), "", nil, d.ServiceAccountName)...)
	}
	return errs
}

func helmRelease(h *helmv2.HelmRelease, s scope) field.ErrorList {
	spec := field.NewPath("spec")
	errs := serviceAccountRequired(spec.Child("serviceAccountName"), h.Spec.ServiceAccountName, s)
	if h.Spec.Chart != nil {
		errs = append(errs, localRef(ruleCrossNamespace, spec.Child("chart", "spec", "sourceRef", "namespace"), h.Spec.Chart.Spec.SourceRef.Namespace, s)...)
	}
	if h.Spec.ChartRef != nil {
		errs = append(errs, localRef(ruleCrossNamespace, spec.Child("chartRef", "namespace"), h.Spec.ChartRef.Namespace, s)...)
	}
	// valuesFrom has no namespace field in helm-controller v2: always local.
	for i, d := range h.Spec.DependsOn {
		errs = append(errs, localRef(ruleCrossNamespace, spec.Child("dependsOn").Index(i).Child("namespace"), d.Namespace, s)...)
	}
	errs = append(errs, tenantNamespace(spec.Child("targetNamespace"), h.Spec.TargetNamespace, s)...)
	errs = append(errs, tenantNamespace(spec.Child("storageNamespace"), h.Spec.StorageNamespace, s)...)
	return append(errs, kubeConfig(spec.Child("kubeConfig"), h.Spec.KubeConfig)...)
}

// serviceAccountRequired is rule LL001. Flux impersonates the named account
// of the object's own namespace, so any name there stays within the tenant;
// an empty one would fall back to the controller's default.
func serviceAccountRequired(p *field.Path, name string, s scope) field.ErrorList {
	if name != "" {
		return nil
	}
	return field.ErrorList{field.Required(p, ruleServiceAccount.ID+": Flux must impersonate a service account of namespace "+s.ns+
		"; allowed: the tenant's reconciler "+quoteList([]string{s.tenant.ReconcilerName()})+" or another service account of "+s.ns)}
}

// localRef is rules LL002 and LL007: a reference stays in the object's
// namespace.
func localRef(r Rule, p *field.Path, ns string, s scope) field.ErrorList {
	if ns == "" || ns == s.ns {
		return nil
	}
	return field.ErrorList{notSupported(r, p, ns, "cross-namespace references are denied", []string{"", s.ns})}
}

// tenantNamespace is rule LL003: Flux applies into the tenant's namespaces
// only.
func tenantNamespace(p *field.Path, ns string, s scope) field.ErrorList {
	if s.sameTenant(ns) {
		return nil
	}
	return field.ErrorList{notSupported(ruleTargetNamespace, p, ns, "must be a namespace of tenant "+s.tenant.Name, namespacesOf(s.tenant))}
}

// kubeConfig is rule LL004.
func kubeConfig(p *field.Path, kc *fluxmeta.KubeConfigReference) field.ErrorList {
	if kc == nil {
		return nil
	}
	return field.ErrorList{forbidden(ruleKubeConfig, p, "remote clusters are denied; allowed: unset")}
}

// identityFields is rule LL005: a cloud provider other than the generic
// one, or a service account to impersonate, lends the object an identity
// unless the Tenant allows workload identity.
func identityFields(s scope, spec *field.Path, provider string, providers []string, serviceAccountName string) field.ErrorList {
	if s.allow.workloadIdentity {
		return nil
	}
	var errs field.ErrorList
	if provider != "" && !slices.Contains(providers, provider) {
		errs = append(errs, notSupported(ruleWorkloadIdentity, spec.Child("provider"), provider,
			"tenant "+s.tenant.Name+" may not use workload identity", providers))
	}
	if serviceAccountName != "" {
		errs = append(errs, forbidden(ruleWorkloadIdentity, spec.Child("serviceAccountName"),
			"tenant "+s.tenant.Name+" may not use workload identity; allowed: unset, with credentials in a Secret"))
	}
	return errs
}

func receiver(r *notificationv1.Receiver, s scope) field.ErrorList {
	var errs field.ErrorList
	for i, res := range r.Spec.Resources {
		errs = append(errs, sameTenantRef(field.NewPath("spec", "resources").Index(i).Child("namespace"), res.Namespace, s)...)
	}
	return errs
}

func alert(a *notificationv1beta3.Alert, s scope) field.ErrorList {
	var errs field.ErrorList
	for i, src := range a.Spec.EventSources {
		errs = append(errs, sameTenantRef(field.NewPath("spec", "eventSources").Index(i).Child("namespace"), src.Namespace, s)...)
	}
	return errs
}

// sameTenantRef is rule LL006: notifications name objects of the same
// tenant only.
func sameTenantRef(p *field.Path, ns string, s scope) field.ErrorList {
	if s.sameTenant(ns) {
		return nil
	}
	return field.ErrorList{notSupported(ruleNotification, p, ns, "must name objects of tenant "+s.tenant.Name, namespacesOf(s.tenant))}
}

func imageRepository(r *imagev1.ImageRepository, s scope) field.ErrorList {
	spec := field.NewPath("spec")
	errs := identityFields(s, spec, r.Spec.Provider, genericProviders, r.Spec.ServiceAccountName)
	if r.Spec.AccessFrom != nil {
		// Policies may only reference their own namespace, so granting
		// others access serves only other tenants.
		errs = append(errs, forbidden(ruleImageAutomation, spec.Child("accessFrom"), "access from other namespaces is denied; allowed: unset"))
	}
	return errs
}
