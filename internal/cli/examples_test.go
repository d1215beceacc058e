package cli_test

import (
	"strings"
	"testing"

	"github.com/google/shlex"
	"github.com/spf13/cobra"

	"github.com/landlord-dev/landlord/internal/cli"
)

// TestHelpExamplesParse: every example in --help names the command it is
// the example of, with flags and arguments that command accepts, so that
// a user copying one gets it run, not a usage error.
func TestHelpExamplesParse(t *testing.T) {
	var walk func(cmd *cobra.Command)
	count := 0
	walk = func(cmd *cobra.Command) {
		for _, line := range exampleLines(cmd.Example) {
			count++
			args := exampleArgs(t, line)
			root := cli.NewRootCommand()
			found, rest, err := root.Find(args)
			if err != nil || found.CommandPath() != cmd.CommandPath() {
				t.Errorf("%s: example %q runs %q (%v)", cmd.CommandPath(), line, found.CommandPath(), err)
				continue
			}
			if err := found.ParseFlags(rest); err != nil {
				t.Errorf("%s: example %q: %v", cmd.CommandPath(), line, err)
				continue
			}
			if err := found.ValidateArgs(found.Flags().Args()); err != nil {
				t.Errorf("%s: example %q: %v", cmd.CommandPath(), line, err)
			}
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(cli.NewRootCommand())
	t.Logf("%d examples parse", count)
	if count < 20 {
		t.Errorf("found %d examples, want the 20 or more the commands give", count)
	}
}

// exampleLines are the example's command lines, continuations joined.
func exampleLines(example string) []string {
	var lines []string
	var current strings.Builder
	for _, line := range strings.Split(example, "\n") {
		line = strings.TrimSpace(line)
		if cont, ok := strings.CutSuffix(line, "\\"); ok {
			current.WriteString(cont + " ")
			continue
		}
		current.WriteString(line)
		if s := strings.TrimSpace(current.String()); strings.Contains(s, "landlord ") {
			lines = append(lines, s)
		}
		current.Reset()
	}
	return lines
}

// exampleArgs are the arguments landlord gets in a shell line: the piped
// command that runs landlord, up to a redirection; comments dropped.
func exampleArgs(t *testing.T, line string) []string {
	t.Helper()
	for _, segment := range unquoted(line, '|') {
		command := unquoted(segment, '>')[0]
		words, err := shlex.Split(command)
		if err != nil {
			t.Fatalf("example %q: %v", line, err)
		}
		if len(words) > 0 && words[0] == "landlord" {
			return words[1:]
		}
	}
	t.Fatalf("example %q does not run landlord", line)
	return nil
}

// unquoted splits s at each sep outside quotes.
func unquoted(s string, sep rune) []string {
	var parts []string
	var quote rune
	start := 0
	for i, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '\'' || r == '"'):
			quote = r
		case quote == 0 && r == sep:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}
