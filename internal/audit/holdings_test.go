package audit_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/audit"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// TestAuditHoldings: a namespace of the tenant held Terminating by a
// finalizer nobody knows (reported in the Tenant's status all the same),
// and a source's
// GitRepository made ahead of Landlord by someone else both FAIL; the
// same tenant without them passes.
func TestAuditHoldings(t *testing.T) {
	tenant := &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "sage"}, Spec: v1alpha1.TenantSpec{
		Namespaces:  []v1alpha1.TenantNamespace{{Name: "sage-apps"}},
		SelfService: &v1alpha1.SelfService{Prefix: "sage-", MaxNamespaces: 2},
	}}
	if err := k8s.Create(ctx, tenant); err != nil {
		t.Fatal(err)
	}
	a := &audit.Auditor{Client: k8s, Config: env.Config}
	holdings := func() string {
		checks, err := a.Run(ctx, "sage")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range checks {
			if c.Kind == "holdings" {
				got = append(got, string(c.Result)+" "+c.Detail)
			}
		}
		return strings.Join(got, "\n")
	}
	testenv.Eventually(t, time.Minute, func() error {
		if got := holdings(); got != "PASS \nPASS " {
			return fmt.Errorf("holdings of a clean tenant:\n%s", got)
		}
		return nil
	})

	stuck := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "sage-stuck",
		Labels: map[string]string{v1alpha1.TenantLabel: "sage"}, Finalizers: []string{"example.com/hold"}}}
	early := &sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Namespace: "sage-apps", Name: "base"},
		Spec: sourcev1.GitRepositorySpec{URL: "https://git.example.com/pinned", Interval: metav1.Duration{Duration: time.Hour}, Suspend: true}}
	for _, obj := range []client.Object{stuck, early} {
		if err := k8s.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_ = k8s.Patch(ctx, stuck, client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`)))
	})
	if err := k8s.Delete(ctx, stuck); err != nil {
		t.Fatal(err)
	}
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := k8s.Get(ctx, client.ObjectKey{Name: "sage"}, tenant); err != nil {
			return err
		}
		tenant.Spec.Sources = []v1alpha1.Source{{Name: "base", Git: &v1alpha1.GitSource{URL: "https://git.example.com/sage/base"}}}
		return k8s.Update(ctx, tenant)
	}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, func() error {
		got := holdings()
		for _, want := range []string{
			"namespace sage-stuck carries finalizer example.com/hold",
			"GitRepository sage-apps/base holds a name Landlord renders but was made by another writer",
		} {
			if !strings.Contains(got, want) {
				return fmt.Errorf("no %q in:\n%s", want, got)
			}
		}
		return nil
	})
	// The controller reports it, terminating, for all to see.
	if err := k8s.Get(ctx, client.ObjectKey{Name: "sage"}, tenant); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(tenant.Status.Namespaces, func(ns v1alpha1.NamespaceStatus) bool {
		return ns.Name == "sage-stuck" && !ns.Ready && strings.Contains(ns.Message, "held by finalizers example.com/hold")
	}) {
		t.Errorf("status namespaces %+v, want sage-stuck reported terminating", tenant.Status.Namespaces)
	}
}
