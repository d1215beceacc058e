package controller_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// TestSelfServiceNamespacesAreAdopted creates namespaces as a tenant would
// (its label, its prefix) and expects the oldest within the limit adopted
// with every guard rail, the rest reported.
func TestSelfServiceNamespacesAreAdopted(t *testing.T) {
	t.Parallel()
	tenant := newTenant("crew", "crew")
	tenant.Spec.SelfService = &v1alpha1.SelfService{Prefix: "crew-", MaxNamespaces: 1}
	create(t, tenant)
	t.Cleanup(func() { deleteTenant(t, tenant.Name) })
	waitReady(t, tenant.Name)

	first := selfServiceNamespace(t, "crew-first", "crew")
	time.Sleep(time.Second) // creation timestamps have second resolution: order them
	second := selfServiceNamespace(t, "crew-second", "crew")

	eventually(t, "first adopted with its guard rails", func() error {
		if err := exists(first); err != nil {
			return err
		}
		if first.Labels[v1alpha1.ManagedByLabel] != v1alpha1.ManagedByValue || first.Labels[v1alpha1.OriginLabel] != "SelfService" ||
			first.Labels["pod-security.kubernetes.io/enforce"] != "restricted" {
			return fmt.Errorf("labels %v", first.Labels)
		}
		return exists(&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: first.Name, Name: "landlord-quota"}})
	})
	eventually(t, "second reported over the limit", func() error {
		c, err := condition(tenant.Name, v1alpha1.ReadyCondition)
		if err != nil {
			return err
		}
		if !strings.Contains(c.Message, "crew-second is over the self-service limit of 1") {
			return fmt.Errorf("Ready=%s: %s", c.Status, c.Message)
		}
		return nil
	})
	got := &v1alpha1.Tenant{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: tenant.Name}, got); err != nil {
		t.Fatal(err)
	}
	want := []v1alpha1.NamespaceStatus{
		{Name: "crew", Origin: "Platform", Ready: true},
		{Name: "crew-first", Origin: "SelfService", Ready: true},
		{Name: "crew-second", Origin: "SelfService", Message: "namespace crew-second is over the self-service limit of 1"},
	}
	if fmt.Sprint(got.Status.Namespaces) != fmt.Sprint(want) {
		t.Errorf("status namespaces = %+v\nwant %+v", got.Status.Namespaces, want)
	}
	if err := gone(&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: second.Name, Name: "landlord-quota"}}); err != nil {
		t.Errorf("namespace over the limit got guard rails: %v", err)
	}

	// The tenant deletes its first one: the second fits now.
	if err := k8s.Delete(ctx, first); err != nil {
		t.Fatal(err)
	}
	waitReady(t, tenant.Name)
	if err := exists(second); err != nil || second.Labels[v1alpha1.ManagedByLabel] != v1alpha1.ManagedByValue {
		t.Errorf("second not adopted once room was made: err=%v labels=%v", err, second.Labels)
	}
}

func selfServiceNamespace(t *testing.T, name, tenant string) *corev1.Namespace {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1alpha1.TenantLabel: tenant}}}
	if err := k8s.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	return ns
}
