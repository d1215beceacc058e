// Package chartrender renders a Helm chart as helm template --include-crds
// prints it, as objects, for the tests that hold the chart to config/ and
// install it on the local node.
package chartrender

import (
	"fmt"
	"strings"

	"github.com/fluxcd/pkg/ssa/utils"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Render renders the chart in dir as release "landlord" in namespace:
// values checked against values.schema.json, the CRDs and every template.
func Render(dir, namespace string, values map[string]any) ([]*unstructured.Unstructured, error) {
	chart, files, err := render(dir, namespace, values)
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

// Notes is the chart's NOTES.txt as helm install prints it.
func Notes(dir, namespace string, values map[string]any) (string, error) {
	chart, files, err := render(dir, namespace, values)
	if err != nil {
		return "", err
	}
	notes, ok := files[chart.Name()+"/templates/NOTES.txt"]
	if !ok {
		return "", fmt.Errorf("%s has no templates/NOTES.txt", dir)
	}
	return notes, nil
}

// render renders every file of the chart in dir, by name.
func render(dir, namespace string, values map[string]any) (*chart.Chart, map[string]string, error) {
	c, err := loader.Load(dir)
	if err != nil {
		return nil, nil, err
	}
	options := chartutil.ReleaseOptions{Name: "landlord", Namespace: namespace, Revision: 1, IsInstall: true}
	renderValues, err := chartutil.ToRenderValues(c, values, options, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, nil, err
	}
	files, err := engine.Render(c, renderValues)
	if err != nil {
		return nil, nil, err
	}
	return c, files, nil
}
