package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/kinds"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/render"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

const (
	// admissionTenant is the tenant whose identity writes in p2.
	admissionTenant = "admission"
	// platformNamespace holds no tenant: the webhook never sees it.
	platformNamespace = "bench-platform"
	// rounds alternate the tenant and platform namespaces, so that a
	// noisy neighbour on the machine weighs on both alike.
	rounds          = 3
	writesPerRound  = 1000
	warmupPerTarget = 200
	// profileSpan covers the profiled round in the tenant namespace.
	profileSpan = 5 * time.Second
)

func init() { parts["p2"] = measureAdmission }

// load is what one series of creates measured.
type load struct {
	latencies []time.Duration
	errors    int
	elapsed   time.Duration
}

func (l *load) add(o load) {
	l.latencies = append(l.latencies, o.latencies...)
	l.errors += o.errors
	l.elapsed += o.elapsed
}

// quantile is the q-th latency in milliseconds.
func (l load) quantile(q float64) float64 {
	sorted := slices.Clone(l.latencies)
	slices.Sort(sorted)
	return float64(sorted[int(q*float64(len(sorted)-1))]) / float64(time.Millisecond)
}

func (l load) throughput() float64 { return float64(len(l.latencies)) / l.elapsed.Seconds() }

// creator creates one object named name in namespace ns.
type creator func(ctx context.Context, c client.Client, ns, name string) error

// judge says who judges a kind's creates in a tenant namespace.
type judge string

const (
	inProcess judge = "the API server's policy"
	byWebhook judge = "the webhook"
)

// judgeOf is who judges gk: the webhook where the registry routes it
// there, the API server's policy for every other kind.
func judgeOf(gk schema.GroupKind) judge {
	if k, ok := kinds.Lookup(gk); ok && k.Judged && !k.InProcess {
		return byWebhook
	}
	return inProcess
}

// benchKinds are the kinds measured; who judges each is the registry's
// word (judgeOf).
var benchKinds = []struct {
	kind   schema.GroupKind
	create creator
}{
	{schema.GroupKind{Kind: "ConfigMap"}, func(ctx context.Context, c client.Client, ns, name string) error {
		return c.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "bench"}},
			Data:       map[string]string{"key": "value"},
		})
	}},
	{schema.GroupKind{Group: coordinationv1.GroupName, Kind: "Lease"}, func(ctx context.Context, c client.Client, ns, name string) error {
		return c.Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})
	}},
	{schema.GroupKind{Group: appsv1.GroupName, Kind: "Deployment"}, func(ctx context.Context, c client.Client, ns, name string) error {
		labels := map[string]string{"app": name}
		return c.Create(ctx, &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](0),
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/app:1"}}},
				},
			},
		})
	}},
	// A kind the webhook still judges (the keys Flux reads as URLs).
	{schema.GroupKind{Kind: "Secret"}, func(ctx context.Context, c client.Client, ns, name string) error {
		return c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: map[string]string{"token": "value"}})
	}},
	{schema.GroupKind{Group: kustomizev1.GroupVersion.Group, Kind: kustomizev1.KustomizationKind}, func(ctx context.Context, c client.Client, ns, name string) error {
		return c.Create(ctx, &kustomizev1.Kustomization{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: kustomizev1.KustomizationSpec{
				Interval:           metav1.Duration{Duration: time.Hour},
				Prune:              true,
				Suspend:            true,
				ServiceAccountName: admissionTenant,
				SourceRef:          kustomizev1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "app"},
			},
		})
	}},
}

