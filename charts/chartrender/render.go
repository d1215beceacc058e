// Package chartrender renders a Helm chart as helm template --include-crds
// prints it, as objects, for the tests that hold the chart to config/ and
// install it on the local node.
package chartrender

import (
	"strings"

	"github.com/fluxcd/pkg/ssa/utils"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Render renders the chart in dir as release "landlord" in namespace:
// values checked against values.schema.json, the CRDs and every template.
func Render(dir, namespace string, values map[string]any) ([]*unstructured.Unstructured, error) {
	chart, err := loader.Load(dir)
	if err != nil {
		return nil, err
	}
	options := chartutil.ReleaseOptions{Name: "landlord", Namespace: namespace, Revision: 1, IsInstall: true}
	renderValues, err := chartutil.ToRenderValues(chart, values, options, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	files, err := engine.Render(chart, renderValues)
	if err != nil {
		return nil, err
	}
	var manifests []string
	for _, crd := range chart.CRDObjects() {
		manifests = append(manifests, string(crd.File.Data))
	}
	for name, content := range files {
		if strings.HasSuffix(name, ".yaml") {
			manifests = append(manifests, content)
		}
	}
	return utils.ReadObjects(strings.NewReader(strings.Join(manifests, "\n---\n")))
}
