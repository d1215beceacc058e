package audit

import (
	"context"
	"fmt"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// Tenant runs the checks of one tenant alone: ready, access and holdings,
// and with escapes the escape attempts, which impersonate the tenant's
// reconciler. The dashboard calls it for a tenant's page; landlord-controller
// may not impersonate, and an impersonation refused would read as an
// escape refused.
func (a *Auditor) Tenant(ctx context.Context, name string, escapes bool) ([]Check, error) {
	list := &v1alpha1.TenantList{}
	if err := a.Client.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing tenants: %w", err)
	}
	for i := range list.Items {
		t := &list.Items[i]
		if t.Name != name {
			continue
		}
		checks := []Check{ready(t)}
		access, err := a.access(ctx, t, neighbour(t, list.Items))
		if err != nil {
			return nil, err
		}
		checks = append(checks, access...)
		if escapes {
			tried, err := a.escapes(ctx, t, neighbour(t, list.Items))
			if err != nil {
				return nil, err
			}
			checks = append(checks, tried...)
		}
		holdings, err := a.holdings(ctx, t)
		if err != nil {
			return nil, err
		}
		return append(checks, holdings...), nil
	}
	return nil, fmt.Errorf("tenant %q not found", name)
}
