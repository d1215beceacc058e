package cli

import "github.com/spf13/cobra"

func newDevCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run Landlord locally on an embedded control plane",
	}
	cmd.AddCommand(newDevUpCommand(runDevUp))
	return cmd
}
