package cli

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/landlord-dev/landlord/internal/lint"
	"github.com/landlord-dev/landlord/internal/policy"
)

type lintOptions struct {
	dir             string
	tenantRepos     []string
	output          string
	strict          bool
	schemaLocations []string
}

func newLintCommand(run func(*cobra.Command, lintOptions) error) *cobra.Command {
	opts := lintOptions{}
	cmd := &cobra.Command{
		Use:   "lint [DIR]",
		Short: "Check a fleet repository and tenant repositories offline, for CI",
		Long: `Check the fleet repository in DIR (default .) and, with --tenant-repo, the
repositories of its tenants, without a cluster:

- every kustomization builds, as Flux builds it (no remote bases, nothing
  outside the repository, no plugins);
- every object is valid against the OpenAPI schema the apiserver serves for
  it: built-in kinds of Kubernetes, Flux's and Landlord's CRDs, and the CRDs
  the fleet itself installs; custom resources, Tenants among them, also
  against their CRD's CEL rules;
- every object of a tenant repository passes Landlord's guard as the
  tenant's reconciler applies it, in the directory each of the tenant's
  clusters syncs, with the tenant's variables substituted;
- no Secret is committed without SOPS encryption.

Each finding prints as FILE:LINE: RULE: MESSAGE, FILE relative to its
repository; a tenant repository's messages start with the tenant's name.
-o json prints a list of {file, line, rule, message} objects, with repo
naming the tenant for a tenant repository's. Exit status 1 when there are
findings.

Rules of lint:
` + ruleTable(lintRules()) + `
Rules of the guard (the policy engine):
` + ruleTable(policyRules()),
		Example: `  landlord lint .
  landlord lint ./fleet --tenant-repo dev-team=../dev-team -o json
  landlord lint ./fleet --tenant-repo dev-team/apps=../dev-team-apps`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = "."
			if len(args) == 1 {
				opts.dir = args[0]
			}
			return run(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&opts.tenantRepos, "tenant-repo", nil, "a tenant's repository as TENANT=DIR, or TENANT/SOURCE=DIR for one of several Git sources (repeatable)")
	f.StringVarP(&opts.output, "output", "o", "text", "output format: text, json, sarif or github")
	f.BoolVar(&opts.strict, "strict", false, "a kind without a schema is an error, not a warning")
	f.StringArrayVar(&opts.schemaLocations, "schema-location", nil,
		"where to find JSON schemas of kinds lint has none of, as kubeconform's: default, a directory, or a template such as 'schemas/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json' (repeatable)")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(lintOutputs, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// rule is one row of the rule tables in the help.
type rule struct{ id, name, reason string }

func lintRules() []rule {
	rules := make([]rule, 0, len(lint.Rules))
	for _, r := range lint.Rules {
		rules = append(rules, rule{r.ID, r.Name, r.Reason})
	}
	return rules
}

func policyRules() []rule {
	rules := make([]rule, 0, len(policy.Rules))
	for _, r := range policy.Rules {
		rules = append(rules, rule{r.ID, r.Name, r.Reason})
	}
	return rules
}

// ruleTable lists rules one a line: id, name and why.
func ruleTable(rules []rule) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, r := range rules {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", r.id, r.name, r.reason)
	}
	_ = tw.Flush()
	return b.String()
}

// parseTenantRepos reads TENANT[/SOURCE]=DIR flags.
func parseTenantRepos(values []string) ([]lint.TenantRepo, error) {
	var repos []lint.TenantRepo
	for _, v := range values {
		name, dir, ok := strings.Cut(v, "=")
		tenant, source, _ := strings.Cut(name, "/")
		if !ok || tenant == "" || dir == "" {
			return nil, fmt.Errorf("--tenant-repo %q: want TENANT=DIR or TENANT/SOURCE=DIR, such as dev-team=../dev-team", v)
		}
		repos = append(repos, lint.TenantRepo{Tenant: tenant, Source: source, Dir: dir})
	}
	return repos, nil
}

func runLint(cmd *cobra.Command, opts lintOptions) error {
	if !slices.Contains(lintOutputs, opts.output) {
		return fmt.Errorf("--output %q: want one of %s", opts.output, strings.Join(lintOutputs, ", "))
	}
	repos, err := parseTenantRepos(opts.tenantRepos)
	if err != nil {
		return err
	}
	places, err := newFindingPlaces(opts.dir, repos)
	if err != nil {
		return err
	}
	findings, err := lint.Lint(cmd.Context(), lint.Options{Dir: opts.dir, TenantRepos: repos, Strict: opts.strict, SchemaLocations: opts.schemaLocations})
	if err != nil {
		return err
	}
	if err := writeFindings(cmd.OutOrStdout(), opts.output, findings, places); err != nil {
		return err
	}
	errs := 0
	for _, f := range findings {
		if f.Severity != lint.SeverityWarning {
			errs++
		}
	}
	if errs > 0 {
		return fmt.Errorf("lint: %d findings", errs)
	}
	return nil
}
