package manager

import (
	"context"
	"fmt"
	"net"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/audit"
	"github.com/landlord-dev/landlord/internal/dashboard"
)

// addDashboard serves the dashboard on addr on every replica. Its index
// lists Tenants from the manager's cache; everything else it reads live,
// as the cache holds only Landlord's own objects and no Events. Viewers are
// authenticated by TokenReview and shown what SubjectAccessReview says
// they may get.
func addDashboard(mgr ctrl.Manager, addr string) error {
	c, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme()})
	if err != nil {
		return fmt.Errorf("creating the dashboard's client: %w", err)
	}
	auditor := &audit.Auditor{Client: c, Config: mgr.GetConfig()}
	srv, err := dashboard.New(dashboard.Options{
		Client:  c,
		Tenants: mgr.GetCache(),
		Auth:    &dashboard.TokenReviewer{Client: c},
		// The controller may not impersonate, so no escape attempts.
		Audit: func(ctx context.Context, tenant string) ([]audit.Check, error) {
			return auditor.Tenant(ctx, tenant, false)
		},
	})
	if err != nil {
		return err
	}
	return mgr.Add(dashboardRunnable{srv: srv, addr: addr})
}

// dashboardRunnable serves whether or not the replica leads.
type dashboardRunnable struct {
	srv  *dashboard.Server
	addr string
}

func (d dashboardRunnable) Start(ctx context.Context) error {
	l, err := net.Listen("tcp", d.addr)
	if err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	ctrl.LoggerFrom(ctx).Info("serving the dashboard", "address", l.Addr().String())
	return d.srv.Serve(ctx, l)
}

func (dashboardRunnable) NeedLeaderElection() bool { return false }
