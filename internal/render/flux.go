package render

import (
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// gitSource is the repository of a source, the tenant's or a template.
func gitSource(src v1alpha1.Source) *v1alpha1.GitSource {
	if src.Template != nil {
		return src.Template
	}
	return src.Git
}

// sourceKind is the value of SourceLabel and the field name of the source.
func sourceKind(src v1alpha1.Source) string {
	if src.Template != nil {
		return SourceTemplate
	}
	return SourceGit
}

func fluxMeta(t *v1alpha1.Tenant, src v1alpha1.Source) metav1.ObjectMeta {
	m := meta(t, src.Name, t.HomeNamespace())
	m.Labels[SourceLabel] = sourceKind(src)
	return m
}

func gitRepository(t *v1alpha1.Tenant, src v1alpha1.Source) *sourcev1.GitRepository {
	repo := gitSource(src)
	spec := sourcev1.GitRepositorySpec{
		URL:      repo.URL,
		Interval: src.Interval,
		Suspend:  t.Spec.Suspend,
	}
	if ref := repo.Ref; ref != nil {
		spec.Reference = &sourcev1.GitRepositoryRef{Branch: ref.Branch, Tag: ref.Tag, SemVer: ref.SemVer, Commit: ref.Commit}
	}
	if repo.SecretRef != "" {
		spec.SecretRef = &fluxmeta.LocalObjectReference{Name: repo.SecretRef}
	}
	return &sourcev1.GitRepository{
		TypeMeta:   typeMeta(sourcev1.GroupVersion, sourcev1.GitRepositoryKind),
		ObjectMeta: fluxMeta(t, src),
		Spec:       spec,
	}
}

// kustomization syncs one source as the tenant's reconciler, with the
// tenant's variables substituted.
func kustomization(t *v1alpha1.Tenant, src v1alpha1.Source) *kustomizev1.Kustomization {
	spec := kustomizev1.KustomizationSpec{
		SourceRef:          kustomizev1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: src.Name},
		ServiceAccountName: t.ReconcilerName(),
		Path:               src.Path,
		Interval:           src.Interval,
		Timeout:            src.Timeout,
		Prune:              src.Prune == nil || *src.Prune,
		TargetNamespace:    src.TargetNamespace,
		Suspend:            t.Spec.Suspend,
		PostBuild: &kustomizev1.PostBuild{SubstituteFrom: []kustomizev1.SubstituteReference{{
			Kind: "ConfigMap", Name: v1alpha1.VariablesConfigMap,
		}}},
	}
	for _, dep := range src.DependsOn {
		spec.DependsOn = append(spec.DependsOn, kustomizev1.DependencyReference{Name: dep})
	}
	if d := src.Decryption; d != nil {
		spec.Decryption = &kustomizev1.Decryption{Provider: d.Provider}
		if d.SecretRef != "" {
			spec.Decryption.SecretRef = &fluxmeta.LocalObjectReference{Name: d.SecretRef}
		}
	}
	return &kustomizev1.Kustomization{
		TypeMeta:   typeMeta(kustomizev1.GroupVersion, kustomizev1.KustomizationKind),
		ObjectMeta: fluxMeta(t, src),
		Spec:       spec,
	}
}
