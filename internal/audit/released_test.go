package audit_test

import (
	"strings"
	"testing"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/audit"
)

// TestAuditReleased: a namespace released as Retain used to leave it, with
// the reconciler, a binding of the owners and a syncing Kustomization,
// FAILs naming each; released as Landlord now does, it passes.
func TestAuditReleased(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gone-apps", Labels: map[string]string{v1alpha1.ReleasedLabel: "gone"}}}
	reconciler := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "gone"}}
	owners := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "landlord-owners"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "gone-owners"}},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}}
	workload := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "workload"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns.Name, Name: "app"}},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}}
	sync := &kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "apps"}, Spec: kustomizev1.KustomizationSpec{
		Interval: metav1.Duration{Duration: time.Hour}, Prune: true, ServiceAccountName: "gone",
		SourceRef: kustomizev1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "apps"}}}
	for _, obj := range []client.Object{ns, reconciler, owners, workload, sync} {
		if err := k8s.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, ns) })
	a := &audit.Auditor{Client: k8s, Config: env.Config}
	released := func() audit.Check {
		checks, err := a.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range checks {
			if c.Kind == "released" && c.Tenant == "gone" {
				return c
			}
		}
		t.Fatal("no released check for gone-apps")
		return audit.Check{}
	}

	c := released()
	for _, want := range []string{
		"RoleBinding landlord-owners grants Group gone-owners from outside the namespace",
		"ServiceAccount gone, tenant gone's reconciler, is left",
		"Kustomization apps is not suspended",
	} {
		if c.Result != audit.Fail || !strings.Contains(c.Detail, want) {
			t.Errorf("released check = %s %s, want FAIL naming %q", c.Result, c.Detail, want)
		}
	}
	if strings.Contains(c.Detail, "workload") {
		t.Errorf("a binding of the namespace's own account reported: %s", c.Detail)
	}

	for _, obj := range []client.Object{reconciler, owners} {
		if err := k8s.Delete(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	suspend := client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"suspend":true}}`))
	if err := k8s.Patch(ctx, sync, suspend); err != nil {
		t.Fatal(err)
	}
	if c := released(); c.Result != audit.Pass {
		t.Errorf("released as Landlord releases: %s %s", c.Result, c.Detail)
	}
}
