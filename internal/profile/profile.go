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
// profile. Unknown keys and values the Tenant schema refuses are errors
// that name the file and the key.
func Load(path string) (Profile, error) {
	var p Profile
	if path == "" {
		return p, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return p, fmt.Errorf("reading the tenant defaults: %w", err)
	}
	if err := yaml.UnmarshalStrict(data, &p); err != nil {
		return p, fmt.Errorf("%s: %w (allowed keys: quota, limitRange)", path, err)
	}
	if errs := p.validate(); len(errs) > 0 {
		return p, fmt.Errorf("%s: %w", path, errs.ToAggregate())
	}
	return p, nil
}

// validate judges the profile as the Tenant schema judges spec.quota and
// spec.limitRange, the paths named as in the file.
func (p Profile) validate() field.ErrorList {
	probe := p.Apply(&v1alpha1.Tenant{Spec: v1alpha1.TenantSpec{Namespaces: []v1alpha1.TenantNamespace{{Name: "profile"}}}})
	probe.Name = "profile"
	var errs field.ErrorList
	for _, e := range apivalidation.ValidateTenant(probe) {
		e.Field = strings.TrimPrefix(e.Field, "spec.")
		errs = append(errs, e)
	}
	return errs
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
