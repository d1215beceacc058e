package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/landlord-dev/landlord/internal/fleet"
)

func newInitCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Scaffold fleet and tenant repositories",
	}
	cmd.AddCommand(newInitFleetCommand(runInitFleet), newInitTenantCommand(runInitTenant))
	return cmd
}

// printChanges lists what a scaffold wrote, one file a line.
func printChanges(w io.Writer, changes []fleet.Change) {
	for _, c := range changes {
		if c.Note != "" {
			fmt.Fprintf(w, "%s %s: %s\n", c.Action, c.Path, c.Note)
			continue
		}
		fmt.Fprintf(w, "%s %s\n", c.Action, c.Path)
	}
}
