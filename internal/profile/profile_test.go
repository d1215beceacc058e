package profile_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/profile"
)

// TestParseNamesWhatItRefuses: each bad profile is refused with the key
// and what is allowed, as the Tenant schema words it.
func TestParseNamesWhatItRefuses(t *testing.T) {
	for name, tc := range map[string]struct{ yaml, want string }{
		"unknown key":    {"quotas: {}", `unknown key "quotas"; allowed: quota, limitRange`},
		"bad scope":      {"quota: {scope: Cluster, hard: {pods: '1'}}", `quota.scope: Unsupported value: "Cluster"`},
		"no limits":      {"limitRange: {limits: []}", "limitRange.limits"},
		"bad quantity":   {"quota: {hard: {pods: lots}}", `quota.hard.pods: Invalid value: "lots"`},
		"quota, no hard": {"quota: {scope: Tenant}", "quota.hard"},
	} {
		_, err := profile.Parse([]byte(tc.yaml), "defaults.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "defaults.yaml: ") {
			t.Errorf("%s: err = %v, want defaults.yaml: ...%s", name, err, tc.want)
		}
	}
	if p, err := profile.Parse([]byte("quota: {scope: Tenant, hard: {pods: '10'}}"), "defaults.yaml"); err != nil || !p.Quota.TenantWide() {
		t.Errorf("a valid profile: %+v, %v", p, err)
	}
}

// TestApplyFillsWhatTheTenantLeavesOut: a Tenant's own quota keeps its
// keys and scope and gains the profile's keys it leaves out, so it cannot
// drop the platform's counts; its unset limits are filled; the Tenant read
// is unchanged.
func TestApplyFillsWhatTheTenantLeavesOut(t *testing.T) {
	p := profile.Profile{
		Quota: &v1alpha1.Quota{Scope: v1alpha1.QuotaScopeTenant, Hard: corev1.ResourceList{
			corev1.ResourcePods: resource.MustParse("50"), corev1.ResourceServices: resource.MustParse("20"),
		}},
		LimitRange: &v1alpha1.LimitRange{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer}}},
	}
	own := &v1alpha1.Tenant{Spec: v1alpha1.TenantSpec{Quota: &v1alpha1.Quota{Hard: corev1.ResourceList{corev1.ResourceServices: resource.MustParse("1")}}}}
	got := p.Apply(own)
	want := corev1.ResourceList{corev1.ResourceServices: resource.MustParse("1"), corev1.ResourcePods: resource.MustParse("50")}
	if !equality.Semantic.DeepEqual(got.Spec.Quota.Hard, want) || got.Spec.Quota.TenantWide() || got.Spec.LimitRange == nil {
		t.Errorf("applied: quota %v (%s), limits %v; want %v at the tenant's scope and the profile's limits", got.Spec.Quota.Hard, got.Spec.Quota.Scope, got.Spec.LimitRange, want)
	}
	if own.Spec.LimitRange != nil || len(own.Spec.Quota.Hard) != 1 {
		t.Error("Apply changed the Tenant it was given")
	}
	whole := &v1alpha1.Tenant{Spec: v1alpha1.TenantSpec{Quota: &v1alpha1.Quota{Hard: want.DeepCopy()}, LimitRange: &v1alpha1.LimitRange{}}}
	if p.Apply(whole) != whole {
		t.Error("a Tenant setting every key was copied")
	}
	bare := &v1alpha1.Tenant{}
	if got := (profile.Profile{}).Apply(bare); got != bare {
		t.Error("the empty profile copied the Tenant")
	}
}

// TestShippedDefaultsMeetTheFairnessChecks: the profile config/, the chart
// and landlord dev up install caps cpu, memory and storage
// (MTB-PL1-CC-FNS-1), counts every object kind MTB-PL1-CC-FNS-2 names and
// every kind the tenant role lets tenants create, and gives containers
// defaults, so pods without requests still run under it.
func TestShippedDefaultsMeetTheFairnessChecks(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "config", "manager", "tenant-defaults.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.Unmarshal([]byte(strings.SplitN(string(data), "---\n", 2)[1]), &cm); err != nil {
		t.Fatal(err)
	}
	installed, err := profile.Parse([]byte(cm.Data["tenant-defaults.yaml"]), "config/manager/tenant-defaults.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(p, installed) {
		t.Fatalf("landlord dev up's defaults %+v differ from config/'s %+v", p, installed)
	}
	for _, r := range []corev1.ResourceName{
		corev1.ResourceRequestsCPU, corev1.ResourceLimitsCPU, corev1.ResourceRequestsMemory, corev1.ResourceLimitsMemory,
		corev1.ResourceRequestsEphemeralStorage, corev1.ResourceLimitsEphemeralStorage, corev1.ResourceRequestsStorage,
		corev1.ResourcePods, corev1.ResourceServices, corev1.ResourceServicesNodePorts, corev1.ResourceServicesLoadBalancers,
		corev1.ResourceReplicationControllers, corev1.ResourceQuotas, corev1.ResourceSecrets, corev1.ResourceConfigMaps,
		corev1.ResourcePersistentVolumeClaims,
	} {
		if _, ok := p.Quota.Hard[r]; !ok {
			t.Errorf("the shipped defaults do not cap %s", r)
		}
	}
	if uncounted := p.Uncounted(); len(uncounted) > 0 {
		t.Errorf("the shipped defaults count none of %v, which the tenant role lets tenants create", uncounted)
	}
	if !p.Quota.TenantWide() {
		t.Error("the shipped quota is per namespace: self-service would multiply it")
	}
	if p.LimitRange == nil || len(p.LimitRange.Limits) == 0 || p.LimitRange.Limits[0].DefaultRequest.Cpu().IsZero() {
		t.Error("the shipped defaults give containers no default requests: pods without them would be refused by the quota")
	}
}

// TestUncountedNamesTheKindsLeftOut: a profile counting pods by their
// older name and nothing else leaves every other created kind uncounted.
func TestUncountedNamesTheKindsLeftOut(t *testing.T) {
	p := profile.Profile{Quota: &v1alpha1.Quota{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}}}
	got := p.Uncounted()
	if slices.Contains(got, "count/pods") || !slices.Contains(got, "count/leases.coordination.k8s.io") || !slices.Contains(got, "count/helmreleases.helm.toolkit.fluxcd.io") {
		t.Errorf("uncounted %v: want leases and helm releases, not pods", got)
	}
	if all := (profile.Profile{}).Uncounted(); len(all) != len(got)+1 {
		t.Errorf("the empty profile leaves %d uncounted, the pods-only one %d", len(all), len(got))
	}
}
