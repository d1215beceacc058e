// Package devenv runs Landlord itself on a local control plane: its CRDs
// and roles, the controller as its own service account bound to its
// generated RBAC, and the admission webhooks served on loopback.
package devenv

import (
	"context"
	"fmt"
	"path/filepath"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/profile"
	"github.com/landlord-dev/landlord/internal/tenancy"
	"github.com/landlord-dev/landlord/internal/webhook"
)

// Landlord is a running controller with its webhooks registered.
type Landlord struct {
	// Webhook is what the webhooks are served with.
	Webhook webhook.Options
	stop    context.CancelFunc
	done    chan struct{}
	err     error // how the manager ended, set before done closes
}

// Start installs Landlord's prerequisites into env and runs the controller
// with the tenant defaults defaults, keeping its webhook certificates
// under dir. Stop ends it.
func Start(ctx context.Context, env *localcluster.Env, dir string, defaults profile.Profile) (*Landlord, error) {
	admin, err := client.New(env.Config, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		return nil, err
	}
	if err := install.Prerequisites(ctx, admin); err != nil {
		return nil, err
	}
	if err := install.ControllerRBAC(ctx, admin, tenancy.ControllerNamespace); err != nil {
		return nil, err
	}
	ports, err := localcluster.FreePorts(1)
	if err != nil {
		return nil, err
	}
	port := ports[0]
	l := &Landlord{
		Webhook: webhook.Options{
			Namespace: tenancy.ControllerNamespace,
			Host:      "127.0.0.1",
			Port:      port,
			URLBase:   fmt.Sprintf("https://127.0.0.1:%d", port),
			CertDir:   filepath.Join(dir, "webhook-certs"),
		},
		done: make(chan struct{}),
	}
	// The controller runs as its service account, so a missing RBAC marker
	// shows as a failure rather than hiding behind an admin's rights.
	ns := tenancy.ControllerNamespace
	cfg := env.ConfigFor(tenancy.ControllerUser(ns), "system:serviceaccounts", "system:serviceaccounts:"+ns, "system:authenticated")
	cfg.UserAgent = tenancy.ControllerServiceAccount
	mgr, err := manager.New(ctx, cfg, manager.Options{MetricsAddr: "0", HealthAddr: "0", Concurrency: 4, Webhook: &l.Webhook, Profile: defaults})
	if err != nil {
		return nil, err
	}
	mgrCtx, stop := context.WithCancel(ctx)
	l.stop = stop
	go func() {
		l.err = mgr.Start(mgrCtx)
		close(l.done)
	}()
	return l, nil
}

// Stop ends the controller, waits for it and returns how it ended; it may
// be called more than once.
func (l *Landlord) Stop() error {
	l.stop()
	<-l.done
	return l.err
}

// Done is closed when the controller has ended, by Stop or on its own.
func (l *Landlord) Done() <-chan struct{} { return l.done }
