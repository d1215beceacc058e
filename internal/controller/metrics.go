package controller

import (
	"github.com/prometheus/client_golang/prometheus"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// Per-tenant gauges, beside controller-runtime's own metrics.
var (
	tenantReady = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "landlord_tenant_ready",
		Help: "1 when the tenant's Ready condition is True, 0 otherwise.",
	}, []string{"tenant"})
	tenantNamespaces = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "landlord_tenant_namespaces",
		Help: "Namespaces of the tenant, by readiness.",
	}, []string{"tenant", "ready"})
	tenantSources = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "landlord_tenant_sources",
		Help: "Sources of the tenant, by readiness.",
	}, []string{"tenant", "ready"})
)

func init() {
	metrics.Registry.MustRegister(tenantReady, tenantNamespaces, tenantSources)
}

func recordMetrics(tenant *v1alpha1.Tenant) {
	ready := 0.0
	if apimeta.IsStatusConditionTrue(tenant.Status.Conditions, v1alpha1.ReadyCondition) {
		ready = 1
	}
	tenantReady.WithLabelValues(tenant.Name).Set(ready)
	var nsReady, srcReady [2]float64
	for _, ns := range tenant.Status.Namespaces {
		nsReady[b2i(ns.Ready)]++
	}
	for _, s := range tenant.Status.Sources {
		srcReady[b2i(s.Ready)]++
	}
	for i, label := range []string{"false", "true"} {
		tenantNamespaces.WithLabelValues(tenant.Name, label).Set(nsReady[i])
		tenantSources.WithLabelValues(tenant.Name, label).Set(srcReady[i])
	}
}

func forgetMetrics(name string) {
	labels := prometheus.Labels{"tenant": name}
	tenantReady.DeletePartialMatch(labels)
	tenantNamespaces.DeletePartialMatch(labels)
	tenantSources.DeletePartialMatch(labels)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
