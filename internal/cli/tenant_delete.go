package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

type tenantDeleteOptions struct {
	kube       kubeFlags
	name       string
	wait       bool
	timeout    time.Duration
	timeoutSet bool
	dryRun     string
}

func newTenantDeleteCommand(kube kubeFlags, run func(*cobra.Command, tenantDeleteOptions) error) *cobra.Command {
	opts := tenantDeleteOptions{kube: kube}
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a tenant as its deletion policy says",
		Long: `Delete a Tenant. Its spec.deletionPolicy says what goes with it:

  Delete (the default) deletes its Flux objects first, so that Flux prunes
         its workloads while the tenant's identity still exists, then its
         namespaces with everything in them.
  Retain keeps its namespaces and the workloads in them, released from
         Landlord: its Flux objects there are suspended, then Landlord's
         own (Flux objects, service accounts, role bindings) deleted, with
         any role binding granting an identity from outside the namespace,
         and its cluster-wide grants.

The Landlord controller does this before it lets the Tenant go. --wait
follows it, printing each stage and the namespaces left, until the Tenant is
gone.`,
		Example:           "  landlord tenant delete dev-team --dry-run=server\n  landlord tenant delete dev-team --wait",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeTenantNames(kube),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			opts.timeoutSet = cmd.Flags().Changed("timeout")
			return run(cmd, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.wait, "wait", false, "wait until the Tenant is gone")
	cmd.Flags().DurationVar(&opts.timeout, "timeout", defaultWaitTimeout, "how long --wait waits")
	addDryRunFlag(cmd, &opts.dryRun)
	return cmd
}

func runTenantDelete(cmd *cobra.Command, opts tenantDeleteOptions) error {
	switch {
	case opts.timeoutSet && !opts.wait:
		return errors.New("--timeout needs --wait")
	case opts.timeout <= 0:
		return fmt.Errorf("--timeout %s: must be positive", opts.timeout)
	}
	dry, err := dryRun(opts.dryRun, opts.wait)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	c, err := opts.kube.client()
	if err != nil {
		return err
	}
	if dry {
		c = client.NewDryRunClient(c)
	}
	t := &v1alpha1.Tenant{}
	if err := c.Get(ctx, client.ObjectKey{Name: opts.name}, t); err != nil {
		return tenantError(err, opts.name)
	}
	out := cmd.OutOrStdout()
	if t.DeletionTimestamp.IsZero() {
		// The UID precondition spares a Tenant recreated under the same name.
		if err := c.Delete(ctx, t, client.Preconditions{UID: &t.UID}); err != nil {
			return tenantError(err, opts.name)
		}
		if dry {
			fmt.Fprintf(out, "tenant/%s would be marked for deletion (server dry run; %s)\n", t.Name, policyEffect(t))
			return nil
		}
		fmt.Fprintf(out, "tenant/%s marked for deletion (%s)\n", t.Name, policyEffect(t))
	} else {
		fmt.Fprintf(out, "tenant/%s is already being deleted (%s)\n", t.Name, policyEffect(t))
	}
	if !opts.wait {
		return nil
	}

	fmt.Fprintf(cmd.ErrOrStderr(), "waiting for tenant/%s to be gone (--timeout %s)\n", t.Name, opts.timeout)
	if err := waitTenant(ctx, c, t.Name, opts.timeout, cmd.ErrOrStderr(), deletionProgress(c, t.Name, t.UID)); err != nil {
		return err
	}
	if t.Retains() {
		fmt.Fprintf(out, "tenant/%s deleted; namespaces kept: %s\n", t.Name, strings.Join(tenantNamespaces(t), ", "))
	} else {
		fmt.Fprintf(out, "tenant/%s deleted with its namespaces\n", t.Name)
	}
	return nil
}

// policyEffect says what the Tenant's deletion policy does to what it has.
func policyEffect(t *v1alpha1.Tenant) string {
	namespaces := "its namespaces"
	if names := tenantNamespaces(t); len(names) > 0 {
		namespaces = "namespaces " + strings.Join(names, ", ")
	}
	if t.Retains() {
		return fmt.Sprintf("deletionPolicy Retain: %s and their workloads are kept, released from Landlord", namespaces)
	}
	return fmt.Sprintf("deletionPolicy Delete: %s and their workloads are deleted", namespaces)
}

// tenantNamespaces are the namespaces the Tenant has, or before the
// controller reported any, those its spec assigns.
func tenantNamespaces(t *v1alpha1.Tenant) []string {
	if len(t.Status.Namespaces) == 0 {
		return t.NamespaceNames()
	}
	names := make([]string, 0, len(t.Status.Namespaces))
	for _, ns := range t.Status.Namespaces {
		names = append(names, ns.Name)
	}
	return names
}

// deletionProgress reports the finalizer's stage and the namespaces Landlord
// still manages for the tenant; the Tenant being gone, or replaced by one of
// the same name, ends the wait.
func deletionProgress(c client.Client, name string, uid types.UID) func(context.Context, *v1alpha1.Tenant) (string, bool, error) {
	return func(ctx context.Context, t *v1alpha1.Tenant) (string, bool, error) {
		if t == nil || t.UID != uid {
			return "", true, nil
		}
		stage := "waiting for the Landlord controller to finalize it"
		rec := apimeta.FindStatusCondition(t.Status.Conditions, v1alpha1.ReconcilingCondition)
		ready := apimeta.FindStatusCondition(t.Status.Conditions, v1alpha1.ReadyCondition)
		switch {
		case ready != nil && ready.Reason == v1alpha1.FinalizeFailedReason:
			stage = fmt.Sprintf("%s: %s", ready.Reason, oneLine(ready.Message))
		case rec != nil && rec.Reason == v1alpha1.FinalizingReason:
			stage = fmt.Sprintf("%s: %s", rec.Reason, oneLine(rec.Message))
		case !controllerutil.ContainsFinalizer(t, v1alpha1.Finalizer):
			stage = "finalized, the API server removes it"
		}
		namespaces := &corev1.NamespaceList{}
		if err := c.List(ctx, namespaces, client.MatchingLabels{
			v1alpha1.TenantLabel:    name,
			v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue,
		}); err != nil {
			return "", false, fmt.Errorf("listing the namespaces of tenant/%s: %w", name, err)
		}
		var left []string
		for _, ns := range namespaces.Items {
			if ns.DeletionTimestamp.IsZero() {
				left = append(left, ns.Name)
			} else {
				left = append(left, ns.Name+" (terminating)")
			}
		}
		if len(left) > 0 {
			stage += "; namespaces left: " + strings.Join(left, ", ")
		}
		return stage, false, nil
	}
}
