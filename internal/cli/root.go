// Package cli holds the landlord commands, one file per verb-noun.
package cli

import (
	"context"
	"fmt"
	"io"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// Execute runs the landlord command line and returns the exit code.
func Execute(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	root := NewRootCommand()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	return 0
}

// NewRootCommand builds the landlord command tree.
func NewRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "landlord",
		Short:         "Multi-tenancy for Flux GitOps",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	kube := newKubeFlags()
	kube.AddFlags(root.PersistentFlags())
	root.AddCommand(newDevCommand(), newInitCommand(), newTenantCommand(kube), newSecretCommand(kube), newInstallCommand(kube), newAuditCommand(kube), newLintCommand(runLint), newDashboardCommand(kube, runDashboard), newVersionCommand())
	return root
}
