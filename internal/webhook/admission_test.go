package webhook_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/testenv"
	"github.com/landlord-dev/landlord/internal/webhook"
)

// tenantNamespace has the Tenant controller provision a tenant with one
// namespace and returns the tenant's reconciler client once it can write.
func tenantNamespace(t *testing.T, name string) client.Client {
	t.Helper()
	tenant := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1alpha1.TenantSpec{Namespaces: []v1alpha1.TenantNamespace{{Name: name + "-apps"}}},
	}
	if err := k8s.Create(ctx, tenant); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, tenant) })
	testenv.Eventually(t, 30*time.Second, func() error {
		sa := &corev1.ServiceAccount{}
		return k8s.Get(ctx, client.ObjectKey{Namespace: name + "-apps", Name: name}, sa)
	})
	return impersonate("system:serviceaccount:" + name + "-apps:" + name)
}

func kustomization(ns, name string) *kustomizev1.Kustomization {
	return &kustomizev1.Kustomization{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: kustomizev1.KustomizationSpec{
			Interval:  metav1.Duration{Duration: time.Minute},
			Prune:     true,
			SourceRef: kustomizev1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "app"},
		},
	}
}

// TestMutatingDefaultsServiceAccount: the tenant's own Kustomization
// without serviceAccountName runs as its reconciler. The API server's
// MutatingAdmissionPolicy sets it, and the mutating webhook is not asked;
// without the policy (an API server before 1.36), the webhook sets the
// same.
func TestMutatingDefaultsServiceAccount(t *testing.T) {
	reconciler := tenantNamespace(t, "mut")
	create := func(name string) {
		t.Helper()
		k := kustomization("mut-apps", name)
		start := time.Now()
		testenv.Eventually(t, 10*time.Second, func() error { return reconciler.Create(ctx, k) })
		t.Logf("%s created in %s", name, time.Since(start).Round(time.Millisecond))
		if k.Spec.ServiceAccountName != "mut" {
			t.Errorf("%s: serviceAccountName = %q, want the reconciler mut", name, k.Spec.ServiceAccountName)
		}
	}
	asked := webhook.Answered("mutate")
	create("by-policy")
	if got := webhook.Answered("mutate"); got != asked {
		t.Errorf("the mutating webhook answered %d times, want 0: the API server defaults", got-asked)
	}

	// A namespace without the reconciler label, as before Landlord set it,
	// is outside the policy: the webhook defaults there. The controller
	// puts the label back, so each try removes it again.
	try := 0
	testenv.Eventually(t, 20*time.Second, func() error {
		try++
		ns := &corev1.Namespace{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: "mut-apps"}, ns); err != nil {
			return err
		}
		delete(ns.Labels, v1alpha1.ReconcilerLabel)
		if err := k8s.Update(ctx, ns); err != nil {
			return err
		}
		asked = webhook.Answered("mutate")
		create(fmt.Sprintf("by-webhook-%d", try))
		if webhook.Answered("mutate") == asked {
			return errors.New("the mutating webhook was not asked: the API server saw the label still")
		}
		return nil
	})
}

