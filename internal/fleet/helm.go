package fleet

import (
	"fmt"
	"slices"
	"strings"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/landlord-dev/landlord/charts"
	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// DefaultChartRepository is where the release workflow pushes the chart.
const DefaultChartRepository = "oci://ghcr.io/landlord-dev/charts"

// The identity that signs the released image, chart and CLI checksums: the
// release workflow running for a tag of landlord-dev/landlord, as Fulcio
// records it. Regular expressions, as cosign and Flux match them.
const (
	ReleaseIssuer  = `^https://token\.actions\.githubusercontent\.com$`
	ReleaseSubject = `^https://github\.com/landlord-dev/landlord/\.github/workflows/release\.yaml@refs/tags/v.+$`
)

// LandlordChart is Landlord's chart at the release this binary carries,
// from DefaultChartRepository, verified.
func LandlordChart() (Chart, error) {
	chart, err := charts.Chart()
	if err != nil {
		return Chart{}, err
	}
	return Chart{Name: chart.Name, RepositoryURL: DefaultChartRepository, Version: chart.Version, Verify: true}, nil
}

// Where the infrastructure keeps Landlord's HelmRelease and its source.
const (
	HelmNamespaceFile = "infrastructure/landlord/namespace.yaml"
	HelmSourceFile    = "infrastructure/landlord/source.yaml"
	HelmReleaseFile   = "infrastructure/landlord/helmrelease.yaml"
)

// helmServiceAccount is helm-controller's own service account, bound to
// cluster-admin by flux install: with the lockdown's
// --default-service-account, a HelmRelease without one would impersonate
// flux-system's powerless default account.
const helmServiceAccount = "helm-controller"

// helmFiles install Landlord from chart with a Flux HelmRelease in
// flux-system: the chart from an OCIRepository (oci://) or a
// HelmRepository (https://), its CRDs created on install and replaced on
// upgrade, into landlord-system, which the fleet creates with the labels
// config/default gives it.
func helmFiles(chart Chart) ([]file, error) {
	source, ref, err := chartSource(chart)
	if err != nil {
		return nil, err
	}
	objects, err := config.Install()
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(objects, func(u *unstructured.Unstructured) bool {
		return u.GetKind() == "Namespace" && u.GetName() == tenancy.ControllerNamespace
	})
	if i < 0 {
		return nil, fmt.Errorf("config/default has no namespace %s", tenancy.ControllerNamespace)
	}
	ns, err := objectFile(HelmNamespaceFile, objects[i])
	if err != nil {
		return nil, err
	}
	release := &helmv2.HelmRelease{
		TypeMeta:   metav1.TypeMeta{APIVersion: helmv2.GroupVersion.String(), Kind: helmv2.HelmReleaseKind},
		ObjectMeta: metav1.ObjectMeta{Name: chart.Name, Namespace: FluxNamespace},
		Spec: helmv2.HelmReleaseSpec{
			Interval:           metav1.Duration{Duration: time.Hour},
			ReleaseName:        chart.Name,
			TargetNamespace:    tenancy.ControllerNamespace,
			StorageNamespace:   tenancy.ControllerNamespace,
			ServiceAccountName: helmServiceAccount,
			Install:            &helmv2.Install{CRDs: helmv2.Create, Remediation: &helmv2.InstallRemediation{Retries: 3}},
			Upgrade:            &helmv2.Upgrade{CRDs: helmv2.CreateReplace, Remediation: &helmv2.UpgradeRemediation{Retries: 3}},
		},
	}
	if ref.Kind == sourcev1.OCIRepositoryKind {
		release.Spec.ChartRef = &ref
	} else {
		release.Spec.Chart = &helmv2.HelmChartTemplate{Spec: helmv2.HelmChartTemplateSpec{
			Chart: chart.Name, Version: chart.Version,
			SourceRef: helmv2.CrossNamespaceObjectReference{Kind: ref.Kind, Name: ref.Name},
		}}
	}
	sourceFile, err := objectFile(HelmSourceFile, source)
	if err != nil {
		return nil, err
	}
	releaseFile, err := objectFile(HelmReleaseFile, release)
	if err != nil {
		return nil, err
	}
	return []file{ns, sourceFile, releaseFile}, nil
}

// chartSource is the Flux source serving chart, and how a HelmRelease
// refers to it.
func chartSource(chart Chart) (any, helmv2.CrossNamespaceSourceReference, error) {
	meta := metav1.ObjectMeta{Name: chart.Name, Namespace: FluxNamespace}
	switch {
	case strings.HasPrefix(chart.RepositoryURL, "oci://"):
		return &sourcev1.OCIRepository{
			TypeMeta:   metav1.TypeMeta{APIVersion: sourcev1.GroupVersion.String(), Kind: sourcev1.OCIRepositoryKind},
			ObjectMeta: meta,
			Spec: sourcev1.OCIRepositorySpec{
				URL:       strings.TrimSuffix(chart.RepositoryURL, "/") + "/" + chart.Name,
				Reference: &sourcev1.OCIRepositoryRef{Tag: chart.Version},
				// The chart's own layer, as helm push writes it.
				LayerSelector: &sourcev1.OCILayerSelector{MediaType: "application/vnd.cncf.helm.chart.content.v1.tar+gzip", Operation: sourcev1.OCILayerCopy},
				Interval:      metav1.Duration{Duration: time.Hour},
				Verify:        releaseVerification(chart.Verify),
			},
		}, helmv2.CrossNamespaceSourceReference{Kind: sourcev1.OCIRepositoryKind, Name: chart.Name}, nil
	case strings.HasPrefix(chart.RepositoryURL, "https://") && chart.Verify:
		return nil, helmv2.CrossNamespaceSourceReference{}, fmt.Errorf("chart repository %q: Flux verifies signatures of charts in OCI repositories only; use an oci://… repository or do without verification", chart.RepositoryURL)
	case strings.HasPrefix(chart.RepositoryURL, "https://"):
		repo := helmRepository(chart)
		repo.Namespace = FluxNamespace
		return repo, helmv2.CrossNamespaceSourceReference{Kind: sourcev1.HelmRepositoryKind, Name: chart.Name}, nil
	}
	return nil, helmv2.CrossNamespaceSourceReference{}, fmt.Errorf("chart repository %q: want oci://… or https://…", chart.RepositoryURL)
}

// releaseVerification has source-controller refuse a chart that Landlord's
// release workflow did not sign.
func releaseVerification(verify bool) *sourcev1.OCIRepositoryVerification {
	if !verify {
		return nil
	}
	return &sourcev1.OCIRepositoryVerification{
		Provider:          "cosign",
		MatchOIDCIdentity: []sourcev1.OIDCIdentityMatch{{Issuer: ReleaseIssuer, Subject: ReleaseSubject}},
	}
}
