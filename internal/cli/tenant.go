package cli

import "github.com/spf13/cobra"

func newTenantCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tenant",
		Short: "Create tenants the GitOps way",
	}
	cmd.AddCommand(newTenantCreateCommand(runTenantCreate))
	return cmd
}
