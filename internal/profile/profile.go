// Package profile is the platform's default Tenant profile: the quota and
// container limits every Tenant gets unless it sets its own, so that a
// Tenant written without them is still fair to its neighbours.
package profile

import (
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/apivalidation"
)

// Profile holds the Tenant fields the platform may default, as a Tenant's
// spec writes them.
type Profile struct {
	// Quota is spec.quota for Tenants that set none.
	Quota *v1alpha1.Quota `json:"quota,omitempty"`
	// LimitRange is spec.limitRange for Tenants that set none.
	LimitRange *v1alpha1.LimitRange `json:"limitRange,omitempty"`
}

// Load reads a profile from a YAML file; an empty path is the empty
// profile.
func Load(path string) (Profile, error) {
	if path == "" {
		return Profile{}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Profile{}, fmt.Errorf("reading the tenant defaults: %w", err)
	}
	return Parse(data, path)
}

// Parse reads a profile from YAML; unknown keys and values the Tenant
// schema refuses are errors that name source and the key.
func Parse(data []byte, source string) (Profile, error) {
	var fields map[string]any
	if err := yaml.Unmarshal(data, &fields); err != nil {
		return Profile{}, fmt.Errorf("%s: %w", source, err)
	}
	spec := map[string]any{"namespaces": []any{map[string]any{"name": "profile"}}}
	for key, value := range fields {
		if key != "quota" && key != "limitRange" {
			return Profile{}, fmt.Errorf("%s: unknown key %q; allowed: quota, limitRange", source, key)
		}
		spec[key] = value
	}
	probe := map[string]any{"metadata": map[string]any{"name": "profile"}, "spec": spec}
	var errs field.ErrorList
	for _, e := range apivalidation.ValidateTenantObject(probe) {
		e.Field = strings.TrimPrefix(e.Field, "spec.")
		errs = append(errs, e)
	}
	if len(errs) > 0 {
		return Profile{}, fmt.Errorf("%s: %w", source, errs.ToAggregate())
	}
	var p Profile
	if err := yaml.UnmarshalStrict(data, &p); err != nil {
		return Profile{}, fmt.Errorf("%s: %w", source, err)
	}
	return p, nil
}

// Apply returns t with the profile's fields where t sets none; t itself is
// not changed.
func (p Profile) Apply(t *v1alpha1.Tenant) *v1alpha1.Tenant {
	if (p.Quota == nil || t.Spec.Quota != nil) && (p.LimitRange == nil || t.Spec.LimitRange != nil) {
		return t
	}
	out := t.DeepCopy()
	if out.Spec.Quota == nil && p.Quota != nil {
		out.Spec.Quota = p.Quota.DeepCopy()
	}
	if out.Spec.LimitRange == nil && p.LimitRange != nil {
		out.Spec.LimitRange = p.LimitRange.DeepCopy()
	}
	return out
}
