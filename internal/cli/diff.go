package cli

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/apivalidation"
	"github.com/landlord-dev/landlord/internal/diff"
	"github.com/landlord-dev/landlord/internal/lint"
	"github.com/landlord-dev/landlord/internal/render"
)

// diffOutputs are the values of diff's -o.
var diffOutputs = []string{"text", "json", "markdown"}

// Exit codes of landlord diff besides 0, no change.
const (
	diffChanges     = 1
	diffDestructive = 2
	// diffFailed sets a failure apart from the changes it could not find.
	diffFailed = 3
)

type diffOptions struct {
	dir              string
	base             string
	live             bool
	overlay          string
	tenantRepos      []string
	output           string
	allowDestructive bool
}

func newDiffCommand(kube kubeFlags, run func(*cobra.Command, kubeFlags, diffOptions) error) *cobra.Command {
	opts := diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff [DIR]",
		Short: "Show what a change to the fleet does to its tenants, for review",
		Long: `Compare the fleet repository in DIR (default .) as it is in the work tree
with the revision --base (default: the merge base of HEAD with origin's
default branch), or with the Tenants of the cluster (--live), and say for
each directory of the fleet Flux applies and each tenant:

- Tenants added, removed and changed, field by field;
- the objects Landlord creates, changes and prunes, rendered as its
  controller renders them (with --live, given the quota use the cluster
  reports);
- destructive changes first, named plainly: a tenant removed, a namespace
  deleted, released or moved to another tenant (with --live, with the
  number of objects it holds), a quota lowered (with --live, whether below
  current use), an owner's or cluster role's binding removed, a source
  removed or repointed, deletionPolicy changed;
- with --tenant-repo, the guard's verdict on each tenant repository
  against the base and the new fleet, as landlord lint gives it; a
  repository that stops passing is a destructive change.

With --live, the cluster is compared with one directory of the fleet, the
only one holding Tenants or the one --overlay names.

Output (-o): text, json, or markdown for a pull-request comment.
Exit status: 0 no change, 1 changes, 2 destructive changes (1 with
--allow-destructive), 3 when diff could not compare (a bad ref, a fleet that
does not build, an unreachable cluster).`,
		Example: `  landlord diff . --base origin/main
  landlord diff ./fleet --base HEAD~1 --tenant-repo dev-team=../dev-team -o markdown
  landlord diff ./fleet --live --overlay tenants/production --kubeconfig prod.kubeconfig`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.MaximumNArgs(1)(cmd, args); err != nil {
				return &exitError{code: diffFailed, err: err}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = "."
			if len(args) == 1 {
				opts.dir = args[0]
			}
			return run(cmd, kube, opts)
		},
	}
	// A usage error must not exit 1, which says "changes".
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitError{code: diffFailed, err: err} })
	f := cmd.Flags()
	f.StringVar(&opts.base, "base", "", "the Git revision to compare with (default: the merge base of HEAD with origin's default branch)")
	f.BoolVar(&opts.live, "live", false, "compare with the Tenants of the cluster instead of a Git revision")
	f.StringVar(&opts.overlay, "overlay", "", "with --live: the directory of the fleet the cluster applies, relative to DIR")
	f.StringArrayVar(&opts.tenantRepos, "tenant-repo", nil, "a tenant's repository as TENANT=DIR, or TENANT/SOURCE=DIR, judged by the guard against both fleets (repeatable)")
	f.StringVarP(&opts.output, "output", "o", "text", "output format: text, json or markdown")
	f.BoolVar(&opts.allowDestructive, "allow-destructive", false, "exit 1, not 2, on destructive changes")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(diffOutputs, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// exitError makes Execute exit with code; a nil err prints nothing.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func runDiff(cmd *cobra.Command, kube kubeFlags, opts diffOptions) error {
	report, err := compareFleet(cmd.Context(), kube, opts)
	if err != nil {
		return &exitError{code: diffFailed, err: err}
	}
	w := cmd.OutOrStdout()
	switch opts.output {
	case "json":
		err = diff.WriteJSON(w, report)
	case "markdown":
		err = diff.WriteMarkdown(w, report)
	default:
		err = diff.WriteText(w, report)
	}
	if err != nil {
		return &exitError{code: diffFailed, err: err}
	}
	switch {
	case len(report.Destructive) > 0 && !opts.allowDestructive:
		return &exitError{code: diffDestructive}
	case report.Changed():
		return &exitError{code: diffChanges}
	}
	return nil
}