// measureAdmission creates objects as one tenant's owner, 20 clients at
// once, in the tenant's namespace (through the webhook the
// landlord-controller binary serves) and in a platform namespace where the
// same identity holds the same role (no webhook).
func measureAdmission(ctx context.Context, e *env) ([]row, error) {
	p, err := e.controlPlane(ctx, false)
	if err != nil {
		return nil, err
	}
	ctl, err := e.landlord(ctx)
	if err != nil {
		return nil, err
	}
	admin, err := adminClient(p)
	if err != nil {
		return nil, err
	}
	tenant := benchTenant(admissionTenant)
	tenant.Spec.Sources = nil
	if _, _, err := provision(ctx, admin, []*v1alpha1.Tenant{tenant}); err != nil {
		return nil, err
	}
	if err := platformGrant(ctx, admin, tenant); err != nil {
		return nil, err
	}
	// An owner of the tenant: the owners' group is the tenant's name.
	owner, err := writer(p, "bench-owner", admissionTenant, "system:authenticated")
	if err != nil {
		return nil, err
	}
	apiserverHTTP, err := rest.HTTPClientFor(p.Config)
	if err != nil {
		return nil, err
	}
	tenantNS := tenant.Spec.Namespaces[0].Name
	if err := waitWritable(ctx, owner, tenantNS, platformNamespace); err != nil {
		return nil, err
	}

	var rows, profiled []row
	for _, kind := range benchKinds {
		log.Printf("p2: %s creates, %d clients, %d rounds of %d per namespace", kind.kind.Kind, workers, rounds, writesPerRound)
		profile := e.profileDir != "" && kind.kind.Kind == "ConfigMap"
		handledBefore, countBefore, err := ctl.handlerTime(ctx)
		if err != nil {
			return nil, err
		}
		tenantLoad, platformLoad, err := compare(ctx, owner, strings.ToLower(kind.kind.Kind), kind.create, tenantNS)
		if err != nil {
			return nil, err
		}
		if profile {
			// An extra round, not counted: profiling slows what it watches.
			// Both ends of the webhook call: the controller and the API server.
			controller := ctl.profile(ctx, filepath.Join(e.profileDir, "p2.pprof"), profileSpan)
			apiserver := takeProfile(ctx, apiserverHTTP, p.Config.Host, filepath.Join(e.profileDir, "p2-apiserver.pprof"), profileSpan)
			_, err := series(ctx, owner, kind.create, tenantNS, strings.ToLower(kind.kind.Kind)+"-profiled", writesPerRound)
			if err := errors.Join(err, controller(), apiserver()); err != nil {
				return nil, err
			}
			if profiled, err = apiserverShares(ctx, admin, kind.kind.Kind, filepath.Join(e.profileDir, "p2-apiserver.pprof")); err != nil {
				return nil, err
			}
		}
		handled, count, err := ctl.handlerTime(ctx)
		if err != nil {
			return nil, err
		}
		kindRows := admissionRows(kind.kind.Kind, judgeOf(kind.kind), "", tenantLoad, platformLoad)
		kindRows[0].note += fmt.Sprintf("; the webhook handled %.0f requests", count-countBefore)
		if count > countBefore {
			kindRows[0].note += fmt.Sprintf(", mean %.2f ms each", (handled-handledBefore)/(count-countBefore)*1000)
		}
		rows = append(rows, kindRows...)
	}
	// Flux applies a tenant's repository as the namespace's reconciler:
	// most writes in a tenant namespace are its.
	reconciler, err := writer(p, tenancy.ServiceAccountPrefix+tenantNS+":"+tenant.ReconcilerName(),
		"system:serviceaccounts", "system:serviceaccounts:"+tenantNS, "system:authenticated")
	if err != nil {
		return nil, err
	}
	if err := waitWritable(ctx, reconciler, tenantNS, platformNamespace); err != nil {
		return nil, err
	}
	log.Printf("p2: ConfigMap creates as the namespace's reconciler, %d clients", workers)
	tenantLoad, platformLoad, err := compare(ctx, reconciler, "configmap-reconciler", benchKinds[0].create, tenantNS)
	if err != nil {
		return nil, err
	}
	rows = append(rows, admissionRows(benchKinds[0].kind.Kind, judgeOf(benchKinds[0].kind), ", as the namespace's reconciler", tenantLoad, platformLoad)...)
	down, err := webhookStopped(ctx, ctl, owner, tenantNS)
	return append(append(rows, down...), profiled...), err
}