// TestDenialNamesRulesAndRecordsAnEvent: every violation is in the message,
// the first rule is the reason, and the Tenant gets an Event and a count.
func TestDenialNamesRulesAndRecordsAnEvent(t *testing.T) {
	reconciler := tenantNamespace(t, "deny")
	// Two of the webhook's rules: a binding of another namespace's account
	// (LL011) to a platform ClusterRole (LL015), which grants nothing, so
	// that RBAC's own escalation check lets it reach admission.
	platformRole := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "deny-platform"}}
	if err := k8s.Create(ctx, platformRole); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, platformRole) })
	scan := func(name string) *rbacv1.RoleBinding {
		return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "deny-apps", Name: name},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "kube-system", Name: "default"}},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: platformRole.Name}}
	}
	before := webhook.DenialCount("deny", "LL011")

	err := reconciler.Create(ctx, scan("escape"))
	status := &apierrors.StatusError{}
	if !errors.As(err, &status) {
		t.Fatalf("create: %v, want a denial", err)
	}
	if status.ErrStatus.Code != 403 || status.ErrStatus.Reason != "LL011" {
		t.Errorf("code %d reason %q, want 403 LL011", status.ErrStatus.Code, status.ErrStatus.Reason)
	}
	for _, rule := range []string{"LL011", "LL015"} {
		if !strings.Contains(err.Error(), rule) {
			t.Errorf("message lacks %s: %v", rule, err)
		}
	}
	if after := webhook.DenialCount("deny", "LL011"); after != before+1 {
		t.Errorf("landlord_admission_denials_total{tenant=deny,rule=LL011} went from %v to %v", before, after)
	}
	testenv.Eventually(t, 10*time.Second, func() error {
		events := &eventsv1.EventList{}
		if err := k8s.List(ctx, events, client.InNamespace(metav1.NamespaceDefault)); err != nil {
			return err
		}
		for _, e := range events.Items {
			if e.Regarding.Kind == "Tenant" && e.Regarding.Name == "deny" && e.Reason == "LL011" && strings.Contains(e.Note, "LL015") {
				return nil
			}
		}
		return fmt.Errorf("no LL011 event on Tenant deny among %d events", len(events.Items))
	})

	if err := reconciler.Create(ctx, scan("dry"), client.DryRunAll); !apierrors.IsForbidden(err) {
		t.Errorf("dry run: %v, want a denial", err)
	}
	if after := webhook.DenialCount("deny", "LL011"); after != before+1 {
		t.Errorf("a dry run was counted: %v", after)
	}
}

// TestFailsClosedOnlyInTenantNamespaces: with the webhook unreachable,
// platform writes go on, cluster-scoped ones included, and tenant
// namespaces refuse every write.
func TestFailsClosedOnlyInTenantNamespaces(t *testing.T) {
	tenantNamespace(t, "closed")
	flux := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "flux-system"}}
	if err := k8s.Create(ctx, flux); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "test-cluster-admins"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{
			{Kind: "ServiceAccount", Namespace: "flux-system", Name: "kustomize-controller"},
			{Kind: "User", Name: "ops", APIGroup: rbacv1.GroupName},
		},
	}
	if err := k8s.Create(ctx, binding); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	fluxController := impersonate("system:serviceaccount:flux-system:kustomize-controller")
	// An admin bound to cluster-admin, not in system:masters: the
	// cluster-scoped check must not hold the platform's writes hostage.
	ops := impersonate("ops", "system:authenticated")

	gate.shut()
	defer gate.reopen()
	start := time.Now()
	for _, w := range []struct {
		name string
		c    client.Client
		obj  client.Object
	}{
		{"admin, kube-system", k8s, configMap("kube-system")},
		{"admin, flux-system", k8s, configMap("flux-system")},
		{"admin, a namespace", k8s, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "platform-a"}}},
		{"flux, a namespace", fluxController, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "platform-b"}}},
		{"admin, a cluster role", ops, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{GenerateName: "fail-open-"}}},
	} {
		if err := w.c.Create(ctx, w.obj); err != nil {
			t.Errorf("%s: %v, want it admitted without the webhook", w.name, err)
		}
	}
	if err := k8s.Create(ctx, configMap("closed-apps")); err != nil {
		t.Errorf("admin, a ConfigMap in a tenant namespace: %v, want it admitted: only the API server judges ConfigMaps", err)
	}
	err := k8s.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "closed-apps", GenerateName: "fail-closed-"}})
	if err == nil || !strings.Contains(err.Error(), "objects.landlord.dev") {
		t.Errorf("admin, a Secret in a tenant namespace: %v, want a failed webhook call", err)
	}
	t.Logf("judged with the webhook down in %s", time.Since(start).Round(time.Millisecond))
}

func configMap(ns string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: "fail-closed-"}}
}
