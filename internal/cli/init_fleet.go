package cli

import (
	"github.com/spf13/cobra"

	"github.com/landlord-dev/landlord/internal/fleet"
)

type initFleetOptions struct {
	dir      string
	clusters []string
	install  string
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
create --export --fleet DIR'. --install crd puts only the Tenant CRD in the
infrastructure, for a controller running outside the cluster.

Files already there and identical are left alone; different ones are not
overwritten.`,
		Example: "  landlord init fleet ./fleet --clusters staging,production",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = args[0]
			return run(cmd, opts)
		},
	}
	cmd.Flags().StringSliceVar(&opts.clusters, "clusters", fleet.DefaultClusters, "clusters (environments) of the fleet")
	cmd.Flags().StringVar(&opts.install, "install", string(fleet.FullInstall), "what the infrastructure installs of Landlord: full, or crd for a controller outside the cluster")
	_ = cmd.RegisterFlagCompletionFunc("install", cobra.FixedCompletions([]string{string(fleet.FullInstall), string(fleet.CRDOnly)}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runInitFleet(cmd *cobra.Command, opts initFleetOptions) error {
	changes, err := fleet.InitFleet(opts.dir, opts.clusters, fleet.Install(opts.install))
	if err != nil {
		return err
	}
	printChanges(cmd.OutOrStdout(), changes)
	return nil
}
