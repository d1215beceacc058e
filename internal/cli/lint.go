package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
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
	maxBuildReads   int
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
  against their CRD's CEL rules; a kind none of them defines (a CRD that
  arrives with a HelmRelease, say) against the JSON schema of the first
  --schema-location holding one, else it is a warning (an error with
  --strict);
- every object of a tenant repository passes Landlord's guard as the
  tenant's reconciler applies it, in the directory each of the tenant's
  clusters syncs, with the tenant's variables substituted. A tenant is a
  Tenant of the fleet, or one made by hand as flux create tenant makes it
  (a namespace, a reconciler service account a RoleBinding there binds, a
  Kustomization syncing a GitRepository of that namespace as the account),
  named by its toolkit.fluxcd.io/tenant label or its account, judged as
  the Tenant landlord tenant import writes for it;
- no Secret is committed without SOPS encryption.

--schema-location takes kubeconform's values, repeatable, tried in order:
default (the schemas above, always used first), a directory laid out as
kubernetes-json-schema (DIR/master-standalone[-strict]/KIND-GROUP-VERSION.json),
or a Go template of a path ending in .json with the variables
{{ .ResourceKind }} (lower case), {{ .ResourceAPIVersion }}, {{ .Group }},
{{ .KindSuffix }}, {{ .StrictSuffix }} (-strict with --strict) and
{{ .NormalizedKubernetesVersion }} (master). Lint runs offline: no URLs.

Output (-o):
  text    FILE:LINE: RULE: MESSAGE, FILE relative to its repository, a
          tenant repository's messages starting with the tenant's name, a
          warning's with "warning: "
  json    a list of {repo, file, line, rule, severity, message}
  sarif   SARIF 2.1.0 for GitHub code scanning: every rule below, each
          finding at its file relative to the checkout (the Git work tree
          lint runs in), a tenant repository outside it under uriBaseId
          TENANT_<name>, a fleet outside it under FLEET
  github  GitHub Actions workflow commands, ::error or ::warning
Exit status 1 when there are findings that are not warnings.

Rules of lint:
` + ruleTable(lintRules()) + `
Rules of the guard (the policy engine):
` + ruleTable(policyRules()),
		Example: `  landlord lint .
  landlord lint ./fleet --tenant-repo dev-team=../dev-team -o json
  landlord lint ./fleet --tenant-repo dev-team/apps=../dev-team-apps
  landlord lint ./fleet -o sarif > lint.sarif
  landlord lint ./fleet --strict --schema-location default --schema-location 'schemas/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json'`,
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
	f.IntVar(&opts.maxBuildReads, "max-build-reads", 0, "file reads one kustomize build may make before lint reports it as too large; 0 allows 10,000 and 50 per file of the repository")
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
	if opts.maxBuildReads < 0 {
		return fmt.Errorf("--max-build-reads %d: want 0 or more", opts.maxBuildReads)
	}
	defer batchGC()()
	findings, err := lint.Lint(cmd.Context(), lint.Options{Dir: opts.dir, TenantRepos: repos, Strict: opts.strict, SchemaLocations: opts.schemaLocations,
		MaxBuildReads: opts.maxBuildReads})
	if errors.Is(err, context.Canceled) {
		return errors.New("lint interrupted before it finished: no verdict")
	}
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

// batchGC lets the collector run less during a lint, until restore: a
// build of a thousand tenants allocates gigabytes of short-lived objects,
// and at Go's default a fifth of lint's CPU went to collecting them. The
// soft limit bounds the memory this costs (a fleet whose live heap passes
// 1 GiB is collected more often than by default). GOGC and GOMEMLIMIT, when
// set, keep their say.
func batchGC() (restore func()) {
	var undo []func()
	if os.Getenv("GOGC") == "" {
		percent := debug.SetGCPercent(400)
		undo = append(undo, func() { debug.SetGCPercent(percent) })
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		limit := debug.SetMemoryLimit(2 << 30)
		undo = append(undo, func() { debug.SetMemoryLimit(limit) })
	}
	return func() {
		for _, f := range undo {
			f()
		}
	}
}
