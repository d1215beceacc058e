package controller_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

// TestObjectsNotCreatedByLandlordAreNeverAdopted: objects a tenant made
// ahead of time under the names of a future source and a future
// reconciler keep their maker's settings and are never taken over; they
// are reported by name, the future reconciler is bound nowhere, and
// everything else is reconciled.
func TestObjectsNotCreatedByLandlordAreNeverAdopted(t *testing.T) {
	t.Parallel()
	tenant := newTenant("squat", "squat-apps")
	create(t, tenant)
	t.Cleanup(func() { deleteTenant(t, tenant.Name) })
	waitReady(t, tenant.Name)

	// What the tenant, admin of squat-apps, creates ahead of the platform.
	early := &sourcev1.GitRepository{
		ObjectMeta: metav1.ObjectMeta{Namespace: "squat-apps", Name: "base"},
		Spec:       sourcev1.GitRepositorySpec{URL: "https://git.example.com/attacker/base", Interval: metav1.Duration{Duration: 3600e9}, Suspend: true},
	}
	account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "squat-apps", Name: "flux"}}
	for _, obj := range []client.Object{early, account} {
		if err := k8s.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	updateTenant(t, tenant.Name, func(tn *v1alpha1.Tenant) {
		tn.Spec.ServiceAccountName = "flux"
		tn.Spec.Sources = []v1alpha1.Source{{Name: "base", Git: &v1alpha1.GitSource{URL: "https://git.example.com/squat/base"}}}
	})
	eventually(t, "both reported", func() error {
		c, err := condition(tenant.Name, v1alpha1.ReadyCondition)
		if err != nil {
			return err
		}
		if c.Reason != "NotAdopted" || !strings.Contains(c.Message, "GitRepository squat-apps/base") || !strings.Contains(c.Message, "ServiceAccount squat-apps/flux") {
			return fmt.Errorf("Ready %s: %s", c.Reason, c.Message)
		}
		return nil
	})
	if err := exists(early); err != nil {
		t.Fatal(err)
	}
	if !early.Spec.Suspend || early.Spec.URL != "https://git.example.com/attacker/base" || early.Labels[v1alpha1.ManagedByLabel] != "" {
		t.Errorf("the tenant's GitRepository was taken over: %+v %v", early.Spec, early.Labels)
	}
	if err := exists(account); err != nil || account.Labels[v1alpha1.ManagedByLabel] != "" {
		t.Errorf("the tenant's service account was taken over: %v %v", err, account.Labels)
	}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "squat-apps", Name: render.ReconcilerBinding}}
	eventually(t, "the reconciler binding without the tenant's account", func() error {
		if err := exists(binding); err != nil {
			return err
		}
		if slices.ContainsFunc(binding.Subjects, func(s rbacv1.Subject) bool { return s.Name == "flux" }) {
			return fmt.Errorf("subjects %+v name the tenant's own account", binding.Subjects)
		}
		return nil
	})
	// The rest still converges: the quota, and the owners' binding.
	for _, obj := range []client.Object{
		&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "squat-apps", Name: render.QuotaName}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "squat-apps", Name: render.OwnersBinding}},
	} {
		if err := exists(obj); err != nil {
			t.Errorf("%T: %v", obj, err)
		}
	}

	// Once the tenant removes them, Landlord makes its own.
	for _, obj := range []client.Object{early, account} {
		if err := k8s.Delete(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "Landlord's own objects", func() error {
		for _, obj := range []client.Object{&sourcev1.GitRepository{ObjectMeta: early.ObjectMeta}, &corev1.ServiceAccount{ObjectMeta: account.ObjectMeta}} {
			obj.SetResourceVersion("")
			if err := exists(obj); err != nil {
				return err
			}
			if obj.GetLabels()[v1alpha1.ManagedByLabel] != v1alpha1.ManagedByValue {
				return fmt.Errorf("%T %s not Landlord's yet", obj, obj.GetName())
			}
		}
		c, err := condition(tenant.Name, v1alpha1.ReadyCondition)
		if err != nil {
			return err
		}
		if c.Reason == "NotAdopted" {
			return fmt.Errorf("still reported: %s", c.Message)
		}
		return nil
	})
}

// TestChangedRoleReplacesBindings: roleRef is immutable, so a new
// spec.role replaces the bindings rather than stalling the tenant.
func TestChangedRoleReplacesBindings(t *testing.T) {
	t.Parallel()
	tenant := newTenant("rerole", "rerole-apps")
	create(t, tenant)
	t.Cleanup(func() { deleteTenant(t, tenant.Name) })
	waitReady(t, tenant.Name)
	updateTenant(t, tenant.Name, func(tn *v1alpha1.Tenant) { tn.Spec.Role = "view" })
	waitReady(t, tenant.Name)
	for _, name := range []string{render.ReconcilerBinding, render.OwnersBinding} {
		b := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "rerole-apps", Name: name}}
		if err := exists(b); err != nil || b.RoleRef.Name != "view" {
			t.Errorf("binding %s: %v, roleRef %s, want view", name, err, b.RoleRef.Name)
		}
	}
}

// TestDeletionRevokesGrantsFirst: while a Tenant's deletion waits on a
// finalizer someone else put on one of its Flux objects, its cluster-wide
// grant is already gone.
func TestDeletionRevokesGrantsFirst(t *testing.T) {
	t.Parallel()
	tenant := newTenant("held", "held-apps")
	tenant.Spec.ExtraClusterRoles = []string{"view"}
	tenant.Spec.Sources = []v1alpha1.Source{{Name: "apps", Git: &v1alpha1.GitSource{URL: "https://git.example.com/held/apps"}}}
	create(t, tenant)
	grant := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "landlord:held:view"}}
	ks := &kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Namespace: "held-apps", Name: "apps"}}
	eventually(t, "grant and Kustomization", func() error {
		if err := exists(grant); err != nil {
			return err
		}
		return exists(ks)
	})
	hold := client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"finalizers":["example.com/hold"]}}`))
	if err := k8s.Patch(ctx, ks, hold); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Delete(ctx, &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: tenant.Name}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "grant revoked while the Kustomization holds the deletion", func() error { return gone(grant) })
	if err := exists(&v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: tenant.Name}}); err != nil {
		t.Errorf("tenant already gone: %v", err)
	}
	release := client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`))
	if err := k8s.Patch(ctx, ks, release); err != nil {
		t.Fatal(err)
	}
	eventually(t, "tenant finalized", func() error { return gone(&v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: tenant.Name}}) })
}
