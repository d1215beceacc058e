package fleet

import (
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"
)

// The example application of a scaffolded tenant repository.
const (
	exampleApp   = "podinfo"
	exampleChart = "https://stefanprodan.github.io/podinfo"
)

// tenantEnvs are the overlays of a tenant repository: staging tracks
// pre-releases, production releases only.
var tenantEnvs = []struct {
	name, version string
	replicas      int
}{
	{"staging", ">=1.0.0-alpha", 1},
	{"production", ">=1.0.0", 2},
}

// InitTenantRepo writes a tenant repository below dir: a base with an
// example HelmRelease and staging and production overlays patching its
// chart version and values. Objects carry no namespace: the tenant's Flux
// Kustomization applies them in the tenant's namespace.
func InitTenantRepo(dir string) ([]Change, error) {
	var files []file
	for _, o := range []struct {
		path string
		obj  any
	}{
		{"base/repository.yaml", helmRepository()},
		{"base/release.yaml", helmRelease()},
	} {
		f, err := objectFile(o.path, o.obj)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	f, err := kustomizationFile("base/"+KustomizationFile, newKustomization("repository.yaml", "release.yaml"))
	if err != nil {
		return nil, err
	}
	files = append(files, f)

	for _, env := range tenantEnvs {
		patch, err := yaml.Marshal(map[string]any{
			"apiVersion": helmv2.GroupVersion.String(),
			"kind":       helmv2.HelmReleaseKind,
			"metadata":   map[string]any{"name": exampleApp},
			"spec": map[string]any{
				"chart":  map[string]any{"spec": map[string]any{"version": env.version}},
				"values": map[string]any{"replicaCount": env.replicas},
			},
		})
		if err != nil {
			return nil, err
		}
		files = append(files, file{path: env.name + "/" + exampleApp + "-values.yaml", data: patch})
		k := newKustomization("../base")
		k.Patches = []types.Patch{{Path: exampleApp + "-values.yaml"}}
		f, err := kustomizationFile(env.name+"/"+KustomizationFile, k)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return writeFiles(dir, files)
}

func helmRepository() *sourcev1.HelmRepository {
	return &sourcev1.HelmRepository{
		TypeMeta:   metav1.TypeMeta{APIVersion: sourcev1.GroupVersion.String(), Kind: sourcev1.HelmRepositoryKind},
		ObjectMeta: metav1.ObjectMeta{Name: exampleApp},
		Spec: sourcev1.HelmRepositorySpec{
			URL:      exampleChart,
			Interval: metav1.Duration{Duration: time.Hour},
		},
	}
}

func helmRelease() *helmv2.HelmRelease {
	return &helmv2.HelmRelease{
		TypeMeta:   metav1.TypeMeta{APIVersion: helmv2.GroupVersion.String(), Kind: helmv2.HelmReleaseKind},
		ObjectMeta: metav1.ObjectMeta{Name: exampleApp},
		Spec: helmv2.HelmReleaseSpec{
			Interval:    metav1.Duration{Duration: 50 * time.Minute},
			ReleaseName: exampleApp,
			Chart: &helmv2.HelmChartTemplate{
				Spec: helmv2.HelmChartTemplateSpec{
					Chart: exampleApp,
					SourceRef: helmv2.CrossNamespaceObjectReference{
						Kind: sourcev1.HelmRepositoryKind,
						Name: exampleApp,
					},
				},
			},
			Install: &helmv2.Install{Remediation: &helmv2.InstallRemediation{Retries: 3}},
			Values:  &apiextensionsv1.JSON{Raw: []byte(`{"replicaCount":1}`)},
		},
	}
}
