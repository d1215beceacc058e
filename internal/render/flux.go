package render

import (
	"slices"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// Defaults of the Tenant CRD's schema, applied here too so that a Tenant
// read from a fleet repo renders as it would once admitted (the interval's
// is Source.SyncInterval).
const (
	defaultPath     = "./"
	defaultProvider = "sops"
)

// TemplatesNamespace holds what a template source needs: its
// GitRepository with its credentials Secret, its Kustomization with any
// decryption Secret, and the account it applies as. The platform owns the
// template, so none of it lives where the tenant role can read or replace
// Secrets; the account holds the tenant role in the tenant's namespaces
// only, through TemplatesBinding.
const TemplatesNamespace = "landlord-templates"

// TemplatesBinding binds the tenant role, in each tenant namespace, to the
// tenant's account in TemplatesNamespace.
const TemplatesBinding = "landlord-templates"

// FluxKey is where a source's GitRepository and Kustomization live: the
// home namespace under the source's name, or for a template
// TemplatesNamespace under "<tenant>.<source>", which no other tenant's
// source can take (neither name holds a dot).
func FluxKey(t *v1alpha1.Tenant, src string) client.ObjectKey {
	for _, s := range t.Spec.Sources {
		if s.Name == src && s.Template != nil {
			return client.ObjectKey{Namespace: TemplatesNamespace, Name: t.Name + "." + src}
		}
	}
	return client.ObjectKey{Namespace: t.HomeNamespace(), Name: src}
}

// templateVariables is the name of the tenant's variables in
// TemplatesNamespace, where a template's Kustomization reads them.
func templateVariables(t *v1alpha1.Tenant) string {
	return t.Name + "." + v1alpha1.VariablesConfigMap
}

// templatesAccount is the account a tenant's templates apply as.
func templatesAccount(t *v1alpha1.Tenant) types.NamespacedName {
	return types.NamespacedName{Namespace: TemplatesNamespace, Name: t.Name}
}

// hasTemplates reports whether any source of the tenant is a template.
func hasTemplates(t *v1alpha1.Tenant) bool {
	return slices.ContainsFunc(t.Spec.Sources, func(s v1alpha1.Source) bool { return s.Template != nil })
}

// templateAccess is what a tenant with template sources gets in
// TemplatesNamespace (the account its templates apply as and its
// variables) and in each of its namespaces (the binding of that account).
func templateAccess(t *v1alpha1.Tenant, all []string) []client.Object {
	account := &corev1.ServiceAccount{
		TypeMeta:   typeMeta(corev1.SchemeGroupVersion, "ServiceAccount"),
		ObjectMeta: meta(t, templatesAccount(t).Name, TemplatesNamespace),
	}
	vars := variables(t, t.HomeNamespace())
	vars.ObjectMeta = meta(t, templateVariables(t), TemplatesNamespace)
	objects := []client.Object{account, vars}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: templatesAccount(t).Name, Namespace: TemplatesNamespace}}
	for _, ns := range all {
		objects = append(objects, roleBinding(t, TemplatesBinding, ns, t.RoleName(), subject))
	}
	return objects
}

// gitRepository is the source of one tenant source, at FluxKey.
func gitRepository(t *v1alpha1.Tenant, src v1alpha1.Source) *sourcev1.GitRepository {
	repo := gitSource(src)
	spec := sourcev1.GitRepositorySpec{
		URL:       repo.URL,
		Interval:  src.SyncInterval(),
		Reference: gitRef(repo.Ref),
		SecretRef: localRef(repo.SecretRef),
		Suspend:   t.Spec.Suspend,
	}
	return &sourcev1.GitRepository{
		TypeMeta:   typeMeta(sourcev1.GroupVersion, sourcev1.GitRepositoryKind),
		ObjectMeta: fluxMeta(t, src),
		Spec:       spec,
	}
}

// kustomization applies one source as the tenant's reconciler, or a
// template as the tenant's account in TemplatesNamespace, with the tenant's
// variables substituted.
func kustomization(t *v1alpha1.Tenant, src v1alpha1.Source) *kustomizev1.Kustomization {
	key := FluxKey(t, src.Name)
	spec := kustomizev1.KustomizationSpec{
		SourceRef: kustomizev1.CrossNamespaceSourceReference{
			Kind: sourcev1.GitRepositoryKind,
			Name: key.Name,
		},
		ServiceAccountName: t.ReconcilerName(),
		Path:               src.Path,
		Interval:           src.SyncInterval(),
		Prune:              src.Prune == nil || *src.Prune,
		TargetNamespace:    src.TargetNamespace,
		Suspend:            t.Spec.Suspend,
		PostBuild: &kustomizev1.PostBuild{
			SubstituteFrom: []kustomizev1.SubstituteReference{{
				Kind: "ConfigMap",
				Name: v1alpha1.VariablesConfigMap,
			}},
		},
	}
	if src.Template != nil {
		spec.ServiceAccountName = t.Name
		spec.PostBuild.SubstituteFrom[0].Name = templateVariables(t)
		if spec.TargetNamespace == "" {
			// Else what names no namespace would land in TemplatesNamespace.
			spec.TargetNamespace = t.HomeNamespace()
		}
	}
	if spec.Path == "" {
		spec.Path = defaultPath
	}
	if src.Timeout != nil {
		spec.Timeout = &metav1.Duration{Duration: src.Timeout.Duration}
	}
	for _, d := range src.DependsOn {
		spec.DependsOn = append(spec.DependsOn, kustomizev1.DependencyReference{Name: FluxKey(t, d).Name})
	}
	if d := src.Decryption; d != nil {
		spec.Decryption = &kustomizev1.Decryption{Provider: d.Provider, SecretRef: localRef(d.SecretRef)}
		if spec.Decryption.Provider == "" {
			spec.Decryption.Provider = defaultProvider
		}
	}
	return &kustomizev1.Kustomization{
		TypeMeta:   typeMeta(kustomizev1.GroupVersion, kustomizev1.KustomizationKind),
		ObjectMeta: fluxMeta(t, src),
		Spec:       spec,
	}
}

// fluxMeta names Flux objects at FluxKey, labelled with the kind of source.
func fluxMeta(t *v1alpha1.Tenant, src v1alpha1.Source) metav1.ObjectMeta {
	key := FluxKey(t, src.Name)
	m := meta(t, key.Name, key.Namespace)
	m.Labels[SourceLabel] = sourceKind(src)
	return m
}

// sourceKind is SourceTemplate for a platform template, SourceGit otherwise.
func sourceKind(src v1alpha1.Source) string {
	if src.Template != nil {
		return SourceTemplate
	}
	return SourceGit
}

// gitSource is the repository of a source, its own or a template.
func gitSource(src v1alpha1.Source) v1alpha1.GitSource {
	switch {
	case src.Template != nil:
		return *src.Template
	case src.Git != nil:
		return *src.Git
	}
	return v1alpha1.GitSource{}
}

func gitRef(ref *v1alpha1.GitRef) *sourcev1.GitRepositoryRef {
	if ref == nil || *ref == (v1alpha1.GitRef{}) {
		return nil // the remote's default branch
	}
	return &sourcev1.GitRepositoryRef{Branch: ref.Branch, Tag: ref.Tag, SemVer: ref.SemVer, Commit: ref.Commit}
}

func localRef(name string) *fluxmeta.LocalObjectReference {
	if name == "" {
		return nil
	}
	return &fluxmeta.LocalObjectReference{Name: name}
}
