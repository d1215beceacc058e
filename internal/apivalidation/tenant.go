package apivalidation

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/config"
)

// tenantKind is the Tenant's schema, compiled once per process: the
// controller validates every Tenant on each reconcile.
var tenantKind = sync.OnceValues(func() (*Kind, error) {
	crds, err := config.CRDs()
	if err != nil {
		return nil, fmt.Errorf("config CRDs: %w", err)
	}
	gvk := v1alpha1.GroupVersion.WithKind("Tenant")
	for _, crd := range crds {
		if crd.Spec.Group != gvk.Group || crd.Spec.Names.Kind != gvk.Kind {
			continue
		}
		kinds, err := crdSchemas(crd)
		if err != nil {
			return nil, err
		}
		for _, k := range kinds {
			if k.gvk == gvk {
				return k, nil
			}
		}
	}
	return nil, fmt.Errorf("config has no CRD serving %s", gvk)
})

// ValidateTenant judges t as the apiserver does on create, against the
// Tenant CRD of package config: defaults, then its schema and CEL rules.
// It is the one definition of a valid Tenant, for what never met an
// apiserver (a fleet's YAML, the CLI's flags) and what did.
func ValidateTenant(t *v1alpha1.Tenant) field.ErrorList {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(t)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	return ValidateTenantObject(obj)
}

// ValidateTenantObject is ValidateTenant for a Tenant as generic JSON,
// which may hold what its Go type cannot (a quantity that does not parse).
func ValidateTenantObject(obj map[string]any) field.ErrorList {
	k, err := tenantKind()
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	// Objects read from the cache carry no type.
	obj["apiVersion"], obj["kind"] = v1alpha1.GroupVersion.String(), "Tenant"
	return k.validate(context.Background(), obj, "").Errors()
}
