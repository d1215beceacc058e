package render

import (
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// Defaults of the Tenant CRD's schema, applied here too so that a Tenant
// read from a fleet repo renders as it would once admitted (the interval's
// is Source.SyncInterval).
const (
	defaultPath     = "./"
	defaultProvider = "sops"
)

// gitRepository is the source of one tenant source, in the home namespace.
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

// kustomization applies one source as the tenant's reconciler, with the
// tenant's variables substituted.
func kustomization(t *v1alpha1.Tenant, src v1alpha1.Source) *kustomizev1.Kustomization {
	spec := kustomizev1.KustomizationSpec{
		SourceRef: kustomizev1.CrossNamespaceSourceReference{
			Kind: sourcev1.GitRepositoryKind,
			Name: src.Name,
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
	if spec.Path == "" {
		spec.Path = defaultPath
	}
	if src.Timeout != nil {
		spec.Timeout = &metav1.Duration{Duration: src.Timeout.Duration}
	}
	for _, d := range src.DependsOn {
		spec.DependsOn = append(spec.DependsOn, kustomizev1.DependencyReference{Name: d})
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

// fluxMeta names Flux objects after their source, in the home namespace,
// labelled with the kind of source.
func fluxMeta(t *v1alpha1.Tenant, src v1alpha1.Source) metav1.ObjectMeta {
	m := meta(t, src.Name, t.HomeNamespace())
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
