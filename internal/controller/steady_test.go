package controller_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// TestSettledTenantSendsNothing: once a Tenant is provisioned, a Flux
// status write on its GitRepository that changes nothing the Tenant
// reports wakes nothing, and a resync of the unchanged Tenant wakes the
// reconciler, which sends not a single write: the API server's audit log
// holds none by the controller. Not parallel, so that no other tenant's
// reconcile is counted.
func TestSettledTenantSendsNothing(t *testing.T) {
	tenant := newTenant("idle", "idle-apps", "idle-jobs")
	tenant.Spec.Sources = []v1alpha1.Source{{Name: "apps", Git: &v1alpha1.GitSource{URL: "https://git.example.com/idle/apps"}}}
	create(t, tenant)
	t.Cleanup(func() { deleteTenant(t, tenant.Name) })
	eventually(t, "provisioned, waiting for Flux", func() error {
		c, err := condition(tenant.Name, v1alpha1.ReadyCondition)
		if err != nil {
			return err
		}
		if c.Reason != "SourceNotReady" {
			return fmt.Errorf("Ready %s: %s", c.Reason, c.Message)
		}
		return nil
	})
	time.Sleep(2 * time.Second) // let the last events of provisioning drain

	mark, err := env.MarkAudit()
	if err != nil {
		t.Fatal(err)
	}
	before := reconciles(t)
	// A Flux status write as a failing fetch retried makes one.
	repo := &sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Namespace: "idle-apps", Name: "apps"}}
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(repo), repo); err != nil {
			return err
		}
		repo.Status.LastHandledReconcileAt = time.Now().Format(time.RFC3339Nano)
		return k8s.Status().Update(ctx, repo)
	}); err != nil {
		t.Fatal(err)
	}
	// A resync: the Tenant's own watch fires on a metadata-only change.
	if err := k8s.Patch(ctx, &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: tenant.Name}},
		client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"annotations":{"example.com/resync":"1"}}}`))); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the resync reconciled", func() error { return atLeast(t, before+1) })
	time.Sleep(2 * time.Second) // room for a reconcile the status write would wake

	writes, err := env.WritesSince(mark, tenancy.ControllerUser(tenancy.ControllerNamespace))
	if err != nil {
		t.Fatal(err)
	}
	woke := reconciles(t) - before
	t.Logf("%.0f reconciles, %d writes by the controller", woke, len(writes))
	if woke != 1 {
		t.Errorf("%.0f reconciles, want 1: the resync's, none for the Flux status write", woke)
	}
	if len(writes) > 0 {
		t.Errorf("a settled tenant's reconciles sent %d writes, want none: %v", len(writes), writes)
	}

	// A failing fetch retried: Ready goes Unknown while source-controller
	// works, then back to the same failure. The Tenant reports the failure
	// once and rewrites nothing for the retries.
	setReady(t, repo, &repo.Status.Conditions, metav1.ConditionFalse, "failed to checkout: connection refused")
	eventually(t, "the failure reported", func() error {
		c, err := condition(tenant.Name, v1alpha1.ReadyCondition)
		if err != nil {
			return err
		}
		if !strings.Contains(c.Message, "connection refused") {
			return fmt.Errorf("Ready %s: %s", c.Reason, c.Message)
		}
		return nil
	})
	time.Sleep(2 * time.Second)
	if mark, err = env.MarkAudit(); err != nil {
		t.Fatal(err)
	}
	before = reconciles(t)
	for range 3 {
		setReady(t, repo, &repo.Status.Conditions, metav1.ConditionUnknown, "reconciliation in progress")
		setReady(t, repo, &repo.Status.Conditions, metav1.ConditionFalse, "failed to checkout: connection refused")
	}
	eventually(t, "the retries reconciled", func() error { return atLeast(t, before+1) })
	time.Sleep(2 * time.Second)
	if writes, err = env.WritesSince(mark, tenancy.ControllerUser(tenancy.ControllerNamespace)); err != nil {
		t.Fatal(err)
	}
	t.Logf("retries: %.0f reconciles, %d writes by the controller", reconciles(t)-before, len(writes))
	if len(writes) > 0 {
		t.Errorf("Flux's retries of a failing fetch made the controller send %d writes, want none: %v", len(writes), writes)
	}
}

// reconciles reads controller_runtime_reconcile_total of the tenant
// controller, summed over results.
func reconciles(t *testing.T) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == "tenant" {
					total += m.GetCounter().GetValue()
				}
			}
		}
	}
	return total
}

func atLeast(t *testing.T, n float64) error {
	if got := reconciles(t); got < n {
		return fmt.Errorf("%v reconciles, want %v", got, n)
	}
	return nil
}
