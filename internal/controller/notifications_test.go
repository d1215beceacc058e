package controller_test

import (
	"fmt"
	"strings"
	"testing"

	notificationv1 "github.com/fluxcd/notification-controller/api/v1"
	notificationv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

// TestTenantNotifications gives a tenant a Provider and an Alert in its
// home namespace, fed by that namespace's Flux objects only and using
// the Secret the tenant supplies there; the tenant may not repoint them,
// nor make an Alert of its own that listens to another tenant.
func TestTenantNotifications(t *testing.T) {
	t.Parallel()
	tenant := newTenant("notify", "notify-a")
	tenant.Spec.Notifications = &v1alpha1.Notifications{Type: "slack", Channel: "#notify", SecretRef: "slack-webhook", EventSeverity: "error"}
	neighbour := newTenant("notify-other", "notify-other-a")
	for _, tn := range []*v1alpha1.Tenant{tenant, neighbour} {
		create(t, tn)
		t.Cleanup(func() { deleteTenant(t, tn.Name) })
		waitReady(t, tn.Name)
	}
	provider := &notificationv1beta3.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: "notify-a", Name: render.NotificationsName}}
	alert := &notificationv1beta3.Alert{ObjectMeta: metav1.ObjectMeta{Namespace: "notify-a", Name: render.NotificationsName}}
	eventually(t, "the tenant's Provider and Alert", func() error {
		if err := exists(provider); err != nil {
			return err
		}
		return exists(alert)
	})
	if provider.Spec.Type != "slack" || provider.Spec.Channel != "#notify" || provider.Spec.SecretRef == nil || provider.Spec.SecretRef.Name != "slack-webhook" {
		t.Errorf("Provider spec %+v", provider.Spec)
	}
	if alert.Spec.EventSeverity != "error" || alert.Spec.ProviderRef.Name != render.NotificationsName {
		t.Errorf("Alert spec %+v", alert.Spec)
	}
	for _, src := range alert.Spec.EventSources {
		if src.Namespace != "" && src.Namespace != "notify-a" {
			t.Errorf("the Alert listens in %s", src.Namespace)
		}
	}

	owner := impersonate("alice", "notify-owners")
	repointed := provider.DeepCopy()
	repointed.Spec.Channel = "#elsewhere"
	// A patch, not an update: the guard answers whatever the resourceVersion.
	if err := owner.Patch(ctx, repointed, client.MergeFrom(provider)); err == nil || !strings.Contains(err.Error(), "LL010") {
		t.Errorf("the owner repointed Landlord's Provider: err = %v", err)
	}
	spy := &notificationv1beta3.Alert{
		ObjectMeta: metav1.ObjectMeta{Namespace: "notify-a", Name: "spy"},
		Spec: notificationv1beta3.AlertSpec{
			ProviderRef:  alert.Spec.ProviderRef,
			EventSources: []notificationv1.CrossNamespaceObjectReference{{Kind: "Kustomization", Name: "*", Namespace: "notify-other-a"}},
		},
	}
	if err := owner.Create(ctx, spy); err == nil || !strings.Contains(err.Error(), "LL006") {
		t.Errorf("an Alert on another tenant's events: err = %v, want LL006", err)
	}
	// Neighbour: an Alert of its own on its own namespace is its to make.
	spy.Name, spy.Spec.EventSources[0].Namespace = "mine", ""
	if err := owner.Create(ctx, spy); err != nil {
		t.Errorf("the tenant's own Alert: %v", err)
	}

	updateTenant(t, tenant.Name, func(t *v1alpha1.Tenant) { t.Spec.Notifications = nil })
	eventually(t, "notifications pruned with the field", func() error {
		if err := gone(provider.DeepCopy()); err != nil {
			return err
		}
		if err := gone(alert.DeepCopy()); err != nil {
			return fmt.Errorf("alert: %w", err)
		}
		return nil
	})
}
