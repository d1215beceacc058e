package cli

import "github.com/spf13/cobra"

func newSecretCommand(kube kubeFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "secret",
		Short: "Create tenants' credential Secrets, SOPS-encrypted for a fleet repository",
	}
	cmd.AddCommand(newSecretGitCommand(kube))
	return cmd
}
