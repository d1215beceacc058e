package main

import (
	"log"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/profile"
)

// TenantDefaultsKey is the file of the tenant defaults ConfigMap.
const TenantDefaultsKey = "tenant-defaults.yaml"

// writeTenantDefaults writes config/'s ConfigMap of tenant defaults from
// the chart's values, marshalled as Helm's toYaml does, so that both
// installs give Tenants one profile; a profile the controller would
// refuse fails generation.
func writeTenantDefaults() {
	data, err := os.ReadFile(chartDir + "/values.yaml")
	if err != nil {
		log.Fatal(err)
	}
	var values struct {
		TenantDefaults map[string]any `json:"tenantDefaults"`
	}
	if err := yaml.Unmarshal(data, &values); err != nil {
		log.Fatal(err)
	}
	profileYAML, err := yaml.Marshal(values.TenantDefaults)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := profile.Parse(profileYAML, chartDir+"/values.yaml tenantDefaults"); err != nil {
		log.Fatal(err)
	}
	write("config/manager/tenant-defaults.yaml", chartDir+"/values.yaml (tenantDefaults)", &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "landlord-tenant-defaults", Namespace: install.ControllerNamespace,
			Labels: map[string]string{"app.kubernetes.io/name": "landlord-controller"},
		},
		Data: map[string]string{TenantDefaultsKey: string(profileYAML)},
	})
}
