package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

type tenantGetOptions struct {
	kube   kubeFlags
	name   string
	output string
}

func newTenantGetCommand(kube kubeFlags, run func(*cobra.Command, tenantGetOptions) error) *cobra.Command {
	opts := tenantGetOptions{kube: kube}
	cmd := &cobra.Command{
		Use:   "get NAME",
		Short: "Show one tenant: its namespaces, sources and conditions",
		Long: `Show one Tenant: the row 'landlord tenant list' prints, then each of its
namespaces with where it came from (Platform or SelfService), each source
with the revision Flux applied and whether it is ready, and its conditions.
-o wide adds its owners and sources' URLs to the row; -o yaml or json prints
the Tenant itself, -o name its name as kubectl does, -o jsonpath= what a
kubectl JSONPath template selects.`,
		Example: `  landlord tenant get dev-team
  landlord tenant get dev-team -o yaml
  landlord tenant get dev-team -o jsonpath='{.status.namespaces[*].name}'`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeTenantNames(kube),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			return run(cmd, opts)
		},
	}
	addObjectOutputFlag(cmd, &opts.output)
	return cmd
}

func runTenantGet(cmd *cobra.Command, opts tenantGetOptions) error {
	if _, err := objectPrinter(opts.output); err != nil {
		return err
	}
	c, err := opts.kube.client()
	if err != nil {
		return err
	}
	t := &v1alpha1.Tenant{}
	if err := c.Get(cmd.Context(), client.ObjectKey{Name: opts.name}, t); err != nil {
		return tenantError(err, opts.name)
	}
	forOutput(t)
	return writeObject(cmd.OutOrStdout(), opts.output, t, func(tw io.Writer, wide bool) {
		writeTenantDetail(tw, t, time.Now(), wide)
	})
}

// writeTenantDetail prints the Tenant's row, then a block each for its
// namespaces, sources and conditions; blank lines let each align alone.
func writeTenantDetail(tw io.Writer, t *v1alpha1.Tenant, now time.Time, wide bool) {
	fmt.Fprintln(tw, tenantHeader(wide))
	fmt.Fprintln(tw, tenantRow(t, now, wide))
	if len(t.Status.Namespaces) > 0 {
		fmt.Fprintln(tw, "\nNAMESPACE\tORIGIN\tREADY\tMESSAGE")
		for _, ns := range t.Status.Namespaces {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ns.Name, ns.Origin, readyWord(ns.Ready), oneLine(ns.Message))
		}
	}
	if len(t.Status.Sources) > 0 {
		fmt.Fprintln(tw, "\nSOURCE\tREVISION\tREADY\tMESSAGE")
		for _, src := range t.Status.Sources {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", src.Name, orNone(src.Revision), readyWord(src.Ready), oneLine(src.Message))
		}
	}
	if len(t.Status.Conditions) > 0 {
		fmt.Fprintln(tw, "\nCONDITION\tSTATUS\tREASON\tMESSAGE\tAGE")
		for _, cond := range t.Status.Conditions {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", cond.Type, cond.Status, cond.Reason, oneLine(cond.Message),
				age(cond.LastTransitionTime.Time, now))
		}
	}
}

// readyWord spells a readiness flag as condition statuses are spelled.
func readyWord(ready bool) string {
	if ready {
		return "True"
	}
	return "False"
}
