// Package lint checks a fleet repository and its tenants' repositories
// offline, for CI: it builds them the way Flux does, validates every object
// the way the apiserver does, and judges every tenant object with the
// policy engine the way Landlord's guard does when the tenant's reconciler
// applies it.
package lint

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/landlord-dev/landlord/internal/apivalidation"
)

// Rule is one kind of finding lint reports besides the policy engine's
// LL rules. Ids are stable: CI configurations and suppressions name them.
type Rule struct {
	ID     string
	Name   string
	Reason string
}

// The rules of lint itself, in id order.
var (
	RuleBuild          = Rule{"LINT001", "build-error", "Flux cannot build a kustomization that kustomize cannot build"}
	RuleSchema         = Rule{"LINT002", "schema", "the apiserver refuses, or silently drops, what its OpenAPI schema does not allow"}
	RuleValidationRule = Rule{"LINT003", "validation-rule", "the apiserver refuses a custom resource that fails its CRD's x-kubernetes-validations (CEL) rules"}
	RuleUnknownKind    = Rule{"LINT004", "unknown-kind", "no built-in kind, Flux or Landlord CRD, CRD in the fleet, nor --schema-location defines this apiVersion and kind: lint cannot judge it (a warning unless --strict)"}
	RuleRemoteBase     = Rule{"LINT005", "remote-base", "Flux runs with --no-remote-bases: a URL in a kustomization fails the build, and would pull content nobody reviewed"}
	RulePathEscape     = Rule{"LINT006", "path-escape", "Flux builds in a checkout of the repository alone: a path leaving it fails the build"}
	RuleSecret         = Rule{"LINT007", "unencrypted-secret", "a Secret committed without SOPS metadata is readable by anyone who can read the repository"}
	RuleNamespace      = Rule{"LINT008", "tenant-namespace", "the tenant's reconciler may write only in the tenant's namespaces"}
	RuleSourcePath     = Rule{"LINT009", "source-path", "Flux fails a Kustomization whose path does not exist in its repository"}
	RuleFluxLockdown   = Rule{"LINT010", "flux-lockdown", "a FluxInstance without Flux's multi-tenancy lockdown lets a tenant's Kustomization reach other namespaces and apply as the controller: the Flux Operator renders Flux as the instance says"}
)

// Rules lists lint's own rules in id order.
var Rules = []Rule{RuleBuild, RuleSchema, RuleValidationRule, RuleUnknownKind, RuleRemoteBase, RulePathEscape, RuleSecret, RuleNamespace, RuleSourcePath, RuleFluxLockdown}

// Options say what to lint.
type Options struct {
	// Dir is the fleet repository.
	Dir string
	// TenantRepos are tenants' own repositories.
	TenantRepos []TenantRepo
	// Strict makes a kind without a schema an error, not a warning.
	Strict bool
	// SchemaLocations are where to find JSON schemas of the kinds lint has
	// none of, as kubeconform's -schema-location values.
	SchemaLocations []string
	// MaxBuildReads bounds the file system calls of each kustomize build;
	// zero allows 10,000 and 50 per file of the repository.
	MaxBuildReads int
}

// TenantRepo is a local checkout of one tenant's Git source.
type TenantRepo struct {
	// Tenant names the Tenant in the fleet.
	Tenant string
	// Source names the tenant's Git source; empty picks its only one, or
	// the one named after the tenant.
	Source string
	// Dir is the checkout.
	Dir string
}

// Severity says whether a finding fails lint.
type Severity string

const (
	// SeverityError fails lint: Flux or the guard would refuse the object.
	SeverityError Severity = "error"
	// SeverityWarning is reported without failing: lint could not judge
	// the object, which Flux may well apply.
	SeverityWarning Severity = "warning"
)

// Finding is one problem, at a line of a file of one repository.
type Finding struct {
	// Repo is the tenant whose repository holds File, empty for the fleet.
	Repo string `json:"repo,omitempty"`
	// File is relative to the repository, slash-separated.
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

// String is the finding as `file:line: RULE: message`, a warning's
// message starting with "warning: ".
func (f Finding) String() string {
	if f.Severity == SeverityWarning {
		return fmt.Sprintf("%s:%d: %s: warning: %s", f.File, f.Line, f.Rule, f.Message)
	}
	return fmt.Sprintf("%s:%d: %s: %s", f.File, f.Line, f.Rule, f.Message)
}

// Lint checks the fleet and the tenant repositories of opts and returns the
// findings sorted by repository, file, line, rule and message. An error
// means lint could not run, not that it found something.
func Lint(ctx context.Context, opts Options) ([]Finding, error) {
	if opts.Dir == "" {
		return nil, errors.New("no fleet directory to lint")
	}
	s, err := apivalidation.NewSchemas()
	if err != nil {
		return nil, err
	}
	locations, err := newSchemaLocations(opts.SchemaLocations, opts.Strict)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, tr := range opts.TenantRepos {
		key := tr.Tenant + "/" + tr.Source
		if seen[key] {
			return nil, fmt.Errorf("--tenant-repo %s: given twice", key)
		}
		seen[key] = true
	}
	fleet, err := openRepo(opts.Dir, "")
	if err != nil {
		return nil, err
	}
	repos := make([]*repo, len(opts.TenantRepos))
	err = each(len(repos), func(i int) (err error) {
		repos[i], err = openRepo(opts.TenantRepos[i].Dir, opts.TenantRepos[i].Tenant)
		return err
	})
	if err != nil {
		return nil, err
	}
	all := append([]*repo{fleet}, repos...)
	m := newMemo()
	for _, r := range all {
		r.memo, r.maxReads = m, opts.MaxBuildReads
	}
	prebuild(ctx, all...)
	l := &linter{schemas: s, locations: locations, strict: opts.Strict, found: map[Finding]bool{}, checked: map[string]bool{}, tenants: map[*unit]*unitTenants{}}
	if err := l.fleet(ctx, fleet); err != nil {
		return nil, err
	}
	err = each(len(repos), func(i int) error { return l.tenantRepo(ctx, repos[i], opts.TenantRepos[i]) })
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return l.sorted(), nil
}

// sorted are the findings by repository, file, line, rule and message.
func (l *linter) sorted() []Finding {
	findings := make([]Finding, 0, len(l.found))
	for f := range l.found {
		findings = append(findings, f)
	}
	slices.SortFunc(findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Repo, b.Repo), cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Message, b.Message))
	})
	return findings
}

// each runs f for 0 to n-1 on GOMAXPROCS goroutines and returns the error
// of the lowest i that failed, as a loop would.
func each(n int, f func(i int) error) error {
	errs := make([]error, n)
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				errs[i] = f(i)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// openRepo checks that dir is a directory and resolves its symlinks, as
// kustomize does before building in it.
func openRepo(dir, tenant string) (*repo, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, fmt.Errorf("repository %s: %w", dir, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("repository %s: %w", dir, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("repository %s: not a directory", dir)
	}
	return scanRepo(abs, tenant)
}

// rel makes an error message independent of where the repository is.
func (r *repo) rel(msg string) string {
	return strings.ReplaceAll(msg, r.root+string(filepath.Separator), "")
}
