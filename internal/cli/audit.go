package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/landlord-dev/landlord/internal/audit"
)

type auditOptions struct {
	tenants []string
	flux    string
	output  string
}

func newAuditCommand(kube kubeFlags) *cobra.Command {
	opts := auditOptions{}
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Prove on the live cluster that every tenant is confined",
		Long: `Audit each tenant through the real API server:

  ready   the controller reports the tenant provisioned;
  access  SubjectAccessReviews: what its reconciler and owners may and may
          not do, in and out of its namespaces;
  escape  the guard's escape attempts, sent as the tenant's reconciler in
          server-side dry run: each must be refused;
  flux    Flux's controllers run with the multi-tenancy lockdown flags.

Prints PASS, FAIL or SKIP per check and exits 1 on any FAIL. Needs rights
to read Tenants and Deployments, create SubjectAccessReviews and
impersonate tenant identities (cluster-admin has them).`,
		Example: `  landlord audit
  landlord audit --tenant dev-team -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := kube.config()
			if err != nil {
				return err
			}
			c, err := kube.client()
			if err != nil {
				return err
			}
			a := &audit.Auditor{Client: c, Config: cfg, FluxNamespace: opts.flux}
			checks, err := a.Run(cmd.Context(), opts.tenants...)
			if err != nil {
				return err
			}
			if err := writeData(cmd.OutOrStdout(), opts.output, checks, func(w io.Writer) { auditTable(w, checks) }); err != nil {
				return err
			}
			if n := audit.Failed(checks); n > 0 {
				return fmt.Errorf("%d of %d checks failed", n, len(checks))
			}
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&opts.tenants, "tenant", nil, "tenants to audit (default every tenant)")
	cmd.Flags().StringVar(&opts.flux, "flux-namespace", "flux-system", "namespace of Flux's controllers")
	addOutputFlag(cmd, &opts.output)
	return cmd
}

func auditTable(w io.Writer, checks []audit.Check) {
	fmt.Fprintln(w, "TENANT\tKIND\tCHECK\tRESULT\tDETAIL")
	counts := map[audit.Result]int{}
	for _, c := range checks {
		tenant := c.Tenant
		if tenant == "" {
			tenant = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", tenant, c.Kind, c.Name, c.Result, c.Detail)
		counts[c.Result]++
	}
	fmt.Fprintf(w, "\n%d checks: %d PASS, %d FAIL, %d SKIP\n", len(checks), counts[audit.Pass], counts[audit.Fail], counts[audit.Skip])
}
