package controller_test

import (
	"fmt"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

func stalledWith(t *testing.T, name string, want ...string) {
	t.Helper()
	eventually(t, "tenant "+name+" refused", func() error {
		c, err := condition(name, v1alpha1.StalledCondition)
		if err != nil {
			return err
		}
		for _, w := range want {
			if c.Reason != "RoleRefused" || !strings.Contains(c.Message, w) {
				return fmt.Errorf("Stalled %s: %s, want RoleRefused naming %q", c.Reason, c.Message, w)
			}
		}
		return nil
	})
}

// TestRolesAreJudgedByWhatTheyGrant: admin and system:aggregate-to-edit
// pass the CRD's name checks, and mint tokens and impersonate; a tenant
// binding them is refused, naming the role and the rule, and nothing
// binds them. A safe custom role is bound, and when it later grows a
// dangerous rule its bindings are revoked.
func TestRolesAreJudgedByWhatTheyGrant(t *testing.T) {
	t.Parallel()
	admin := newTenant("bossy", "bossy-apps")
	admin.Spec.Role = "admin"
	create(t, admin)
	t.Cleanup(func() { deleteTenant(t, admin.Name) })
	extra := newTenant("greedy", "greedy-apps")
	extra.Spec.ExtraClusterRoles = []string{"system:aggregate-to-edit"}
	create(t, extra)
	t.Cleanup(func() { deleteTenant(t, extra.Name) })

	stalledWith(t, "bossy", "spec.role", "ClusterRole admin grants create on serviceaccounts/token")
	stalledWith(t, "greedy", "spec.extraClusterRoles[0]", "ClusterRole system:aggregate-to-edit grants", "writes cluster-wide")
	for _, b := range []client.Object{
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "bossy-apps", Name: render.ReconcilerBinding}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "landlord:greedy:system:aggregate-to-edit"}},
	} {
		if err := gone(b); err != nil {
			t.Errorf("a refused role is bound: %v", err)
		}
	}

	mild := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "mild"},
		Rules:      []rbacv1.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods", "configmaps"}}},
	}
	if err := k8s.Create(ctx, mild); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, mild) })
	calm := newTenant("calm", "calm-apps")
	calm.Spec.Role = "mild"
	create(t, calm)
	t.Cleanup(func() { deleteTenant(t, calm.Name) })
	waitReady(t, calm.Name)
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "calm-apps", Name: render.OwnersBinding}}
	if err := exists(binding); err != nil || binding.RoleRef.Name != "mild" {
		t.Fatalf("owners binding: %v, roleRef %s", err, binding.RoleRef.Name)
	}
	mild.Rules = append(mild.Rules, rbacv1.PolicyRule{Verbs: []string{"impersonate"}, APIGroups: []string{""}, Resources: []string{"serviceaccounts"}})
	if err := k8s.Update(ctx, mild); err != nil {
		t.Fatal(err)
	}
	stalledWith(t, "calm", "ClusterRole mild grants impersonate")
	eventually(t, "the grown role's bindings revoked", func() error { return gone(binding) })
}
