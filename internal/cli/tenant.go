package cli

import "github.com/spf13/cobra"

func newTenantCommand(kube kubeFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tenant",
		Short: "Create, list, inspect and delete tenants",
	}
	cmd.AddCommand(newTenantCreateCommand(runTenantCreate))
	return cmd
}
