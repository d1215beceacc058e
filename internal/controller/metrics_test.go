package controller_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// TestTenantSeriesFollowStatusAndGo: a tenant's series carry its source's
// revision and its quotas, a revision replaced leaves no series behind,
// and every series of the tenant goes with it.
func TestTenantSeriesFollowStatusAndGo(t *testing.T) {
	t.Parallel()
	tenant := newTenant("gauged", "gauged-apps", "gauged-jobs")
	tenant.Spec.Quota = &v1alpha1.Quota{Scope: v1alpha1.QuotaScopeTenant, Hard: corev1.ResourceList{corev1.ResourceServices: resource.MustParse("4")}}
	tenant.Spec.Sources = []v1alpha1.Source{{Name: "apps", Git: &v1alpha1.GitSource{URL: "https://git.example.com/gauged/apps"}}}
	create(t, tenant)
	ks := &kustomizev1.Kustomization{}
	eventually(t, "Kustomization created", func() error {
		return k8s.Get(ctx, client.ObjectKey{Namespace: "gauged-apps", Name: "apps"}, ks)
	})
	for _, revision := range []string{"main@sha1:1111", "main@sha1:2222"} {
		setReady(t, ks, &ks.Status.Conditions, metav1.ConditionTrue, "Applied revision: "+revision, func() {
			ks.Status.LastAppliedRevision = revision
		})
		eventually(t, "revision "+revision+" exported", func() error {
			got := series(t, "gauged")
			if want := `landlord_tenant_source_info{revision="` + revision + `",source="apps",tenant="gauged"} 1`; !slices.Contains(got, want) {
				return fmt.Errorf("no %s in %q", want, got)
			}
			return nil
		})
	}
	got := series(t, "gauged")
	for _, want := range []string{
		`landlord_tenant_quota_hard{resource="services",tenant="gauged"} 4`,
		`landlord_tenant_quota_used{resource="services",tenant="gauged"} 0`,
		`landlord_namespace_quota_hard{namespace="gauged-apps",resource="services",scope="Tenant",tenant="gauged"} 2`,
		`landlord_namespace_quota_used{namespace="gauged-jobs",resource="services",scope="Tenant",tenant="gauged"} 0`,
		`landlord_tenant_reconcile_errors_total{tenant="gauged"} 0`,
	} {
		if !slices.Contains(got, want) {
			t.Errorf("no %s in\n%s", want, strings.Join(got, "\n"))
		}
	}
	for _, s := range got {
		if strings.Contains(s, "main@sha1:1111") {
			t.Errorf("the replaced revision is still exported: %s", s)
		}
	}

	deleteTenant(t, tenant.Name)
	eventually(t, "series gone", func() error {
		if got := series(t, "gauged"); len(got) > 0 {
			return fmt.Errorf("left: %q", got)
		}
		return nil
	})
}

// series lists the tenant's landlord_ series in the registry, as
// name{labels} value, reconcile durations left out (their value varies).
func series(t *testing.T, tenant string) []string {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "landlord_") || f.GetName() == "landlord_tenant_reconcile_duration_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			var labels []string
			mine := false
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
				mine = mine || l.GetName() == "tenant" && l.GetValue() == tenant
			}
			if mine {
				out = append(out, fmt.Sprintf("%s{%s} %v", f.GetName(), strings.Join(labels, ","), value(m)))
			}
		}
	}
	return out
}

func value(m *dto.Metric) float64 {
	if c := m.GetCounter(); c != nil {
		return c.GetValue()
	}
	return m.GetGauge().GetValue()
}
