// Package profile is the platform's default Tenant profile: the quota and
// container limits every Tenant gets unless it sets its own, so that a
// Tenant written without them is still fair to its neighbours.
package profile

import (
	_ "embed"
	"fmt"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/apivalidation"
	"github.com/landlord-dev/landlord/internal/kinds"
)

// shipped is the chart's tenantDefaults, written by `make generate`.
//
//go:embed shipped.yaml
var shipped []byte

// Shipped is the profile the chart and config/ install, for what runs
// without them (landlord dev up).
func Shipped() (Profile, error) {
	return Parse(shipped, "the shipped tenant defaults")
}

// Profile holds the Tenant fields the platform may default, as a Tenant's
// spec writes them.
type Profile struct {
	// Quota is spec.quota for Tenants that set none, and each key of its
	// hard for Tenants whose quota leaves the key out.
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

// Apply returns t with the profile's quota keys its quota leaves out and
// the profile's fields it sets none of; t itself is not changed. A Tenant
// can raise or lower a key of the profile's but never drop it, so the
// platform's object counts hold for every Tenant; the keys filled in take
// the Tenant's scope.
func (p Profile) Apply(t *v1alpha1.Tenant) *v1alpha1.Tenant {
	if !p.fills(t) {
		return t
	}
	out := t.DeepCopy()
	switch {
	case p.Quota == nil:
	case out.Spec.Quota == nil:
		out.Spec.Quota = p.Quota.DeepCopy()
	default:
		if out.Spec.Quota.Hard == nil {
			out.Spec.Quota.Hard = corev1.ResourceList{}
		}
		for name, value := range p.Quota.Hard {
			if _, ok := out.Spec.Quota.Hard[name]; !ok {
				out.Spec.Quota.Hard[name] = value.DeepCopy()
			}
		}
	}
	if out.Spec.LimitRange == nil && p.LimitRange != nil {
		out.Spec.LimitRange = p.LimitRange.DeepCopy()
	}
	return out
}

// fills reports whether Apply would change t.
func (p Profile) fills(t *v1alpha1.Tenant) bool {
	if p.LimitRange != nil && t.Spec.LimitRange == nil {
		return true
	}
	if p.Quota == nil {
		return false
	}
	if t.Spec.Quota == nil {
		return true
	}
	for name := range p.Quota.Hard {
		if _, ok := t.Spec.Quota.Hard[name]; !ok {
			return true
		}
	}
	return false
}

// legacyCounts are the older quota names that count core kinds.
var legacyCounts = map[string]corev1.ResourceName{
	"count/pods": corev1.ResourcePods, "count/services": corev1.ResourceServices,
	"count/replicationcontrollers": corev1.ResourceReplicationControllers, "count/resourcequotas": corev1.ResourceQuotas,
	"count/secrets": corev1.ResourceSecrets, "count/configmaps": corev1.ResourceConfigMaps,
	"count/persistentvolumeclaims": corev1.ResourcePersistentVolumeClaims,
}

// Uncounted lists the quota keys that would count the kinds the tenant
// role lets tenants create, or controllers spawn from what they create,
// and that the profile's quota leaves out: a tenant may store as many of
// those as etcd holds.
func (p Profile) Uncounted() []string {
	var out []string
	for _, k := range kinds.Select(func(k kinds.Kind) bool { return k.Namespaced && (k.Tenant == kinds.Write || k.Spawned) }) {
		key := k.ObjectCount()
		if p.Quota != nil {
			if _, ok := p.Quota.Hard[corev1.ResourceName(key)]; ok {
				continue
			}
			if _, ok := p.Quota.Hard[legacyCounts[key]]; ok && legacyCounts[key] != "" {
				continue
			}
		}
		out = append(out, key)
	}
	return out
}
