// Package charts holds Landlord's Helm chart, charts/landlord, and says
// which release it is for the scaffolds that install it.
package charts

import (
	_ "embed"
	"fmt"

	"sigs.k8s.io/yaml"
)

//go:embed landlord/Chart.yaml
var chartYAML []byte

// Landlord is what Chart.yaml says of the chart: make generate writes it
// from VERSION.
type Landlord struct {
	Name       string `json:"name"`
	Version    string `json:"version"`
	AppVersion string `json:"appVersion"`
}

// Chart reads the chart's name and versions.
func Chart() (Landlord, error) {
	var chart Landlord
	if err := yaml.Unmarshal(chartYAML, &chart); err != nil {
		return Landlord{}, fmt.Errorf("reading charts/landlord/Chart.yaml: %w", err)
	}
	return chart, nil
}
