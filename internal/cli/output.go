package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
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

// objectFormats are the values of -o on commands that print Tenants, as
// kubectl get takes them: jsonpath= is followed by a template.
var objectFormats = []string{"table", "wide", "yaml", "json", "name", "jsonpath="}

// addObjectOutputFlag registers -o/--output for a command printing Tenants.
func addObjectOutputFlag(cmd *cobra.Command, format *string) {
	cmd.Flags().StringVarP(format, "output", "o", "table", "output format: table, wide, yaml, json, name or jsonpath=TEMPLATE (kubectl's JSONPath)")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(objectFormats, cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveNoSpace))
}

// objectPrinter is kubectl's printer of -o name or jsonpath=, nil for the
// formats writeData prints; a template that does not parse is refused
// before the cluster is asked anything.
func objectPrinter(format string) (printers.ResourcePrinter, error) {
	switch {
	case format == "name":
		return &printers.NamePrinter{}, nil
	case strings.HasPrefix(format, "jsonpath="):
		p, err := printers.NewJSONPathPrinter(strings.TrimPrefix(format, "jsonpath="))
		if err != nil {
			return nil, fmt.Errorf("--output %s: %w", format, err)
		}
		// kubectl's default: a field one object lacks prints nothing.
		p.AllowMissingKeys(true)
		return p, nil
	case format == "wide" || slices.Contains(outputFormats, format):
		return nil, nil
	}
	return nil, fmt.Errorf("--output %q: want one of %s", format, strings.Join(objectFormats, ", "))
}

// writeObject prints obj as format says; table is told whether -o wide
// asked for more columns.
func writeObject(w io.Writer, format string, obj runtime.Object, table func(tw io.Writer, wide bool)) error {
	p, err := objectPrinter(format)
	if err != nil {
		return err
	}
	if _, byName := p.(*printers.NamePrinter); byName && meta.IsListType(obj) {
		// kubectl flattens a list for it, which takes one object at a time.
		items, err := meta.ExtractList(obj)
		if err != nil {
			return err
		}
		for _, item := range items {
			if err := p.PrintObj(item, w); err != nil {
				return err
			}
		}
		return nil
	}
	if p != nil {
		return p.PrintObj(obj, w)
	}
	if format == "wide" {
		return writeData(w, "table", obj, func(tw io.Writer) { table(tw, true) })
	}
	return writeData(w, format, obj, func(tw io.Writer) { table(tw, false) })
}

// Values of --dry-run, as kubectl names them; client is what --export does.
const (
	dryRunNone   = "none"
	dryRunServer = "server"
)

// addDryRunFlag registers --dry-run on a command that writes to the cluster.
func addDryRunFlag(cmd *cobra.Command, mode *string) {
	cmd.Flags().StringVar(mode, "dry-run", dryRunNone, "server: send every write with dryRun=All, so that the API server, its admission and Landlord's guard judge it and nothing is stored; none: write")
	_ = cmd.RegisterFlagCompletionFunc("dry-run", cobra.FixedCompletions([]string{dryRunNone, dryRunServer}, cobra.ShellCompDirectiveNoFileComp))
}

// checkDryRun refuses a --dry-run mode that is not one, before anything
// else is said about it.
func checkDryRun(mode string) error {
	_, err := dryRun(mode, false)
	return err
}

// dryRun checks --dry-run and says whether it asks for a server dry run;
// waiting for what a dry run never stores would never end.
func dryRun(mode string, wait bool) (bool, error) {
	switch {
	case mode == dryRunNone:
		return false, nil
	case mode != dryRunServer:
		return false, fmt.Errorf("--dry-run %q: want %s or %s (--export prints what would be sent)", mode, dryRunNone, dryRunServer)
	case wait:
		return false, errors.New("--wait waits for what --dry-run=server does not store: use one or the other")
	}
	return true, nil
}