// apiserverShares reads the API server's profile of one kind's creates in
// the tenant namespace into rows: what admission costs, and of it what
// RBAC, the conversions and the rest of CEL cost, beside what authorizing
// the request itself costs, with how many Tenants RBAC reads through.
func apiserverShares(ctx context.Context, admin client.Client, kind, path string) ([]row, error) {
	shares, err := cpuShares(path, apiserverParts)
	if err != nil {
		return nil, err
	}
	tenants := &v1alpha1.TenantList{}
	if err := admin.List(ctx, tenants); err != nil {
		return nil, err
	}
	note := fmt.Sprintf("share of the API server's CPU in %s (%s of %s creates in the tenant namespace), %d Tenants on the control plane",
		filepath.Base(path), profileSpan, kind, len(tenants.Items))
	return shareRows("p2", kind+" create, tenant ns, profiled", apiserverParts, shares, note), nil
}

// webhookStopped measures the same creates with every landlord-controller
// stopped: what the API server judges itself goes on as before, what the
// webhook judges fails closed. The controller runs again after.
func webhookStopped(ctx context.Context, ctl *controllerProcess, owner client.Client, tenantNS string) ([]row, error) {
	if err := ctl.Stop(); err != nil {
		return nil, err
	}
	var rows []row
	for _, kind := range benchKinds {
		log.Printf("p2: %s creates with the webhook stopped", kind.kind.Kind)
		prefix := strings.ToLower(kind.kind.Kind) + "-stopped"
		if judgeOf(kind.kind) == inProcess {
			tenantLoad, platformLoad, err := compare(ctx, owner, prefix, kind.create, tenantNS)
			if err != nil {
				return nil, err
			}
			rows = append(rows, admissionRows(kind.kind.Kind, judgeOf(kind.kind), ", webhook stopped", tenantLoad, platformLoad)...)
			continue
		}
		refused, last := 0, error(nil)
		for i := range warmupPerTarget {
			if err := kind.create(ctx, owner, tenantNS, fmt.Sprintf("%s-%d", prefix, i)); err != nil {
				refused, last = refused+1, err
			}
		}
		note := "every create refused: the webhook's rules fail closed"
		if last != nil {
			note += "; the last with: " + last.Error()
		}
		rows = append(rows, row{part: "p2", figure: kind.kind.Kind + " create, tenant ns, webhook stopped: refused", value: float64(refused), unit: "of " + fmt.Sprint(warmupPerTarget),
			target: fmt.Sprint(warmupPerTarget), met: refused == warmupPerTarget, note: note})
	}
	if err := ctl.Restart(); err != nil {
		return nil, err
	}
	return rows, ctl.WaitReady(ctx)
}

// writer is an unthrottled client acting as user in groups.
func writer(p *localcluster.Env, user string, groups ...string) (client.Client, error) {
	cfg := unthrottled(p.ConfigFor(user, groups...))
	// Pod Security's warnings on the Deployments would be logged per create.
	cfg.WarningHandlerWithContext = rest.NoWarnings{}
	return client.New(cfg, client.Options{Scheme: manager.Scheme()})
}

// platformGrant makes the platform namespace, binds the tenant role there
// to the tenant's owners and its first namespace's reconciler and sets the
// tenant's quota, as in the tenant's own namespaces: the API server's
// quota admission weighs on both alike.
func platformGrant(ctx context.Context, admin client.Client, tenant *v1alpha1.Tenant) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: platformNamespace}}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: platformNamespace, Name: "bench-owners"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: render.TenantClusterRole().Name},
		Subjects: []rbacv1.Subject{
			{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: tenant.Name},
			{Kind: rbacv1.ServiceAccountKind, Namespace: tenant.Spec.Namespaces[0].Name, Name: tenant.ReconcilerName()},
		},
	}
	quota := &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Namespace: platformNamespace, Name: render.QuotaName},
		Spec:       corev1.ResourceQuotaSpec{Hard: tenant.Spec.Quota.Hard},
	}
	for _, obj := range []client.Object{ns, binding, quota} {
		if err := admin.Create(ctx, obj); client.IgnoreAlreadyExists(err) != nil {
			return err
		}
	}
	return nil
}

