package v1alpha1

import (
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Labels and annotations Landlord puts on what it manages.
const (
	// TenantLabel names the tenant that owns a namespace or managed object.
	TenantLabel = "landlord.dev/tenant"
	// ManagedByLabel marks objects the Landlord controller created.
	ManagedByLabel = "app.kubernetes.io/managed-by"
	// ManagedByValue is the value of ManagedByLabel on Landlord's objects.
	ManagedByValue = "landlord"
	// OriginLabel records who created a tenant namespace.
	OriginLabel = "landlord.dev/origin"
	// ReleasedLabel names the tenant that released a namespace it held.
	ReleasedLabel = "landlord.dev/released"
	// ReconcilerLabel names, on a tenant namespace, the service account
	// Flux applies the tenant's objects as: the API server's default for
	// their serviceAccountName reads it.
	ReconcilerLabel = "landlord.dev/reconciler"
	// ServiceTypesLabel lists, on a tenant namespace, the Service types
	// beyond ClusterIP the tenant may create, joined by dots, empty for
	// none: the API server's policy reads it.
	ServiceTypesLabel = "landlord.dev/service-types"
	// WorkloadIdentityLabel is "true" on the namespaces of a tenant that
	// allows workload identity, "false" elsewhere: the API server's policy
	// reads it.
	WorkloadIdentityLabel = "landlord.dev/workload-identity"
	// AllowedSourcesAnnotation holds, on a tenant namespace, the tenant's
	// spec.allowedSources one a line, and SourceRegexpsAnnotation the
	// regular expression of each valid one: the API server's policy
	// matches URLs against the second and names the first in denials.
	AllowedSourcesAnnotation = "landlord.dev/allowed-sources"
	SourceRegexpsAnnotation  = "landlord.dev/allowed-sources-regexps"
	// NotificationsAddressAnnotation is, on a tenant namespace, the
	// address the platform gave the tenant's notifications, which a
	// confined tenant's Provider may post to: the API server's policy
	// reads it.
	NotificationsAddressAnnotation = "landlord.dev/notifications-address"
	// The annotations of a tenant namespace holding what the tenant's pods
	// may choose, which the API server's policy reads: priority classes,
	// node labels (a key alone for any value, or key=value), tolerations
	// ("key value effect", each part empty for any), storage classes and
	// image prefixes ("*" alone where the Tenant bounds no image), one a
	// line; whether every pull is checked against the registry and every
	// container declares its resources ("true" or "false"); and the
	// ServiceAccounts TenantResources stamp there, which pods may not run as.
	PriorityClassesAnnotation  = "landlord.dev/priority-classes"
	NodeLabelsAnnotation       = "landlord.dev/node-labels"
	TolerationsAnnotation      = "landlord.dev/tolerations"
	StorageClassesAnnotation   = "landlord.dev/storage-classes"
	AllowedImagesAnnotation    = "landlord.dev/allowed-images"
	PullAlwaysAnnotation       = "landlord.dev/pull-always"
	RequireResourcesAnnotation = "landlord.dev/require-resources"
	StampedAccountsAnnotation  = "landlord.dev/stamped-accounts"

	// FieldManager is the one server-side apply manager of everything the
	// controller writes: what its entries of an object's managed fields
	// hold is what it may remove.
	FieldManager = "landlord"

	// Finalizer holds a Tenant until what it created is removed or released.
	Finalizer = "landlord.dev/finalizer"

	// DefaultRole is the ClusterRole bound in tenant namespaces by default.
	DefaultRole = "landlord-tenant"
	// AggregateToTenantLabel, "true" on a ClusterRole, adds its rules to
	// DefaultRole, as Kubernetes' aggregate-to-edit adds to edit; the API
	// server's policy judges such a role before it takes effect.
	AggregateToTenantLabel = "landlord.dev/aggregate-to-tenant"
	// VariablesConfigMap holds the tenant's variables in each namespace.
	VariablesConfigMap = "tenant-vars"
)

// IsLandlordKey reports whether a label or annotation key is in Landlord's
// own prefix: on a namespace, only the platform sets those.
func IsLandlordKey(key string) bool {
	return strings.HasPrefix(key, GroupVersion.Group+"/")
}

// Condition types, the kstatus way.
const (
	ReadyCondition       = "Ready"
	ReconcilingCondition = "Reconciling"
	StalledCondition     = "Stalled"
)

// Condition reasons of a Tenant being deleted, which the CLI follows.
const (
	FinalizingReason     = "Finalizing"
	FinalizeFailedReason = "FinalizeFailed"
)

// ReconcilerName is the service account Flux impersonates for the tenant.
func (t *Tenant) ReconcilerName() string {
	if t.Spec.ServiceAccountName != "" {
		return t.Spec.ServiceAccountName
	}
	return t.Name
}

// RoleName is the ClusterRole bound in the tenant's namespaces.
func (t *Tenant) RoleName() string {
	if t.Spec.Role != "" {
		return t.Spec.Role
	}
	return DefaultRole
}

// HomeNamespace holds the tenant's Flux objects: its first namespace.
func (t *Tenant) HomeNamespace() string {
	if len(t.Spec.Namespaces) == 0 {
		return ""
	}
	return t.Spec.Namespaces[0].Name
}

// NamespaceNames lists the namespaces the platform assigned.
func (t *Tenant) NamespaceNames() []string {
	names := make([]string, 0, len(t.Spec.Namespaces))
	for _, ns := range t.Spec.Namespaces {
		names = append(names, ns.Name)
	}
	return names
}

// PodSecurityLevel is the enforced level, restricted unless set.
func (t *Tenant) PodSecurityLevel() PodSecurityLevel {
	if t.Spec.PodSecurity != "" {
		return t.Spec.PodSecurity
	}
	return PodSecurityRestricted
}

// Isolated reports whether the tenant's namespaces get a NetworkPolicy.
func (t *Tenant) Isolated() bool {
	return t.Spec.Network.Isolation != NetworkIsolationNone
}

// Retains reports whether removal releases namespaces instead of deleting.
func (t *Tenant) Retains() bool {
	return t.Spec.DeletionPolicy == DeletionPolicyRetain
}

// DefaultInterval is the sync interval of a source that sets none.
const DefaultInterval = 5 * time.Minute

// SyncInterval is the source's interval, the default when unset, as for a
// Tenant read from a fleet repo that no apiserver has defaulted.
func (s *Source) SyncInterval() metav1.Duration {
	if s.Interval != nil {
		return *s.Interval
	}
	return metav1.Duration{Duration: DefaultInterval}
}