func compareFleet(ctx context.Context, kube kubeFlags, opts diffOptions) (*diff.Report, error) {
	if !slices.Contains(diffOutputs, opts.output) {
		return nil, fmt.Errorf("--output %q: want one of %s", opts.output, strings.Join(diffOutputs, ", "))
	}
	repos, err := parseTenantRepos(opts.tenantRepos)
	if err != nil {
		return nil, err
	}
	switch {
	case opts.live && opts.base != "":
		return nil, errors.New("--base and --live: compare with a Git revision or with the cluster, not both")
	case opts.live && len(repos) > 0:
		return nil, errors.New("--tenant-repo needs two fleet revisions: it cannot be judged against the cluster (--live)")
	case !opts.live && opts.overlay != "":
		return nil, errors.New("--overlay needs --live")
	}
	head, err := fleetTenants(ctx, opts.dir, "the fleet in "+opts.dir)
	if err != nil {
		return nil, err
	}
	in := diff.Input{Head: head}
	if opts.live {
		overlay, err := liveOverlay(head, opts.overlay)
		if err != nil {
			return nil, err
		}
		in.Head = map[string][]*v1alpha1.Tenant{overlay: head[overlay]}
		in.Base, in.Live, err = liveTenants(ctx, kube, overlay)
		if err != nil {
			return nil, err
		}
		return diff.Compare(in)
	}
	baseDir, cleanup, err := checkout(ctx, opts.dir, opts.base)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	base := side{dir: baseDir.dir, what: "the fleet at " + baseDir.ref}
	if base.tenants, err = fleetTenants(ctx, base.dir, base.what); err != nil {
		return nil, err
	}
	in.Base = base.tenants
	if len(repos) > 0 {
		in.Guard, err = guardVerdicts(ctx, base, side{dir: opts.dir, what: "the fleet in " + opts.dir, tenants: head}, repos)
		if err != nil {
			return nil, err
		}
	}
	return diff.Compare(in)
}

