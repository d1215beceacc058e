package fleet

import (
	"strings"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/internal/render"
)

// Chart is the example application a scaffolded tenant repository
// installs.
type Chart struct {
	// Name of the chart, which also names the HelmRepository, HelmRelease
	// and release.
	Name string
	// RepositoryURL is the chart repository.
	RepositoryURL string
	// Version is the semver range production installs; staging also takes
	// its pre-releases.
	Version string
	// Verify has Flux check the chart's keyless cosign signature by
	// Landlord's release workflow before installing it; only an oci://
	// repository can be verified.
	Verify bool
}

// Podinfo is the default example application.
var Podinfo = Chart{Name: "podinfo", RepositoryURL: "https://stefanprodan.github.io/podinfo", Version: ">=1.0.0"}

// tenantEnvs are the overlays of a tenant repository: staging tracks
// pre-releases, production releases only.
var tenantEnvs = []struct {
	name        string
	preReleases bool
	replicas    int
}{
	{"staging", true, 1},
	{"production", false, 2},
}

// InitTenantRepo writes a tenant repository below dir: a base with an
// example HelmRelease of chart and staging and production overlays
// patching its chart version and values. Objects carry no namespace of
// their own: each overlay sets ${TENANT_NAMESPACE}, which the tenant's Flux
// Kustomization substitutes with its home namespace, since Flux applies a
// namespaced object only where it names.
func InitTenantRepo(dir string, chart Chart) ([]Change, error) {
	var files []file
	for _, o := range []struct {
		path string
		obj  any
	}{
		{"base/repository.yaml", helmRepository(chart)},
		{"base/release.yaml", helmRelease(chart)},
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
		version := chart.Version
		if env.preReleases {
			version = preReleases(version)
		}
		patch, err := yaml.Marshal(map[string]any{
			"apiVersion": helmv2.GroupVersion.String(),
			"kind":       helmv2.HelmReleaseKind,
			"metadata":   map[string]any{"name": chart.Name},
			"spec": map[string]any{
				"chart":  map[string]any{"spec": map[string]any{"version": version}},
				"values": map[string]any{"replicaCount": env.replicas},
			},
		})
		if err != nil {
			return nil, err
		}
		files = append(files, file{path: env.name + "/" + chart.Name + "-values.yaml", data: patch})
		k := newKustomization("../base")
		k.Patches = []types.Patch{{Path: chart.Name + "-values.yaml"}}
		k.Namespace = "${" + render.TenantNamespaceVariable + "}"
		f, err := kustomizationFile(env.name+"/"+KustomizationFile, k)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return writeFiles(dir, files)
}

// preReleases widens a range of the form >=X.Y.Z to X.Y.Z's pre-releases,
// which semver ranges leave out unless their bound names one.
func preReleases(version string) string {
	if strings.HasPrefix(version, ">=") && !strings.Contains(version, "-") && !strings.ContainsAny(version, " ,<|") {
		return version + "-0"
	}
	return version
}

func helmRepository(chart Chart) *sourcev1.HelmRepository {
	return &sourcev1.HelmRepository{
		TypeMeta:   metav1.TypeMeta{APIVersion: sourcev1.GroupVersion.String(), Kind: sourcev1.HelmRepositoryKind},
		ObjectMeta: metav1.ObjectMeta{Name: chart.Name},
		Spec: sourcev1.HelmRepositorySpec{
			URL:      chart.RepositoryURL,
			Interval: metav1.Duration{Duration: time.Hour},
		},
	}
}

func helmRelease(chart Chart) *helmv2.HelmRelease {
	return &helmv2.HelmRelease{
		TypeMeta:   metav1.TypeMeta{APIVersion: helmv2.GroupVersion.String(), Kind: helmv2.HelmReleaseKind},
		ObjectMeta: metav1.ObjectMeta{Name: chart.Name},
		Spec: helmv2.HelmReleaseSpec{
			Interval:    metav1.Duration{Duration: 50 * time.Minute},
			ReleaseName: chart.Name,
			Chart: &helmv2.HelmChartTemplate{
				Spec: helmv2.HelmChartTemplateSpec{
					Chart: chart.Name,
					SourceRef: helmv2.CrossNamespaceObjectReference{
						Kind: sourcev1.HelmRepositoryKind,
						Name: chart.Name,
					},
				},
			},
			Install: &helmv2.Install{Remediation: &helmv2.InstallRemediation{Retries: 3}},
			Values:  &apiextensionsv1.JSON{Raw: []byte(`{"replicaCount":1}`)},
		},
	}
}
