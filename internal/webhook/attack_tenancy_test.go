package webhook_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

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
		// Mallory's cluster-admin lets RBAC through; the guard holds her
		// to blue's namespaces.
		"config map in another tenant's namespace":  {as: "leaky", do: create(config("red-apps")), want: "LL028", near: ownConfig},
		"delete another tenant's managed variables": {as: "leaky", do: remove(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "red-apps", Name: "tenant-vars"}}), want: "LL010", near: ownConfig},
		platformPSA: {as: "platform", do: mutate(ns("blue-jobs"), privileged)},
		// Mallory is cluster-admin too, but no platform admin: an owner.
		"owner who is cluster-admin relaxes pod security": {as: "leaky", do: mutate(ns("blue-jobs"), privileged), want: "LL009", near: platformPSA},
	})
}

// TestDenialBlamesTheRequester: a denial counts against the tenant that
// made the request, and against the tenant whose namespace it aimed at
// only as a target, with its own metric and reason.
func TestDenialBlamesTheRequester(t *testing.T) {
	attackWorld(t)
	// A token of red's reconciler: LL012, a rule of the webhook's.
	token := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "red-apps", Name: "steal", Annotations: map[string]string{corev1.ServiceAccountNameKey: "red"}},
		Type: corev1.SecretTypeServiceAccountToken}
	blue, red, aimed := webhook.DenialCount("blue", "LL012"), webhook.DenialCount("red", "LL012"), webhook.TargetedCount("red", "LL012")
	if err := identities["leaky"].Create(ctx, token); !apierrors.IsForbidden(err) {
		t.Fatalf("got %v, want LL012", err)
	}
	if got := webhook.DenialCount("blue", "LL012"); got != blue+1 {
		t.Errorf("denials of requester blue: %v -> %v, want one more", blue, got)
	}
	if got := webhook.DenialCount("red", "LL012"); got != red {
		t.Errorf("denials of red, which made no request: %v -> %v, want unchanged", red, got)
	}
	if got := webhook.TargetedCount("red", "LL012"); got != aimed+1 {
		t.Errorf("denials targeting red: %v -> %v, want one more", aimed, got)
	}
	// An earlier denial's window, open up to a minute, holds this one.
	testenv.Eventually(t, 75*time.Second, func() error {
		events := &eventsv1.EventList{}
		if err := k8s.List(ctx, events, client.InNamespace(metav1.NamespaceDefault)); err != nil {
			return err
		}
		var onBlue, onRed bool
		for _, e := range events.Items {
			// Each names the object refused and who wrote it.
			refused := e.Related != nil && e.Related.Kind == "Secret" && e.Related.Namespace == token.Namespace && e.Related.Name == token.Name
			onBlue = onBlue || e.Regarding.Name == "blue" && e.Reason == "LL012" && refused && strings.HasPrefix(e.Note, "mallory was denied: ")
			onRed = onRed || e.Regarding.Name == "red" && e.Reason == "Targeted" && refused && strings.Contains(e.Note, "mallory, acting for tenant blue")
		}
		if !onBlue || !onRed {
			return fmt.Errorf("event LL012 on blue: %v, Targeted on red: %v", onBlue, onRed)
		}
		return nil
	})

	// The third review's 100 refused writes left 100 Events; now the
	// window already open holds them all until it closes.
	for i := range 100 {
		again := token.DeepCopy()
		again.Name = fmt.Sprintf("again-%d", i)
		if err := identities["leaky"].Create(ctx, again); !apierrors.IsForbidden(err) {
			t.Fatalf("got %v, want LL012", err)
		}
	}
	time.Sleep(3 * time.Second) // what the old code wrote was written by then
	events := &eventsv1.EventList{}
	if err := k8s.List(ctx, events, client.InNamespace(metav1.NamespaceDefault)); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range events.Items {
		if e.Regarding.Name == "blue" && e.Reason == "LL012" && e.Related != nil && strings.HasPrefix(e.Related.Name, "again-") {
			n++
		}
	}
	if n > 1 {
		t.Errorf("100 refused tokens made %d Events on blue, want at most the window's one", n)
	}
}

// TestSelfServiceLimitHoldsUnderParallelCreates: a tenant with room for
// two self-service namespaces sends eight creations at once; two are
// admitted. Its legitimate neighbour, creating within the limit in
// parallel, is TestAttackSuite's own self-service namespaces.
func TestSelfServiceLimitHoldsUnderParallelCreates(t *testing.T) {
	tenant := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "race"},
		Spec: v1alpha1.TenantSpec{
			Namespaces:  []v1alpha1.TenantNamespace{{Name: "race-apps"}},
			SelfService: &v1alpha1.SelfService{Prefix: "race-", MaxNamespaces: 2},
			Owners:      []v1alpha1.Owner{{Kind: "Group", Name: "race-team"}},
		},
	}
	if err := k8s.Create(ctx, tenant); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, tenant) })
	owner := impersonate("rita", "race-team", "system:authenticated")
	testenv.Eventually(t, 30*time.Second, func() error { // the self-service binding is in place
		return owner.Create(ctx, labelledNamespace("race-probe", "race"), client.DryRunAll)
	})
	results := make(chan error, 8)
	for i := range 8 {
		go func() {
			ns := labelledNamespace(fmt.Sprintf("race-%d", i), "race")
			err := owner.Create(ctx, ns)
			if err == nil {
				t.Cleanup(func() { _ = k8s.Delete(ctx, ns) })
			}
			results <- err
		}()
	}
	admitted, refused := 0, 0
	for range 8 {
		err := <-results
		switch {
		case err == nil:
			admitted++
		case apierrors.IsForbidden(err) && strings.Contains(err.Error(), "maxNamespaces=2"):
			refused++
		default:
			t.Errorf("unexpected: %v", err)
		}
	}
	if admitted != 2 || refused != 6 {
		t.Errorf("%d admitted, %d refused over the limit, want 2 and 6", admitted, refused)
	}
}