// fleetTenants builds the fleet in dir as lint does and returns the Tenants
// of each directory Flux applies; a directory that does not build fails.
func fleetTenants(ctx context.Context, dir, what string) (map[string][]*v1alpha1.Tenant, error) {
	builds, findings, err := lint.Applied(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var broken []string
	for _, f := range findings {
		if f.Severity != lint.SeverityWarning && (f.Rule == lint.RuleBuild.ID || f.Rule == lint.RuleSourcePath.ID) {
			broken = append(broken, f.String())
		}
	}
	if len(broken) > 0 {
		return nil, fmt.Errorf("%s does not build:\n  %s", what, strings.Join(broken, "\n  "))
	}
	out := map[string][]*v1alpha1.Tenant{}
	kind := v1alpha1.GroupVersion.WithKind("Tenant")
	// Defaulted as the apiserver stores them, so that a field left to its
	// default is no change against the cluster.
	schemas, err := apivalidation.NewSchemas()
	if err != nil {
		return nil, err
	}
	tenantSchema, err := schemas.Lookup(kind)
	if err != nil {
		return nil, err
	}
	for _, b := range builds {
		for _, o := range b.Objects {
			if o.GroupVersionKind() != kind {
				continue
			}
			t := &v1alpha1.Tenant{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tenantSchema.Default(o.Object), t); err != nil {
				return nil, fmt.Errorf("%s: %s:%d: Tenant %s: %w", what, o.File, o.Line, o.GetName(), err)
			}
			out[b.Dir] = append(out[b.Dir], t)
		}
	}
	return out, nil
}

// revision is a fleet checked out of Git at ref.
type revision struct{ dir, ref string }

// checkout writes the fleet in dir as it is at ref (the merge base with
// origin's default branch when empty) into a temporary directory.
func checkout(ctx context.Context, dir, ref string) (revision, func(), error) {
	git := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...).Output()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), strings.TrimSpace(string(exit.Stderr)))
		}
		return strings.TrimSpace(string(out)), err
	}
	noop := func() {}
	if ref == "" {
		def, err := git("symbolic-ref", "--short", "refs/remotes/origin/HEAD")
		if err != nil {
			return revision{}, noop, fmt.Errorf("--base not set and origin's default branch unknown (%v): pass --base REF", err)
		}
		if ref, err = git("merge-base", "HEAD", def); err != nil {
			return revision{}, noop, fmt.Errorf("--base: no merge base of HEAD with %s: %w", def, err)
		}
	}
	commit, err := git("rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil || commit == "" {
		return revision{}, noop, fmt.Errorf("--base %q: not a commit of the repository holding %s", ref, dir)
	}
	tmp, err := os.MkdirTemp("", "landlord-diff-")
	if err != nil {
		return revision{}, noop, err
	}
	cleanup := func() { _ = os.RemoveAll(tmp) }
	// Run in dir, git archives dir alone, its paths relative to it.
	archive := exec.CommandContext(ctx, "git", "-C", dir, "archive", "--format=tar", commit, "--", ".")
	var stderr bytes.Buffer
	archive.Stderr = &stderr
	data, err := archive.Output()
	if err != nil {
		cleanup()
		return revision{}, noop, fmt.Errorf("git archive %s: %v: %s", ref, err, strings.TrimSpace(stderr.String()))
	}
	if err := untar(bytes.NewReader(data), tmp); err != nil {
		cleanup()
		return revision{}, noop, fmt.Errorf("unpacking %s: %w", ref, err)
	}
	return revision{dir: tmp, ref: ref}, cleanup, nil
}

// untar writes the regular files and directories of a git archive below
// dir; git writes no other kind but symbolic links, which a fleet build
// could follow out of the checkout, so they are left out.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(target, filepath.Clean(dir)+string(filepath.Separator)) {
			return fmt.Errorf("%s: outside the checkout", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(target, 0o755)
		case tar.TypeReg:
			err = writeFrom(tr, target)
		}
		if err != nil {
			return err
		}
	}
}

