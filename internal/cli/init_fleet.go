package cli

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/landlord-dev/landlord/internal/fleet"
	"github.com/landlord-dev/landlord/internal/fluxoperator"
)

type initFleetOptions struct {
	dir      string
	clusters []string
	install  string
	// chart is what --install helm installs.
	chart fleet.Chart
	// chartSet says --chart-repository, --chart-version or --chart-verify
	// was given.
	chartSet bool
	// fluxOperator scaffolds a FluxInstance syncing from gitURL's branch.
	fluxOperator bool
	gitURL       string
	branch       string
}

func newInitFleetCommand(run func(*cobra.Command, initFleetOptions) error) *cobra.Command {
	opts := initFleetOptions{}
	cmd := &cobra.Command{
		Use:   "fleet DIR",
		Short: "Scaffold a fleet repository for Flux and Landlord",
		Long: `Write a fleet repository to DIR: per cluster the Flux Kustomizations that
apply the infrastructure (Landlord: its CRD, RBAC, controller and webhooks)
and, once it is ready, the cluster's tenants; a kustomize component locking
Flux down for multi-tenancy; and an empty tenants tree for 'landlord tenant
create --export --fleet DIR'. --install crd puts only Landlord's CRDs in the
infrastructure, for a controller running outside the cluster. --install helm
installs Landlord's Helm chart instead of its manifests: the landlord-system
Namespace, a Flux HelmRelease in flux-system (CRDs created on install,
replaced on upgrade) and its source, an OCIRepository for an oci://
--chart-repository or a HelmRepository for an https:// one. The
OCIRepository verifies the chart's keyless cosign signature by Landlord's
release workflow; a mirror copied with 'cosign copy' keeps it, and
--chart-verify=false installs a chart nobody signed (an https:// repository
cannot be verified by Flux).

--flux-operator is for clusters whose Flux the Flux Operator installs: each
cluster gets a FluxInstance (clusters/CLUSTER/flux-system/flux-instance.yaml)
installing Flux locked down through the operator's own multi-tenancy
settings and syncing the cluster's directory from --git-url, instead of the
lockdown component, which patches Deployments the operator would revert.

Files already there and identical are left alone; different ones are not
overwritten.`,
		Example: `  landlord init fleet ./fleet --clusters staging,production
  landlord init fleet ./fleet --install helm --chart-repository oci://registry.example.com/charts
  landlord init fleet ./fleet --flux-operator --git-url ssh://git@github.com/org/fleet.git`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = args[0]
			opts.chartSet = cmd.Flags().Changed("chart-repository") || cmd.Flags().Changed("chart-version") || cmd.Flags().Changed("chart-verify")
			// Only Landlord's own repository is verified unless asked: a
			// chart served over https cannot be.
			if !cmd.Flags().Changed("chart-verify") && strings.HasPrefix(opts.chart.RepositoryURL, "https://") {
				opts.chart.Verify = false
			}
			return run(cmd, opts)
		},
	}
	cmd.Flags().StringSliceVar(&opts.clusters, "clusters", fleet.DefaultClusters, "clusters (environments) of the fleet")
	cmd.Flags().StringVar(&opts.install, "install", string(fleet.FullInstall), "what the infrastructure installs of Landlord: full, crd for a controller outside the cluster, or helm for the chart through a HelmRelease")
	_ = cmd.RegisterFlagCompletionFunc("install", cobra.FixedCompletions([]string{string(fleet.FullInstall), string(fleet.CRDOnly), string(fleet.HelmInstall)}, cobra.ShellCompDirectiveNoFileComp))
	// The defaults are the chart this binary was released with; an
	// unreadable Chart.yaml leaves them empty, and --install helm says why.
	if chart, err := fleet.LandlordChart(); err == nil {
		opts.chart = chart
	}
	cmd.Flags().StringVar(&opts.chart.RepositoryURL, "chart-repository", opts.chart.RepositoryURL, "with --install helm: the chart's repository, oci://… or https://…")
	cmd.Flags().StringVar(&opts.chart.Version, "chart-version", opts.chart.Version, "with --install helm: the chart's version")
	cmd.Flags().BoolVar(&opts.chart.Verify, "chart-verify", true, "with --install helm: Flux verifies the chart's signature by Landlord's release workflow (oci:// only)")
	cmd.Flags().BoolVar(&opts.fluxOperator, "flux-operator", false, "scaffold a Flux Operator FluxInstance per cluster, locked down, instead of the lockdown component for flux bootstrap")
	cmd.Flags().StringVar(&opts.gitURL, "git-url", "", "with --flux-operator: the fleet repository the FluxInstance syncs (http, https or ssh URL)")
	cmd.Flags().StringVar(&opts.branch, "branch", "main", "with --flux-operator: the branch the FluxInstance syncs")
	return cmd
}

func runInitFleet(cmd *cobra.Command, opts initFleetOptions) error {
	if opts.chartSet && fleet.Install(opts.install) != fleet.HelmInstall {
		return errors.New("--chart-repository, --chart-version and --chart-verify need --install helm")
	}
	fleetOpts := fleet.FleetOptions{Clusters: opts.clusters, Install: fleet.Install(opts.install), Chart: opts.chart}
	switch {
	case opts.fluxOperator && opts.gitURL == "":
		return errors.New("--flux-operator needs --git-url: the FluxInstance syncs each cluster's directory from the fleet repository")
	case !opts.fluxOperator && (opts.gitURL != "" || cmd.Flags().Changed("branch")):
		return errors.New("--git-url and --branch need --flux-operator: with flux bootstrap, bootstrap sets the fleet's source")
	case opts.fluxOperator:
		if err := checkGitURL(opts.gitURL); err != nil {
			return err
		}
		fleetOpts.FluxOperator = fluxoperator.Sync{URL: opts.gitURL, Branch: opts.branch}
	}
	changes, err := fleet.InitFleetWith(opts.dir, fleetOpts)
	if err != nil {
		return err
	}
	printChanges(cmd.OutOrStdout(), changes)
	return nil
}
