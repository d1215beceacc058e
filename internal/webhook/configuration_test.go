package webhook_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// TestInProcessKindsNeverWaitOnTheWebhook: with the webhook down,
// Landlord and a kube-system controller (cluster-admin, but the platform's)
// still write the kinds only the in-process rules judge in a tenant
// namespace, and so does the tenant, held to LL010 by the API server; a
// Secret, which other rules judge, still fails closed.
func TestInProcessKindsNeverWaitOnTheWebhook(t *testing.T) {
	reconciler := tenantNamespace(t, "skip")
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "test-kube-system-writer"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "kube-system", Name: "bench-writer"}},
	}
	if err := k8s.Create(ctx, binding); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, binding) })
	landlord := impersonate(tenancy.ControllerUser(tenancy.ControllerNamespace), "system:serviceaccounts", "system:serviceaccounts:landlord-system", "system:authenticated")
	kubeSystem := impersonate("system:serviceaccount:kube-system:bench-writer")

	meta := func() metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: "skip-apps", GenerateName: "skip-", Labels: map[string]string{v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue}}
	}
	unjudged := func() []client.Object {
		return []client.Object{
			&corev1.ConfigMap{ObjectMeta: meta()},
			&corev1.ServiceAccount{ObjectMeta: meta()},
			&corev1.ResourceQuota{ObjectMeta: meta()},
			&corev1.LimitRange{ObjectMeta: meta()},
			&networkingv1.NetworkPolicy{ObjectMeta: meta()},
		}
	}

	gate.shut()
	defer gate.reopen()
	for name, c := range map[string]client.Client{"landlord": landlord, "kube-system": kubeSystem} {
		for _, obj := range unjudged() {
			if err := c.Create(ctx, obj); err != nil {
				t.Errorf("%s, %T: %v, want it admitted without the webhook", name, obj, err)
			}
		}
	}
	if err := kubeSystem.Create(ctx, &corev1.Secret{ObjectMeta: meta()}); err == nil || !strings.Contains(err.Error(), "objects.landlord.dev") {
		t.Errorf("kube-system, a Secret: %v, want a failed webhook call", err)
	}
	plain := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "skip-apps", GenerateName: "skip-"}}
	if err := reconciler.Create(ctx, plain); err != nil {
		t.Errorf("the tenant's reconciler, a ConfigMap: %v, want it admitted without the webhook", err)
	}
	if err := reconciler.Create(ctx, &corev1.ConfigMap{ObjectMeta: meta()}); err == nil || !strings.Contains(err.Error(), "LL010") {
		t.Errorf("the tenant's reconciler, a ConfigMap labelled as Landlord's: %v, want LL010 from the API server", err)
	}
}
