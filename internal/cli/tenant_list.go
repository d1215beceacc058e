package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/dashboard"
)

type tenantListOptions struct {
	kube   kubeFlags
	output string
}

func newTenantListCommand(kube kubeFlags, run func(*cobra.Command, tenantListOptions) error) *cobra.Command {
	opts := tenantListOptions{kube: kube}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the tenants with their namespaces, readiness and revision",
		Long: `List the cluster's Tenants: their namespaces, the status and message of
their Ready condition, the revisions Flux applied of their sources and their
age; -o wide adds their owners and sources' URLs. -o yaml or json prints the
Tenants themselves, -o name their names as kubectl does, -o jsonpath= what a
kubectl JSONPath template selects.`,
		Example: `  landlord tenant list
  landlord tenant list -o wide
  landlord tenant list -o json
  landlord tenant list -o jsonpath='{range .items[*]}{.metadata.name}{"\t"}{.status.namespaces[*].name}{"\n"}{end}'`,
		Args:              cobra.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd, opts)
		},
	}
	addObjectOutputFlag(cmd, &opts.output)
	return cmd
}

func runTenantList(cmd *cobra.Command, opts tenantListOptions) error {
	if _, err := objectPrinter(opts.output); err != nil {
		return err
	}
	c, err := opts.kube.client()
	if err != nil {
		return err
	}
	list := &v1alpha1.TenantList{}
	if err := c.List(cmd.Context(), list); apierrors.IsForbidden(err) {
		// A tenant's owner may get its Tenant by name, not list them all.
		if list.Items, err = dashboard.OwnTenants(cmd.Context(), c); err != nil {
			return err
		}
	} else if err != nil {
		return tenantError(err, "")
	}
	if (opts.output == "table" || opts.output == "wide") && len(list.Items) == 0 {
		// As kubectl does: stdout stays empty, stderr tells the human.
		fmt.Fprintln(cmd.ErrOrStderr(), "no tenants found")
		return nil
	}
	list.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("TenantList"))
	for i := range list.Items {
		forOutput(&list.Items[i])
	}
	now := time.Now()
	return writeObject(cmd.OutOrStdout(), opts.output, list, func(tw io.Writer, wide bool) {
		fmt.Fprintln(tw, tenantHeader(wide))
		for i := range list.Items {
			fmt.Fprintln(tw, tenantRow(&list.Items[i], now, wide))
		}
	})
}

// tenantHeader heads the rows of list and get; wide adds owners and sources.
func tenantHeader(wide bool) string {
	header := "NAME\tNAMESPACES\tREADY\tREVISION\tMESSAGE\tAGE"
	if wide {
		header += "\tOWNERS\tSOURCES"
	}
	return header
}

// tenantRow is a Tenant's line in list and get, read as 'flux get ks' is:
// its Ready condition as recorded, or while it is deleted the finalizer's
// progress.
func tenantRow(t *v1alpha1.Tenant, now time.Time, wide bool) string {
	namespaces := make([]string, 0, len(t.Status.Namespaces))
	for _, ns := range t.Status.Namespaces {
		namespaces = append(namespaces, ns.Name)
	}
	var revisions []string
	for _, src := range t.Status.Sources {
		if src.Revision != "" {
			revisions = append(revisions, src.Revision)
		}
	}
	status, message := "Unknown", "not reconciled yet by the Landlord controller"
	if ready := apimeta.FindStatusCondition(t.Status.Conditions, v1alpha1.ReadyCondition); ready != nil {
		status, message = string(ready.Status), ready.Message
	}
	if !t.DeletionTimestamp.IsZero() {
		message = "deleting"
		if rec := apimeta.FindStatusCondition(t.Status.Conditions, v1alpha1.ReconcilingCondition); rec != nil && rec.Reason == v1alpha1.FinalizingReason {
			message = "deleting: " + rec.Message
		}
	}
	cells := []string{
		t.Name, orNone(strings.Join(namespaces, ",")), status, orNone(strings.Join(revisions, ",")),
		oneLine(message), age(t.CreationTimestamp.Time, now),
	}
	if wide {
		owners := make([]string, len(t.Spec.Owners))
		for i, o := range t.Spec.Owners {
			owners[i] = o.Kind + ":" + o.Name
			if o.Namespace != "" {
				owners[i] = o.Kind + ":" + o.Namespace + "/" + o.Name
			}
		}
		var sources []string
		for _, src := range t.Spec.Sources {
			if src.Git != nil {
				sources = append(sources, src.Git.URL)
			} else {
				sources = append(sources, src.Name)
			}
		}
		cells = append(cells, orNone(strings.Join(owners, ",")), orNone(strings.Join(sources, ",")))
	}
	return strings.Join(cells, "\t")
}

// forOutput readies a Tenant read from the API for -o yaml|json: the typed
// client drops its kind, and kubectl hides managed fields too.
func forOutput(t *v1alpha1.Tenant) {
	t.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind("Tenant"))
	t.ManagedFields = nil
}

// age is how long ago then was, as kubectl's AGE column says it.
func age(then, now time.Time) string {
	if then.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(then))
}

// orNone keeps an empty cell visible, as kubectl's <none>.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// oneLine keeps a message with line breaks or tabs from breaking the table.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