func writeFrom(r io.Reader, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// guardVerdicts lints the repository of each tenant against the base and
// the head fleet, those declaring the tenant, and keeps, per tenant, the
// findings in its repository.
func guardVerdicts(ctx context.Context, base, head side, repos []lint.TenantRepo) (map[string]diff.Verdicts, error) {
	judge := func(s side) (map[string]diff.Verdict, error) {
		out := map[string]diff.Verdict{}
		var declared []lint.TenantRepo
		for _, r := range repos {
			if s.declares(r.Tenant) {
				declared = append(declared, r)
				out[r.Tenant] = diff.Verdict{Tenant: true}
			}
		}
		if len(declared) == 0 {
			return out, nil
		}
		findings, err := lint.Lint(ctx, lint.Options{Dir: s.dir, TenantRepos: declared})
		if err != nil {
			return nil, fmt.Errorf("linting the tenant repositories against %s: %w", s.what, err)
		}
		for _, f := range findings {
			if v, ok := out[f.Repo]; ok && f.Severity != lint.SeverityWarning {
				v.Findings = append(v.Findings, f.String())
				out[f.Repo] = v
			}
		}
		return out, nil
	}
	before, err := judge(base)
	if err != nil {
		return nil, err
	}
	after, err := judge(head)
	if err != nil {
		return nil, err
	}
	out := map[string]diff.Verdicts{}
	for _, r := range repos {
		out[r.Tenant] = diff.Verdicts{Before: before[r.Tenant], After: after[r.Tenant]}
	}
	return out, nil
}

// side is one fleet revision: where it is, what to call it, its Tenants.
type side struct {
	dir, what string
	tenants   map[string][]*v1alpha1.Tenant
}

func (s side) declares(tenant string) bool {
	for _, tenants := range s.tenants {
		if slices.ContainsFunc(tenants, func(t *v1alpha1.Tenant) bool { return t.Name == tenant }) {
			return true
		}
	}
	return false
}

// liveOverlay is the directory of the fleet --live compares with the
// cluster: the one named, or the only one holding Tenants.
func liveOverlay(head map[string][]*v1alpha1.Tenant, named string) (string, error) {
	var withTenants []string
	for dir, tenants := range head {
		if len(tenants) > 0 {
			withTenants = append(withTenants, dir)
		}
	}
	slices.Sort(withTenants)
	if named != "" {
		if _, ok := head[named]; !ok {
			return "", fmt.Errorf("--overlay %q: not a directory the fleet applies; want one of %s", named, strings.Join(withTenants, ", "))
		}
		return named, nil
	}
	if len(withTenants) != 1 {
		return "", fmt.Errorf("--live: the fleet applies Tenants from %d directories (%s): name the cluster's with --overlay", len(withTenants), strings.Join(withTenants, ", "))
	}
	return withTenants[0], nil
}

// liveTenants reads the cluster's Tenants and what each holds: the number
// of objects in each of its namespaces and its quota's use.
func liveTenants(ctx context.Context, kube kubeFlags, overlay string) (map[string][]*v1alpha1.Tenant, map[string]diff.Live, error) {
	c, err := kube.client()
	if err != nil {
		return nil, nil, err
	}
	cfg, err := kube.config()
	if err != nil {
		return nil, nil, err
	}
	list := &v1alpha1.TenantList{}
	if err := c.List(ctx, list); err != nil {
		return nil, nil, fmt.Errorf("listing the cluster's Tenants: %w", err)
	}
	counter, err := newObjectCounter(cfg)
	if err != nil {
		return nil, nil, err
	}
	live := map[string]diff.Live{}
	var tenants []*v1alpha1.Tenant
	for i := range list.Items {
		t := &list.Items[i]
		tenants = append(tenants, t)
		l := diff.Live{Objects: map[string]int{}, QuotaUsed: map[string]corev1.ResourceList{}}
		for _, ns := range t.NamespaceNames() {
			n, err := counter.count(ctx, ns)
			if err != nil {
				return nil, nil, err
			}
			l.Objects[ns] = n
			quota := &corev1.ResourceQuota{}
			err = c.Get(ctx, client.ObjectKey{Namespace: ns, Name: render.QuotaName}, quota)
			if client.IgnoreNotFound(err) != nil {
				return nil, nil, fmt.Errorf("reading the quota of namespace %s: %w", ns, err)
			}
			if err == nil {
				l.QuotaUsed[ns] = quota.Status.Used
			}
		}
		live[t.Name] = l
	}
	return map[string][]*v1alpha1.Tenant{overlay: tenants}, live, nil
}

// objectCounter counts the objects of every listable namespaced kind the
// API server serves, by their metadata only.
type objectCounter struct {
	meta      metadata.Interface
	resources []schema.GroupVersionResource
}

func newObjectCounter(cfg *rest.Config) (*objectCounter, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	lists, err := dc.ServerPreferredNamespacedResources()
	if err != nil && len(lists) == 0 {
		return nil, fmt.Errorf("discovering the cluster's kinds: %w", err)
	}
	// Counting lists every kind, deprecated ones too: their warnings say
	// nothing to the reader of a diff.
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = rest.NoWarnings{}
	mc, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	oc := &objectCounter{meta: mc}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			// Events come and go with what happens, not with what is held.
			if slices.Contains(r.Verbs, "list") && r.Name != "events" {
				oc.resources = append(oc.resources, gv.WithResource(r.Name))
			}
		}
	}
	return oc, nil
}

func (oc *objectCounter) count(ctx context.Context, ns string) (int, error) {
	n := 0
	for _, gvr := range oc.resources {
		list, err := oc.meta.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return 0, fmt.Errorf("counting %s in namespace %s: %w", gvr.Resource, ns, err)
		}
		n += len(list.Items)
	}
	return n, nil
}
