package cli

import (
	"github.com/spf13/cobra"

	"github.com/landlord-dev/landlord/internal/fleet"
)

type initFleetOptions struct {
	dir      string
	clusters []string
}

func newInitFleetCommand(run func(*cobra.Command, initFleetOptions) error) *cobra.Command {
	opts := initFleetOptions{}
	cmd := &cobra.Command{
		Use:   "fleet DIR",
		Short: "Scaffold a fleet repository for Flux and Landlord",
		Long: `Write a fleet repository to DIR: per cluster the Flux Kustomizations that
apply the infrastructure (Landlord's CRD) and then the cluster's tenants, a
kustomize component locking Flux down for multi-tenancy, and an empty tenants
tree for 'landlord tenant create --export --fleet DIR'.

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
	return cmd
}

func runInitFleet(cmd *cobra.Command, opts initFleetOptions) error {
	changes, err := fleet.InitFleet(opts.dir, opts.clusters)
	if err != nil {
		return err
	}
	printChanges(cmd.OutOrStdout(), changes)
	return nil
}
