package config_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/install"
)

// TestSamplesShowEveryField holds config/samples to the CRDs: each sample
// is admitted by the API server (schema and CEL rules), and every field of
// its kind's spec appears in it at least once, so a new field without an
// example fails here.
func TestSamplesShowEveryField(t *testing.T) {
	if err := install.Prerequisites(context.Background(), k8s); err != nil {
		t.Fatal(err)
	}
	crds, err := config.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	for file, kind := range map[string]string{"tenant.yaml": "Tenant", "tenantresource.yaml": "TenantResource"} {
		data, err := os.ReadFile(filepath.Join("samples", file))
		if err != nil {
			t.Fatal(err)
		}
		sample := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &sample.Object); err != nil {
			t.Fatal(err)
		}
		if err := k8s.Create(context.Background(), sample, client.DryRunAll); err != nil {
			t.Errorf("samples/%s is refused: %v", file, err)
		}
		i := slices.IndexFunc(crds, func(c *apiextensionsv1.CustomResourceDefinition) bool { return c.Spec.Names.Kind == kind })
		spec := crds[i].Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
		for _, path := range missing(spec, []any{sample.Object["spec"]}, "spec") {
			t.Errorf("samples/%s shows no %s", file, path)
		}
	}
}

// refusedFields are in a schema only to be refused: no sample sets them.
var refusedFields = []string{"spec.objects[].metadata.namespace", "spec.objects[].metadata.generateName"}

// sameType pairs fields of one Go type: an example in either shows both.
var sameType = map[string]string{"spec.sources[].git": "template", "spec.sources[].template": "git"}

// missing lists the schema's leaf fields that none of values, the
// instances found at path, holds: a list shows a field when any of its
// items does.
func missing(schema apiextensionsv1.JSONSchemaProps, values []any, path string) []string {
	if slices.Contains(refusedFields, path) {
		return nil
	}
	values = slices.DeleteFunc(values, func(v any) bool { return v == nil })
	if len(values) == 0 {
		return []string{path}
	}
	if schema.Type == "array" && schema.Items != nil && schema.Items.Schema != nil {
		var items []any
		for _, v := range values {
			list, _ := v.([]any)
			items = append(items, list...)
		}
		return missing(*schema.Items.Schema, items, path+"[]")
	}
	var out []string
	for field, sub := range schema.Properties {
		var found []any
		for _, v := range values {
			if object, ok := v.(map[string]any); ok {
				found = append(found, object[field])
				if sibling, ok := sameType[path+"."+field]; ok {
					found = append(found, object[sibling])
				}
			}
		}
		out = append(out, missing(sub, found, path+"."+field)...)
	}
	return out
}