// waitWritable waits until the identity may create in every namespace:
// the controller has bound its role and RBAC has caught up.
func waitWritable(ctx context.Context, c client.Client, namespaces ...string) error {
	deadline := time.Now().Add(time.Minute)
	for _, ns := range namespaces {
		for i := 0; ; i++ {
			err := benchKinds[0].create(ctx, c, ns, fmt.Sprintf("bench-probe-%d", i))
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("creating in %s: %w", ns, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	return nil
}

// compare runs the creates in the tenant namespace and in the platform
// namespace, named prefix-round-i, alternating rounds after a warm-up.
func compare(ctx context.Context, c client.Client, prefix string, create creator, tenantNS string) (tenant, platform load, err error) {
	for _, ns := range []string{tenantNS, platformNamespace} {
		if _, err := series(ctx, c, create, ns, prefix+"-warmup", warmupPerTarget); err != nil {
			return tenant, platform, err
		}
	}
	for round := range rounds {
		name := fmt.Sprintf("%s-%d", prefix, round)
		got, err := series(ctx, c, create, tenantNS, name, writesPerRound)
		if err != nil {
			return tenant, platform, err
		}
		tenant.add(got)
		if got, err = series(ctx, c, create, platformNamespace, name, writesPerRound); err != nil {
			return tenant, platform, err
		}
		platform.add(got)
	}
	return tenant, platform, nil
}

// series creates n objects named prefix-i in ns from the workers and records
// each create's latency; failed creates count as errors.
func series(ctx context.Context, c client.Client, create creator, ns, prefix string, n int) (load, error) {
	var (
		next    atomic.Int64
		mu      sync.Mutex
		result  load
		lastErr error
		wg      sync.WaitGroup
	)
	start := time.Now()
	for range workers {
		wg.Go(func() {
			var mine []time.Duration
			errs := 0
			var last error
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				began := time.Now()
				if err := create(ctx, c, ns, fmt.Sprintf("%s-%d", prefix, i)); err != nil {
					errs++
					last = err
					continue
				}
				mine = append(mine, time.Since(began))
			}
			mu.Lock()
			result.latencies = append(result.latencies, mine...)
			result.errors += errs
			if last != nil {
				lastErr = last
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	result.elapsed = time.Since(start)
	if len(result.latencies) == 0 {
		return result, fmt.Errorf("every create in %s failed, the last with: %w", ns, lastErr)
	}
	return result, ctx.Err()
}

func admissionRows(kind string, judged judge, when string, tenant, platform load) []row {
	p50, p99 := tenant.quantile(0.5), tenant.quantile(0.99)
	basep50, basep99 := platform.quantile(0.5), platform.quantile(0.99)
	through, baseThrough := tenant.throughput(), platform.throughput()
	target := func(t string) string {
		if judged != inProcess {
			return "" // the targets are for kinds judged in-process
		}
		return t
	}
	what := fmt.Sprintf("%s create, tenant ns, judged by %s%s (baseline: platform ns)", kind, judged, when)
	note := fmt.Sprintf("%d clients, %d creates each side; overhead p50 %+.2f ms, p99 %+.2f ms", workers, len(tenant.latencies), p50-basep50, p99-basep99)
	return []row{
		{part: "p2", figure: what + " p50", value: p50, baseline: basep50, unit: "ms", note: note},
		{part: "p2", figure: what + " p99", value: p99, baseline: basep99, unit: "ms",
			target: target("overhead ≤ 3 ms"), met: p99-basep99 <= 3},
		{part: "p2", figure: what + " throughput", value: through, baseline: baseThrough, unit: "creates/s",
			target: target("loss ≤ 10%"), met: through >= 0.9*baseThrough},
		{part: "p2", figure: what + " errors", value: float64(tenant.errors), baseline: float64(platform.errors), unit: "errors",
			target: "0", met: tenant.errors == 0},
	}
}
