// Package apply server-side applies typed objects under one field owner,
// one request each, for callers that have already diffed against a cache
// (the controller, the webhook registration); installs go through
// internal/install and fluxcd/pkg/ssa instead.
package apply

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Objects applies each object, forcing ownership so that hand edits of
// fields the owner sets are reverted. Objects must carry their kind; they
// are normalized as Flux normalizes what it applies (no status, no
// creationTimestamp, Secret stringData as data).
func Objects(ctx context.Context, c client.Client, owner string, objects ...client.Object) error {
	for _, obj := range objects {
		u, err := Normalized(obj)
		if err != nil {
			return err
		}
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(owner), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying %s %s: %w", u.GetKind(), client.ObjectKeyFromObject(u), err)
		}
	}
	return nil
}
