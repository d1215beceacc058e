package controller_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

// TestSelfServicePrefixChangeKeepsAdopted changes the prefix of a tenant
// holding a self-service namespace with data: the namespace stays the
// tenant's, guard rails and data included; the prefix judges new
// namespaces only, the old one refused, the new one admitted.
func TestSelfServicePrefixChangeKeepsAdopted(t *testing.T) {
	t.Parallel()
	tenant := newTenant("pfx", "pfx")
	tenant.Spec.SelfService = &v1alpha1.SelfService{Prefix: "pfx-", MaxNamespaces: 3}
	create(t, tenant)
	t.Cleanup(func() { deleteTenant(t, tenant.Name) })
	waitReady(t, tenant.Name)
	adopted := selfServiceNamespace(t, "pfx-one", "pfx")
	waitAdopted(t, adopted)
	data := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "pfx-one", Name: "data"}}
	if err := k8s.Create(ctx, data); err != nil {
		t.Fatal(err)
	}

	updateTenant(t, tenant.Name, func(t *v1alpha1.Tenant) { t.Spec.SelfService.Prefix = "pfxnew-" })
	waitReady(t, tenant.Name)
	waitAdopted(t, adopted)
	if err := exists(data); err != nil {
		t.Errorf("data in the adopted namespace: %v", err)
	}
	owner := impersonate("alice", "pfx-owners", "system:authenticated")
	old := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "pfx-two", Labels: map[string]string{v1alpha1.TenantLabel: "pfx"}}}
	// The guard answers a name outside the tenant's reach as NotFound (LL009).
	if err := owner.Create(ctx, old); !apierrors.IsNotFound(err) {
		t.Errorf("a new namespace with the old prefix: err = %v, want NotFound", err)
	}
	fresh := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "pfxnew-two", Labels: map[string]string{v1alpha1.TenantLabel: "pfx"}}}
	if err := owner.Create(ctx, fresh); err != nil {
		t.Fatalf("a new namespace with the new prefix: %v", err)
	}
	waitAdopted(t, fresh)
}

// TestLoweredLimitDeletesNothing lowers maxNamespaces below what the
// tenant holds: every namespace and its data stays, the excess is reported
// by name, and no new one may be created. Removing spec.selfService then
// releases them, under deletionPolicy Delete too.
func TestLoweredLimitDeletesNothing(t *testing.T) {
	t.Parallel()
	tenant := newTenant("cap", "cap")
	tenant.Spec.SelfService = &v1alpha1.SelfService{Prefix: "cap-", MaxNamespaces: 2}
	create(t, tenant)
	t.Cleanup(func() { deleteTenant(t, tenant.Name) })
	waitReady(t, tenant.Name)
	first := selfServiceNamespace(t, "cap-first", "cap")
	waitAdopted(t, first)
	time.Sleep(time.Second) // creation timestamps have second resolution: order them
	second := selfServiceNamespace(t, "cap-second", "cap")
	waitAdopted(t, second)
	var data []*corev1.ConfigMap
	for _, ns := range []string{"cap-first", "cap-second"} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "data"}}
		if err := k8s.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
		data = append(data, cm)
	}

	updateTenant(t, tenant.Name, func(t *v1alpha1.Tenant) { t.Spec.SelfService.MaxNamespaces = 1 })
	eventually(t, "excess reported", func() error {
		c, err := condition(tenant.Name, v1alpha1.ReadyCondition)
		if err != nil {
			return err
		}
		if c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "cap-second exceed spec.selfService.maxNamespaces=1") {
			return fmt.Errorf("Ready=%s: %s", c.Status, c.Message)
		}
		return nil
	})
	for _, ns := range []*corev1.Namespace{first, second} {
		waitAdopted(t, ns)
	}
	for _, cm := range data {
		if err := exists(cm); err != nil {
			t.Errorf("data in %s: %v", cm.Namespace, err)
		}
	}
	owner := impersonate("alice", "cap-owners", "system:authenticated")
	more := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "cap-third", Labels: map[string]string{v1alpha1.TenantLabel: "cap"}}}
	if err := owner.Create(ctx, more); err == nil || !strings.Contains(err.Error(), "maxNamespaces=1") {
		t.Errorf("a namespace above the lowered limit: err = %v, want LL009 naming the limit", err)
	}

	updateTenant(t, tenant.Name, func(t *v1alpha1.Tenant) { t.Spec.SelfService = nil })
	for _, ns := range []*corev1.Namespace{first, second} {
		t.Cleanup(func() { _ = k8s.Delete(ctx, ns) })
		eventually(t, ns.Name+" released", func() error {
			if err := exists(ns); err != nil {
				return err
			}
			if ns.DeletionTimestamp != nil || ns.Labels[v1alpha1.ReleasedLabel] != "cap" || ns.Labels[v1alpha1.TenantLabel] != "" {
				return fmt.Errorf("deleting=%v labels=%v", ns.DeletionTimestamp != nil, ns.Labels)
			}
			return nil
		})
	}
	waitReady(t, tenant.Name)
	for _, cm := range data {
		if err := exists(cm); err != nil {
			t.Errorf("data in released %s: %v", cm.Namespace, err)
		}
	}
}

// waitAdopted waits until ns is an adopted self-service namespace with its
// guard rails.
func waitAdopted(t *testing.T, ns *corev1.Namespace) {
	t.Helper()
	eventually(t, ns.Name+" adopted", func() error {
		if err := exists(ns); err != nil {
			return err
		}
		if ns.DeletionTimestamp != nil || ns.Labels[v1alpha1.ManagedByLabel] != v1alpha1.ManagedByValue || ns.Labels[v1alpha1.OriginLabel] != "SelfService" {
			return fmt.Errorf("deleting=%v labels=%v", ns.DeletionTimestamp != nil, ns.Labels)
		}
		return exists(&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "landlord-quota"}})
	})
}
