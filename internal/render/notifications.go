package render

import (
	notificationv1 "github.com/fluxcd/notification-controller/api/v1"
	notificationv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// NotificationsName names the tenant's Provider and Alert.
const NotificationsName = "landlord"

// notifiedKinds are the Flux kinds whose events reach the tenant's channel:
// every kind a tenant's repository can hold that emits events.
var notifiedKinds = []string{
	"GitRepository", "OCIRepository", "Bucket", "HelmRepository", "HelmChart",
	"Kustomization", "HelmRelease",
}

// notifications are the Provider and Alert that send the events of the
// Flux objects in the tenant's home namespace, Landlord's and the
// tenant's own, to its channel. The Alert names no other namespace, so
// no tenant hears another's events.
func notifications(t *v1alpha1.Tenant) []client.Object {
	n := t.Spec.Notifications
	ns := t.HomeNamespace()
	provider := &notificationv1beta3.Provider{
		TypeMeta:   typeMeta(notificationv1beta3.GroupVersion, notificationv1beta3.ProviderKind),
		ObjectMeta: meta(t, NotificationsName, ns),
		Spec: notificationv1beta3.ProviderSpec{
			Type:    n.Type,
			Channel: n.Channel,
			Address: n.Address,
		},
	}
	if n.SecretRef != "" {
		provider.Spec.SecretRef = &fluxmeta.LocalObjectReference{Name: n.SecretRef}
	}
	sources := make([]notificationv1.CrossNamespaceObjectReference, len(notifiedKinds))
	for i, kind := range notifiedKinds {
		sources[i] = notificationv1.CrossNamespaceObjectReference{Kind: kind, Name: "*"}
	}
	severity := n.EventSeverity
	if severity == "" {
		severity = "info"
	}
	alert := &notificationv1beta3.Alert{
		TypeMeta:   typeMeta(notificationv1beta3.GroupVersion, notificationv1beta3.AlertKind),
		ObjectMeta: meta(t, NotificationsName, ns),
		Spec: notificationv1beta3.AlertSpec{
			ProviderRef:   fluxmeta.LocalObjectReference{Name: NotificationsName},
			EventSeverity: severity,
			EventSources:  sources,
		},
	}
	return []client.Object{provider, alert}
}
