package cli

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/spf13/cobra"
	authorizationv1 "k8s.io/api/authorization/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/audit"
	"github.com/landlord-dev/landlord/internal/dashboard"
)

type dashboardOptions struct {
	kube    kubeFlags
	address string
	refresh time.Duration
}

func newDashboardCommand(kube kubeFlags, run func(*cobra.Command, dashboardOptions) error) *cobra.Command {
	opts := dashboardOptions{kube: kube}
	cmd := &cobra.Command{
		Use:   "dashboard",
		Short: "Serve the tenants dashboard on loopback, as your kubeconfig sees the cluster",
		Long: `Serve the dashboard landlord-controller serves with --dashboard-bind-address,
on a loopback address, reading the cluster with your kubeconfig's identity:
a platform admin sees every tenant, a tenant's owner its own. Prints the URL,
with a key that keeps other local users and web pages out, and opens
nothing. Runs until interrupted.

The audit of a tenant's page runs the escape attempts only if you may
impersonate users, groups and service accounts.`,
		Example:           "  landlord dashboard\n  landlord dashboard --address 127.0.0.1:8000 --context staging",
		Args:              cobra.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.address, "address", "127.0.0.1:0", "loopback host:port to serve on; port 0 picks a free one")
	cmd.Flags().DurationVar(&opts.refresh, "refresh", 5*time.Second, "how often an open page updates itself")
	return cmd
}

func runDashboard(cmd *cobra.Command, opts dashboardOptions) error {
	host, _, err := net.SplitHostPort(opts.address)
	if err != nil {
		return fmt.Errorf("--address %q: want host:port: %w", opts.address, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--address %q: allowed a loopback host (127.0.0.1, ::1 or localhost): the page shows what your kubeconfig may read, over plain HTTP", opts.address)
	}
	if opts.refresh < time.Second {
		return fmt.Errorf("--refresh %s: allowed 1s or more", opts.refresh)
	}
	cfg, err := opts.kube.config()
	if err != nil {
		return err
	}
	c, err := opts.kube.client()
	if err != nil {
		return err
	}
	escapes, err := mayImpersonate(cmd.Context(), c)
	if err != nil {
		return err
	}
	auditor := &audit.Auditor{Client: c, Config: cfg}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	local := &dashboard.Local{Key: base64.RawURLEncoding.EncodeToString(key), Client: c}
	srv, err := dashboard.New(dashboard.Options{
		Client: c, Auth: local, Refresh: opts.refresh, LinkLogin: true,
		Audit: func(ctx context.Context, tenant string) ([]audit.Check, error) {
			return auditor.Tenant(ctx, tenant, escapes)
		},
	})
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", opts.address)
	if err != nil {
		return err
	}
	link := url.URL{Scheme: "http", Host: l.Addr().String(), Path: "/login", RawQuery: url.Values{"token": {local.Key}}.Encode()}
	fmt.Fprintf(cmd.OutOrStdout(), "Dashboard of %s: %s\nCtrl-C stops it.\n", cfg.Host, link.String())
	return srv.Serve(cmd.Context(), l)
}

// mayImpersonate tells whether the kubeconfig may impersonate the tenant
// identities the audit's escape attempts are sent as; a refused
// impersonation would read as an escape refused.
func mayImpersonate(ctx context.Context, c client.Client) (bool, error) {
	for _, resource := range []string{"users", "groups", "serviceaccounts"} {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "impersonate", Resource: resource},
		}}
		if err := c.Create(ctx, review); err != nil {
			return false, fmt.Errorf("asking whether you may impersonate %s: %w", resource, err)
		}
		if !review.Status.Allowed {
			return false, nil
		}
	}
	return true, nil
}
