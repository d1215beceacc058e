package webhook_test

import (
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// TestAttacksReleased: a namespace blue released with its data (deletion
// policy Retain) carries no tenant label, so only LL024 stands between it
// and an ex-tenant who kept some access; here mallory, blue's owner and
// cluster-admin by mistake. Every write there, of any kind, is refused but
// the platform's.
func TestAttacksReleased(t *testing.T) {
	attackWorld(t)
	retired := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "blue-retired", Labels: map[string]string{v1alpha1.ReleasedLabel: "blue"}}}
	data := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: retired.Name, Name: "data"}, Data: map[string]string{"k": "v"}}
	// An account named like blue's reconciler, as Retain used to leave behind.
	account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: retired.Name, Name: "blue"}}
	for _, obj := range []client.Object{retired, data, account} {
		if err := k8s.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, retired) })
	identities["masters"] = impersonate("root", "system:masters", "system:authenticated")

	in := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: retired.Name, Name: name} }
	service := func(edit func(*corev1.Service)) *corev1.Service {
		s := &corev1.Service{ObjectMeta: in("web"), Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
		edit(s)
		return s
	}
	config := &corev1.ConfigMap{ObjectMeta: in("settings"), Data: map[string]string{"LEVEL": "debug"}}
	const (
		ownNamespace  = "config map in one of its own namespaces"
		platformWrite = "platform writes a config map there"
		platformEdit  = "platform unmarks the namespace"
	)
	runAttacks(t, map[string]attack{
		ownNamespace:  {as: "leaky", do: create(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "blue-apps", Name: "settings"}})},
		platformWrite: {as: "masters", do: create(config)},
		platformEdit:  {as: "masters", do: mutate(ns(retired.Name), func(o client.Object) { o.SetLabels(nil) })},

		"config map in the released namespace": {as: "leaky", do: create(config), want: "LL024", near: ownNamespace},
		"externalIPs service intercepting an address": {as: "leaky", do: create(service(func(s *corev1.Service) { s.Spec.ExternalIPs = []string{"203.0.113.7"} })),
			want: "LL024", near: platformWrite},
		"load balancer": {as: "leaky", do: create(service(func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeLoadBalancer })), want: "LL024", near: platformWrite},
		"pod as blue's reconciler": {as: "leaky", do: create(&corev1.Pod{ObjectMeta: in("shell"), Spec: corev1.PodSpec{
			ServiceAccountName: "blue", Containers: []corev1.Container{{Name: "sh", Image: "busybox"}}}}), want: "LL024", near: platformWrite},
		"binding itself admin again": {as: "leaky", do: create(&rbacv1.RoleBinding{ObjectMeta: in("back-door"),
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "mallory"}},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "admin"}}), want: "LL024", near: platformWrite},
		// A kind no other rule judges is refused too: the namespace is frozen whole.
		"lease of a kind the rules do not know": {as: "leaky", do: create(&coordinationv1.Lease{ObjectMeta: in("leader")}), want: "LL024", near: platformWrite},
		"deleting the tenant's data":            {as: "leaky", do: remove(data.DeepCopy()), want: "LL024", near: platformWrite},
		"removing the released mark":            {as: "leaky", do: mutate(ns(retired.Name), func(o client.Object) { o.SetLabels(nil) }), want: "LL024", near: platformEdit},
		"labelling it for blue again": {as: "leaky", do: mutate(ns(retired.Name), func(o client.Object) {
			o.SetLabels(map[string]string{v1alpha1.ReleasedLabel: "blue", v1alpha1.TenantLabel: "blue"})
		}), want: "LL024", near: platformEdit},
		"deleting the released namespace": {as: "leaky", do: remove(ns(retired.Name)), want: "LL024", near: platformEdit},
		// Without the platform's mistake, RBAC alone refuses: Landlord left no binding there.
		"owner writes there": {as: "owner", do: create(config), want: rbacDenied, near: ownNamespace},
	})
}
