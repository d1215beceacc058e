package controller

import "github.com/landlord-dev/landlord/internal/kinds"

// ownedKind is a kind the render produces, listed by tenant label.
type ownedKind = kinds.Kind

// The owned kinds by deletion stage, from the registry: Flux objects
// first, then what lives in tenant namespaces, then the cluster-wide
// grants (finalize revokes those before anything else), namespaces last.
var (
	fluxKinds     = kinds.Owned(kinds.FluxStage)
	guardKinds    = kinds.Owned(kinds.NamespacedStage)
	clusterKinds  = kinds.Owned(kinds.ClusterStage)
	namespaceKind = kinds.Owned(kinds.NamespaceStage)[0]
)

// namespacedAndClusterKinds is every owned kind but Namespace, in deletion order.
func namespacedAndClusterKinds() []ownedKind {
	out := append([]ownedKind{}, fluxKinds...)
	out = append(out, guardKinds...)
	return append(out, clusterKinds...)
}

// ownedKinds is every kind Landlord creates, in deletion order.
func ownedKinds() []ownedKind {
	return append(namespacedAndClusterKinds(), namespaceKind)
}
