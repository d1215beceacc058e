package cli_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/landlord-dev/landlord/internal/cli"
)

// TestUnknownSubcommand runs every command that has subcommands with its
// first subcommand misspelt, two letters swapped, as a typo in a CI script
// would: it must fail, naming the subcommand meant. The groups are found by
// walking the tree, so a new one is held too. Run alone, a group prints its
// help and succeeds, as kubectl's do.
func TestUnknownSubcommand(t *testing.T) {
	root := cli.NewRootCommand()
	// cobra adds its completion command, itself a group, when it executes.
	root.InitDefaultCompletionCmd()
	groups := map[string]*cobra.Command{}
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		if cmd.HasAvailableSubCommands() {
			groups[cmd.CommandPath()] = cmd
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if len(groups) < 5 {
		t.Fatalf("found the groups %v; the walk missed some", keys(groups))
	}
	for path, group := range groups {
		t.Run(path, func(t *testing.T) {
			words := strings.Fields(path)[1:]
			want := firstSubcommand(group)
			typo := swapTwoLetters(want)

			var out, errOut bytes.Buffer
			code := cli.Execute(append(words, typo), &out, &errOut)
			if code != 1 || !strings.Contains(errOut.String(), "Did you mean this?\n\t"+want+"\n") || out.Len() > 0 {
				t.Errorf("%s %s: exit %d\nstderr: %s\nstdout: %.200s\nwant exit 1, a suggestion of %q on stderr, nothing on stdout",
					path, typo, code, errOut.String(), out.String(), want)
			}
			if !strings.Contains(errOut.String(), `unknown command "`+typo+`" for "`+path+`"`) {
				t.Errorf("%s %s: stderr %q does not name the unknown command", path, typo, errOut.String())
			}

			out.Reset()
			errOut.Reset()
			if code := cli.Execute(words, &out, &errOut); code != 0 || !strings.Contains(out.String(), "Available Commands:") {
				t.Errorf("%s: exit %d\nstdout: %.200s\nstderr: %s\nwant its help and exit 0", path, code, out.String(), errOut.String())
			}
		})
	}
}

// firstSubcommand names the first subcommand a user sees in cmd's help.
func firstSubcommand(cmd *cobra.Command) string {
	for _, sub := range cmd.Commands() {
		if sub.IsAvailableCommand() && sub.Name() != "help" {
			return sub.Name()
		}
	}
	return ""
}

// swapTwoLetters swaps the first two adjacent letters that differ, a typo
// one keystroke away.
func swapTwoLetters(name string) string {
	b := []byte(name)
	for i := 0; i+1 < len(b); i++ {
		if b[i] != b[i+1] {
			b[i], b[i+1] = b[i+1], b[i]
			break
		}
	}
	return string(b)
}

func keys(m map[string]*cobra.Command) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
