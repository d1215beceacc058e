package controller_test

import (
	"fmt"
	"strings"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// TestFluxStatusIsFolded writes Flux's status the way its controllers do
// and expects the Tenant, and its metric, to follow.
func TestFluxStatusIsFolded(t *testing.T) {
	t.Parallel()
	tenant := newTenant("folded", "folded-apps")
	tenant.Spec.Sources = []v1alpha1.Source{{Name: "apps", Git: &v1alpha1.GitSource{URL: "https://git.example.com/folded/apps"}}}
	create(t, tenant)
	t.Cleanup(func() { deleteTenant(t, tenant.Name) })
	key := client.ObjectKey{Namespace: "folded-apps", Name: "apps"}
	repo := &sourcev1.GitRepository{}
	ks := &kustomizev1.Kustomization{}
	eventually(t, "Flux objects created", func() error {
		if err := k8s.Get(ctx, key, repo); err != nil {
			return err
		}
		return k8s.Get(ctx, key, ks)
	})

	setReady(t, repo, &repo.Status.Conditions, metav1.ConditionTrue, "stored artifact for revision 'main@sha1:0a1b2c'")
	setReady(t, ks, &ks.Status.Conditions, metav1.ConditionTrue, "Applied revision: main@sha1:0a1b2c", func() {
		ks.Status.LastAppliedRevision = "main@sha1:0a1b2c"
	})
	waitReady(t, tenant.Name)
	got := &v1alpha1.Tenant{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: tenant.Name}, got); err != nil {
		t.Fatal(err)
	}
	if s := got.Status.Sources; len(s) != 1 || !s[0].Ready || s[0].Revision != "main@sha1:0a1b2c" {
		t.Errorf("status sources = %+v, want apps ready at main@sha1:0a1b2c", s)
	}
	if v := gauge(t, "landlord_tenant_ready", "folded"); v != 1 {
		t.Errorf("landlord_tenant_ready{tenant=folded} = %v, want 1", v)
	}

	setReady(t, ks, &ks.Status.Conditions, metav1.ConditionFalse, "Deployment/folded-apps/web dry-run failed: forbidden")
	eventually(t, "failure reported", func() error {
		c, err := condition(tenant.Name, v1alpha1.ReadyCondition)
		if err != nil {
			return err
		}
		if c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "source apps: Kustomization: Deployment/folded-apps/web dry-run failed") {
			return fmt.Errorf("Ready=%s: %s", c.Status, c.Message)
		}
		return nil
	})
	eventually(t, "metric follows", func() error {
		if v := gauge(t, "landlord_tenant_ready", "folded"); v != 0 {
			return fmt.Errorf("landlord_tenant_ready = %v", v)
		}
		return nil
	})
}

// setReady writes a Ready condition, and what also changes, through the
// status subresource, on the latest version of obj.
func setReady(t *testing.T, obj client.Object, conditions *[]metav1.Condition, status metav1.ConditionStatus, msg string, also ...func()) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		apimeta.SetStatusCondition(conditions, metav1.Condition{
			Type: "Ready", Status: status, Reason: "Test", Message: msg, ObservedGeneration: obj.GetGeneration(),
		})
		for _, f := range also {
			f()
		}
		return k8s.Status().Update(ctx, obj)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// gauge reads a per-tenant gauge from the in-process manager's registry.
func gauge(t *testing.T, name, tenant string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "tenant" && l.GetValue() == tenant {
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	return -1
}
