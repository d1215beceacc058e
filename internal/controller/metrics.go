package controller

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

// Per-tenant series, beside controller-runtime's own metrics: set from the
// status each reconcile writes, so that they agree with it, and deleted
// with the Tenant. Labels are bounded by the Tenant's spec (its sources,
// its quota's resources), never by what a tenant creates.
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
	sourceReady = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "landlord_tenant_source_ready",
		Help: "1 when Flux reports the tenant's source synced (its GitRepository and Kustomization Ready), 0 otherwise.",
	}, []string{"tenant", "source"})
	sourceInfo = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "landlord_tenant_source_info",
		Help: "Always 1: the revision Flux last applied of the tenant's source, as a label (empty before the first apply).",
	}, []string{"tenant", "source", "revision"})
	tenantQuotaUsed = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "landlord_tenant_quota_used",
		Help: "A tenant-wide quota's use, summed over the tenant's namespaces (status.quota.used), by resource; cores for cpu, bytes for memory.",
	}, []string{"tenant", "resource"})
	tenantQuotaHard = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "landlord_tenant_quota_hard",
		Help: "A tenant-wide quota's limit (status.quota.hard), by resource; cores for cpu, bytes for memory.",
	}, []string{"tenant", "resource"})
	reconcileDuration = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "landlord_tenant_reconcile_duration_seconds",
		Help: "How long the tenant's last reconcile took, its status write included.",
	}, []string{"tenant"})
	reconcileErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "landlord_tenant_reconcile_errors_total",
		Help: "Reconciles of the tenant that ended in an error and were retried.",
	}, []string{"tenant"})

	perTenant = []*prometheus.MetricVec{
		tenantReady.MetricVec, tenantNamespaces.MetricVec, tenantSources.MetricVec, sourceReady.MetricVec, sourceInfo.MetricVec,
		tenantQuotaUsed.MetricVec, tenantQuotaHard.MetricVec, reconcileDuration.MetricVec, reconcileErrors.MetricVec,
	}
)

// Each namespace's quota is read from the cache when scraped: its use
// changes without waking the Tenant.
var (
	namespaceQuotaUsed = prometheus.NewDesc("landlord_namespace_quota_used",
		"What a tenant namespace uses of its landlord-quota ResourceQuota (status.used), by resource; scope Tenant when the tenant's quota is shared out over its namespaces.",
		[]string{"tenant", "namespace", "resource", "scope"}, nil)
	namespaceQuotaHard = prometheus.NewDesc("landlord_namespace_quota_hard",
		"The limit of a tenant namespace's landlord-quota ResourceQuota (status.hard), by resource; scope Tenant when it is the namespace's share of the tenant's quota.",
		[]string{"tenant", "namespace", "resource", "scope"}, nil)
)

func init() {
	metrics.Registry.MustRegister(tenantReady, tenantNamespaces, tenantSources, sourceReady, sourceInfo,
		tenantQuotaUsed, tenantQuotaHard, reconcileDuration, reconcileErrors)
}

// recordMetrics sets the tenant's series from its status.
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

	// A source, revision or resource that left the status leaves no series.
	labels := prometheus.Labels{"tenant": tenant.Name}
	for _, vec := range []*prometheus.GaugeVec{sourceReady, sourceInfo, tenantQuotaUsed, tenantQuotaHard} {
		vec.DeletePartialMatch(labels)
	}
	for _, s := range tenant.Status.Sources {
		sourceReady.WithLabelValues(tenant.Name, s.Name).Set(float64(b2i(s.Ready)))
		sourceInfo.WithLabelValues(tenant.Name, s.Name, s.Revision).Set(1)
	}
	if q := tenant.Status.Quota; q != nil {
		for name, v := range q.Hard {
			tenantQuotaHard.WithLabelValues(tenant.Name, string(name)).Set(v.AsApproximateFloat64())
		}
		for name, v := range q.Used {
			tenantQuotaUsed.WithLabelValues(tenant.Name, string(name)).Set(v.AsApproximateFloat64())
		}
	}
}

// recordReconcile sets how long the tenant's reconcile took and counts it
// when it failed.
func recordReconcile(name string, took time.Duration, err error) {
	reconcileDuration.WithLabelValues(name).Set(took.Seconds())
	// The counter exists from the first reconcile, so that rate() sees its first error.
	failed := reconcileErrors.WithLabelValues(name)
	if err != nil {
		failed.Inc()
	}
}

// forgetMetrics deletes every series of a tenant that is gone.
func forgetMetrics(name string) {
	labels := prometheus.Labels{"tenant": name}
	for _, vec := range perTenant {
		vec.DeletePartialMatch(labels)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// quotaCollector reports each tenant namespace's landlord-quota from the
// cache, on the replica that leads only: the others do not reconcile, so
// they hold no informer of quotas, and one set of series is enough.
type quotaCollector struct {
	cache   client.Reader
	elected <-chan struct{}
}

var _ prometheus.Collector = &quotaCollector{}

// registerQuotaCollector reports mgr's quotas; the latest manager of a
// process replaces an earlier one, as tests start several.
func registerQuotaCollector(mgr ctrl.Manager) error {
	c := &quotaCollector{cache: mgr.GetCache(), elected: mgr.Elected()}
	metrics.Registry.Unregister(c)
	return metrics.Registry.Register(c)
}

func (c *quotaCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- namespaceQuotaUsed
	ch <- namespaceQuotaHard
}

func (c *quotaCollector) Collect(ch chan<- prometheus.Metric) {
	select {
	case <-c.elected:
	default:
		return
	}
	// A scrape waits for an informer still syncing no longer than this.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	list := &corev1.ResourceQuotaList{}
	if err := c.cache.List(ctx, list, client.MatchingLabels{v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue}, client.UnsafeDisableDeepCopy); err != nil {
		ctrl.Log.WithName("metrics").Error(err, "listing tenant quotas")
		return
	}
	for _, q := range list.Items {
		tenant := q.Labels[v1alpha1.TenantLabel]
		if q.Name != render.QuotaName || tenant == "" {
			continue
		}
		scope := q.Labels[render.QuotaScopeLabel]
		if scope == "" {
			scope = string(v1alpha1.QuotaScopeNamespace)
		}
		for _, series := range []struct {
			desc   *prometheus.Desc
			values corev1.ResourceList
		}{{namespaceQuotaHard, q.Status.Hard}, {namespaceQuotaUsed, q.Status.Used}} {
			for name, v := range series.values {
				ch <- prometheus.MustNewConstMetric(series.desc, prometheus.GaugeValue, v.AsApproximateFloat64(), tenant, q.Namespace, string(name), scope)
			}
		}
	}
}
