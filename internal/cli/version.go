package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/landlord-dev/landlord/internal/version"
)

func newVersionCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print landlord's version",
		Long: `Print the version landlord was built as (its release tag, or dev), the
commit it was built from, and Go's version and platform. The controller
reports the same with landlord-controller --version.`,
		Args:              cobra.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(format); err != nil {
				return err
			}
			info := version.Get()
			return writeData(cmd.OutOrStdout(), format, info, func(w io.Writer) {
				fmt.Fprintf(w, "landlord %s\n", info)
			})
		},
	}
	addOutputFlag(cmd, &format)
	return cmd
}
