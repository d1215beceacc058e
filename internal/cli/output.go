package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// outputFormats are the values of -o on commands whose output is data.
var outputFormats = []string{"table", "yaml", "json"}

// addOutputFlag registers -o/--output with completion of its values.
func addOutputFlag(cmd *cobra.Command, format *string) {
	cmd.Flags().StringVarP(format, "output", "o", "table", "output format: table, yaml or json")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(outputFormats, cobra.ShellCompDirectiveNoFileComp))
}

// checkOutput refuses a bad -o before the cluster is asked anything.
func checkOutput(format string) error {
	if !slices.Contains(outputFormats, format) {
		return fmt.Errorf("--output %q: want one of %s", format, strings.Join(outputFormats, ", "))
	}
	return nil
}

// writeData prints data as YAML or JSON, or calls table with a tab writer
// flushed afterwards.
func writeData(w io.Writer, format string, data any, table func(tw io.Writer)) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(data)
	case "yaml":
		out, err := yaml.Marshal(data)
		if err != nil {
			return err
		}
		_, err = w.Write(out)
		return err
	case "table":
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		table(tw)
		return tw.Flush()
	}
	return checkOutput(format)
}
