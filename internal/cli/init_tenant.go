package cli

import (
	"github.com/spf13/cobra"

	"github.com/landlord-dev/landlord/internal/fleet"
)

func newInitTenantCommand(run func(cmd *cobra.Command, dir string) error) *cobra.Command {
	return &cobra.Command{
		Use:   "tenant DIR",
		Short: "Scaffold a tenant repository with staging and production overlays",
		Long: `Write a tenant repository to DIR: a base with an example HelmRepository and
HelmRelease (podinfo), and staging and production overlays patching the
chart version (staging tracks pre-releases) and values.

Files already there and identical are left alone; different ones are not
overwritten.`,
		Example: "  landlord init tenant ./dev-team",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd, args[0])
		},
	}
}

func runInitTenant(cmd *cobra.Command, dir string) error {
	changes, err := fleet.InitTenantRepo(dir)
	if err != nil {
		return err
	}
	printChanges(cmd.OutOrStdout(), changes)
	return nil
}
