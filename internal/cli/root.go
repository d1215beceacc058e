// Package cli holds the landlord commands, one file per verb-noun.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"strings"
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
	// cobra adds its completion command, a group too, when it executes; added
	// here, after SetOut, since its scripts go to the output set when it is.
	root.InitDefaultCompletionCmd(args...)
	requireKnownSubcommands(root)
	err := root.ExecuteContext(ctx)
	var exit *exitError
	switch {
	case errors.As(err, &exit) && exit.err == nil:
		return exit.code
	case errors.As(err, &exit):
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exit.code
	case err != nil:
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
	root.AddCommand(newDevCommand(), newInitCommand(), newTenantCommand(kube), newSecretCommand(kube), newInstallCommand(kube), newAuditCommand(kube), newLintCommand(runLint), newDiffCommand(kube, runDiff), newDashboardCommand(kube, runDashboard), newVersionCommand())
	requireKnownSubcommands(root)
	return root
}

// requireKnownSubcommands makes every command with subcommands refuse an
// argument that names none of them, suggesting the closest, as cobra does for
// the root only: elsewhere it prints the group's help and succeeds, so a typo
// in a script (landlord tenant lst) would pass. Run alone, a group still
// prints its help, as kubectl's do.
func requireKnownSubcommands(cmd *cobra.Command) {
	if cmd.HasSubCommands() && cmd.Run == nil && cmd.RunE == nil {
		cmd.Args = knownSubcommand
		// ValidateArgs runs only for a command that runs.
		cmd.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		// cobra's default for the root's suggestions, which SuggestionsFor
		// does not apply itself.
		cmd.SuggestionsMinimumDistance = 2
		if cmd.ValidArgsFunction == nil {
			cmd.ValidArgsFunction = cobra.NoFileCompletions
		}
	}
	for _, sub := range cmd.Commands() {
		requireKnownSubcommands(sub)
	}
}

// knownSubcommand refuses any argument to a group, in the words cobra uses
// for an unknown command at the root.
func knownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var msg strings.Builder
	fmt.Fprintf(&msg, "unknown command %q for %q", args[0], cmd.CommandPath())
	if suggestions := cmd.SuggestionsFor(args[0]); len(suggestions) > 0 {
		msg.WriteString("\n\nDid you mean this?\n")
		for _, s := range suggestions {
			fmt.Fprintf(&msg, "\t%s\n", s)
		}
	}
	return errors.New(msg.String())
}
