package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/apply"
	"github.com/landlord-dev/landlord/internal/audit"
)

// auditFormats are audit's -o values; table is text's other name, as -o
// table is elsewhere.
var auditFormats = []string{"text", "json", "yaml", "policyreport"}

type auditOptions struct {
	tenants      []string
	flux         string
	output       string
	writeReports bool
}

func newAuditCommand(kube kubeFlags) *cobra.Command {
	opts := auditOptions{}
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Prove on the live cluster that every tenant is confined",
		Long: `Audit each tenant through the real API server:

  ready     the controller reports the tenant provisioned;
  access    SubjectAccessReviews: what its reconciler and owners may and
            may not do, in and out of its namespaces;
  escape    the guard's escape attempts, sent as the tenant's reconciler
            in server-side dry run: each must be refused;
  holdings  every namespace and object Landlord holds for it is its own;
  released  a released namespace holds no tenant access and nothing that
            syncs;
  census    each field the census finds able to point outside a tenant:
            its attack, sent in server-side dry run, is refused;
  flux      Flux's controllers run with the multi-tenancy lockdown flags,
            and a Flux Operator FluxInstance keeps them so.

Prints PASS, FAIL or SKIP per check (-o text), the checks as JSON or YAML,
or as PolicyReports (wgpolicyk8s.io/v1alpha2, the Kubernetes Policy
Working Group's schema that policy dashboards read): one in each namespace
of each tenant audited, with the tenant's checks, and a ClusterPolicyReport
of the Flux checks. --write-reports applies those reports to the cluster,
server-side as field manager landlord, whatever -o prints. Exits 1 on any
FAIL. Needs rights to read Tenants and Deployments, create
SubjectAccessReviews and impersonate tenant identities (cluster-admin has
them), and to write policyreports with --write-reports.`,
		Example: `  landlord audit
  landlord audit --tenant dev-team -o json
  landlord audit -o policyreport > reports.yaml
  landlord audit --write-reports`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.output == "table" {
				opts.output = "text"
			}
			if !slices.Contains(auditFormats, opts.output) {
				return fmt.Errorf("--output %q: want one of %s", opts.output, strings.Join(auditFormats, ", "))
			}
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
			if err := writeAudit(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), c, checks, opts); err != nil {
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
	cmd.Flags().StringVarP(&opts.output, "output", "o", "text", "output format: text, json, yaml or policyreport")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(auditFormats, cobra.ShellCompDirectiveNoFileComp))
	cmd.Flags().BoolVar(&opts.writeReports, "write-reports", false, "apply the PolicyReports to the cluster (server-side, field manager landlord)")
	return cmd
}

// writeAudit prints the checks as asked and, with --write-reports, applies
// their PolicyReports, naming each on errOut.
func writeAudit(ctx context.Context, out, errOut io.Writer, c client.Client, checks []audit.Check, opts auditOptions) error {
	if opts.output != "policyreport" && !opts.writeReports {
		return writeData(out, tableFormat(opts.output), checks, func(w io.Writer) { auditTable(w, checks) })
	}
	namespaces, err := namespacesByTenant(ctx, c)
	if err != nil {
		return err
	}
	reports, err := audit.PolicyReports(checks, namespaces, time.Now())
	if err != nil {
		return err
	}
	if opts.output == "policyreport" {
		for _, r := range reports {
			data, err := yaml.Marshal(r.Object)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "---\n%s", data)
		}
	} else if err := writeData(out, tableFormat(opts.output), checks, func(w io.Writer) { auditTable(w, checks) }); err != nil {
		return err
	}
	if !opts.writeReports {
		return nil
	}
	written := map[string]bool{}
	for _, r := range reports {
		if err := apply.Objects(ctx, c, audit.ReportSource, r); err != nil {
			return fmt.Errorf("writing the reports (is the PolicyReport CRD installed?): %w", err)
		}
		written[r.GetNamespace()] = true
		fmt.Fprintf(errOut, "%s %s written\n", strings.ToLower(r.GetKind()), client.ObjectKeyFromObject(r))
	}
	if len(opts.tenants) > 0 {
		return nil
	}
	return pruneReports(ctx, errOut, c, written)
}

// pruneReports deletes Landlord's PolicyReports in namespaces a full audit
// wrote none in, such as one its tenant let go: they would show checks of
// a tenant that no longer holds the namespace.
func pruneReports(ctx context.Context, errOut io.Writer, c client.Client, written map[string]bool) error {
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(audit.ReportAPIVersion)
	list.SetKind("PolicyReportList")
	if err := c.List(ctx, list, client.MatchingLabels{"app.kubernetes.io/managed-by": audit.ReportSource}); err != nil {
		return fmt.Errorf("listing the reports: %w", err)
	}
	for i := range list.Items {
		r := &list.Items[i]
		if r.GetName() != audit.ReportName || written[r.GetNamespace()] {
			continue
		}
		if err := c.Delete(ctx, r); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting policyreport %s: %w", client.ObjectKeyFromObject(r), err)
		}
		fmt.Fprintf(errOut, "policyreport %s deleted\n", client.ObjectKeyFromObject(r))
	}
	return nil
}

// tableFormat is writeData's name of text.
func tableFormat(output string) string {
	if output == "text" {
		return "table"
	}
	return output
}

// namespacesByTenant are the namespaces of every tenant, by name.
func namespacesByTenant(ctx context.Context, c client.Client) (map[string][]string, error) {
	list := &v1alpha1.TenantList{}
	if err := c.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing tenants: %w", err)
	}
	out := map[string][]string{}
	for i := range list.Items {
		out[list.Items[i].Name] = tenantNamespaces(&list.Items[i])
	}
	return out, nil
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
