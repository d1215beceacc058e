package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

func newTenantCommand(kube kubeFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tenant",
		Short: "Create, list, inspect and delete tenants",
	}
	cmd.AddCommand(
		newTenantCreateCommand(kube, runTenantCreate),
		newTenantListCommand(kube, runTenantList),
		newTenantGetCommand(kube, runTenantGet),
		newTenantDeleteCommand(kube, runTenantDelete),
		newTenantKubeconfigCommand(kube),
		newTenantImportCommand(runTenantImport),
	)
	return cmd
}

// defaultWaitTimeout bounds --wait, as flux's --timeout does.
const defaultWaitTimeout = 5 * time.Minute

// pollInterval is how often --wait reads the Tenant again.
const pollInterval = time.Second

// requestGrace lets the last read of a wait finish after its deadline, so
// that the client's rate limiter, which refuses a wait it predicts would
// overrun its context, never speaks for the timeout.
const requestGrace = 10 * time.Second

// tenantError turns the API errors every tenant command may meet into what
// to do about them.
func tenantError(err error, name string) error {
	switch {
	case apierrors.IsNotFound(err) && name != "":
		return fmt.Errorf("tenant %s not found: 'landlord tenant list' shows the tenants", name)
	case apimeta.IsNoMatchError(err):
		return fmt.Errorf("the cluster has no Tenant API: install Landlord first (%w)", err)
	}
	return err
}

// waitTenant reads the Tenant every pollInterval and hands it to check,
// nil once it is gone, until check reports done or fails. check returns a
// progress line; each change of it is printed to progress. After timeout
// the error names the flag and carries the last line.
func waitTenant(ctx context.Context, c client.Client, name string, timeout time.Duration, progress io.Writer,
	check func(ctx context.Context, t *v1alpha1.Tenant) (line string, done bool, err error)) error {
	deadline := time.Now().Add(timeout)
	reqCtx, cancel := context.WithDeadline(ctx, deadline.Add(requestGrace))
	defer cancel()
	errTimeout := errors.New("timed out")
	last := ""
	err := wait.PollUntilContextCancel(reqCtx, pollInterval, true, func(ctx context.Context) (bool, error) {
		if time.Now().After(deadline) {
			return false, errTimeout
		}
		t := &v1alpha1.Tenant{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, t); apierrors.IsNotFound(err) {
			t = nil
		} else if err != nil {
			return false, tenantError(err, name)
		}
		line, done, err := check(ctx, t)
		if line != last && line != "" {
			fmt.Fprintf(progress, "  %s\n", line)
			last = line
		}
		return done, err
	})
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("tenant/%s: stopped waiting (%w); last: %s", name, ctx.Err(), last)
	case errors.Is(err, errTimeout) || reqCtx.Err() != nil:
		return fmt.Errorf("tenant/%s: gave up after --timeout %s; last: %s", name, timeout, last)
	}
	return err
}
