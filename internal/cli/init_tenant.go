package cli

import (
	"github.com/spf13/cobra"

	"github.com/landlord-dev/landlord/internal/fleet"
)

func newInitTenantCommand(run func(cmd *cobra.Command, dir string, chart fleet.Chart) error) *cobra.Command {
	chart := fleet.Podinfo
	cmd := &cobra.Command{
		Use:   "tenant DIR",
		Short: "Scaffold a tenant repository with staging and production overlays",
		Long: `Write a tenant repository to DIR: a base with an example HelmRepository and
HelmRelease (podinfo unless --chart says otherwise), and staging and
production overlays patching the chart version (staging also takes
pre-releases) and values.

Files already there and identical are left alone; different ones are not
overwritten.`,
		Example: `  landlord init tenant ./dev-team
  landlord init tenant ./dev-team --chart hello --chart-url https://charts.example.com --chart-version '>=0.1.0'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(cmd, args[0], chart)
		},
	}
	cmd.Flags().StringVar(&chart.Name, "chart", chart.Name, "chart of the example HelmRelease")
	cmd.Flags().StringVar(&chart.RepositoryURL, "chart-url", chart.RepositoryURL, "Helm repository serving --chart")
	cmd.Flags().StringVar(&chart.Version, "chart-version", chart.Version, "semver range production installs; staging also takes its pre-releases")
	return cmd
}

func runInitTenant(cmd *cobra.Command, dir string, chart fleet.Chart) error {
	changes, err := fleet.InitTenantRepo(dir, chart)
	if err != nil {
		return err
	}
	printChanges(cmd.OutOrStdout(), changes)
	return nil
}
