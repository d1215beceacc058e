package webhook_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// TestAttacksTenancy: a namespace labelled for a tenant that does not hold
// it is frozen, not open (LL026); platform admins configured as a group
// (--platform-groups) are exempt as system:masters is, and a tenant owner
// who is also cluster-admin is not.
func TestAttacksTenancy(t *testing.T) {
	attackWorld(t)
	for _, obj := range []client.Object{
		// A namespace left labelled for a tenant that was deleted.
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ghost-apps", Labels: map[string]string{v1alpha1.TenantLabel: "ghost"}}},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "platform-admins"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, Name: "platform-admins", APIGroup: rbacv1.GroupName}},
		},
	} {
		if err := k8s.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(ctx, obj) })
	}
	identities["platform"] = impersonate("pat@example.com", "platform-admins", "blue-team", "system:authenticated")
	privileged := func(o client.Object) {
		labels := o.GetLabels()
		labels["pod-security.kubernetes.io/enforce"] = "privileged"
		o.SetLabels(labels)
	}
	config := func(ns string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "settings"}, Data: map[string]string{"LEVEL": "debug"}}
	}
	const (
		ownConfig   = "config map in its own namespace"
		platformPSA = "platform admin group relaxes pod security"
	)
	runAttacks(t, map[string]attack{
		ownConfig: {as: "leaky", do: create(config("blue-apps"))},
		"config map in a namespace labelled for a deleted tenant": {as: "leaky", do: create(config("ghost-apps")), want: "LL026", near: ownConfig},
		"platform admin writes in a namespace nobody holds":       {as: "platform", do: create(config("ghost-apps"))},
		platformPSA: {as: "platform", do: mutate(ns("blue-jobs"), privileged)},
		// Mallory is cluster-admin too, but no platform admin: an owner.
		"owner who is cluster-admin relaxes pod security": {as: "leaky", do: mutate(ns("blue-jobs"), privileged), want: "LL009", near: platformPSA},
	})
}
