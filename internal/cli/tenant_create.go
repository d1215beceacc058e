package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/fleet"
	"github.com/landlord-dev/landlord/internal/profile"
	"github.com/landlord-dev/landlord/internal/render"
)

type tenantCreateOptions struct {
	kube        kubeFlags
	name        string
	namespaces  []string
	gitURL      string
	branch      string
	tag         string
	semver      string
	path        string
	envs        []string
	secretRef   string
	vars        []string
	quota       []string
	podSecurity string
	owners      []string
	prefix      string
	maxNS       int32
	adopted     []string
	defaults    string
	export      bool
	fleet       string
	render      bool
	// Live apply only.
	forceConflicts bool
	dryRun         string
	wait           bool
	timeout        time.Duration
	timeoutSet     bool
}

// cliFieldOwner is the field manager of what the CLI applies.
const cliFieldOwner = "landlord-cli"

func newTenantCreateCommand(kube kubeFlags, run func(*cobra.Command, tenantCreateOptions) error) *cobra.Command {
	opts := tenantCreateOptions{kube: kube}
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Create a tenant in the cluster or as YAML for a fleet repository",
		Long: `Create a Tenant from flags.

Without --export or --render the Tenant is applied to the cluster with
server-side apply, field manager landlord-cli, as 'kubectl apply
--server-side' would: running it again with other flags updates the Tenant.
Fields another manager set to other values, such as Flux applying the Tenant
from a fleet repository, are a conflict and nothing changes, unless
--force-conflicts takes them over. --wait then waits until the Tenant is
Ready, printing each change of its Ready condition.

--export prints the Tenant, or with --fleet DIR writes it into a fleet
repository scaffolded by 'landlord init fleet': tenants/base/NAME/tenant.yaml,
listed in tenants/base, and for each --env cluster=path a patch in
tenants/<cluster> setting the path of the tenant's repository that cluster
syncs. --render prints the plain objects the Landlord controller would
create, for clusters without it.`,
		Example: `  landlord tenant create dev-team --namespace apps,apps-jobs \
    --git-url https://git.example.com/org/dev-team --branch main --wait

  landlord tenant create dev-team --namespace apps,apps-jobs \
    --git-url https://git.example.com/org/dev-team --branch main \
    --env staging=./staging,production=./production \
    --var CLUSTER_DOMAIN=example.com --quota requests.cpu=4,pods=50 \
    --export --fleet ./fleet

  landlord tenant create dev-team --namespace apps --dry-run=server   # what the API server and the guard say, nothing stored`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			opts.timeoutSet = cmd.Flags().Changed("timeout")
			return run(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&opts.namespaces, "namespace", nil, "namespaces of the tenant, the first holding its Flux objects")
	f.StringVar(&opts.gitURL, "git-url", "", "the tenant's Git repository (http, https or ssh URL)")
	f.StringVar(&opts.branch, "branch", "", "Git branch to sync")
	f.StringVar(&opts.tag, "tag", "", "Git tag to sync")
	f.StringVar(&opts.semver, "semver", "", "Git tag semver range to sync")
	f.StringVar(&opts.path, "path", "", "path in the repository to sync (default ./)")
	f.StringSliceVar(&opts.envs, "env", nil, "per cluster the path to sync, as cluster=path (with --fleet)")
	f.StringVar(&opts.secretRef, "secret-ref", "", "Secret in the tenant's first namespace holding the Git credentials")
	f.StringArrayVar(&opts.vars, "var", nil, "variable K=V substituted into the tenant's manifests (repeatable)")
	f.StringSliceVar(&opts.quota, "quota", nil, "hard quota of each tenant namespace, as resource=quantity")
	f.StringVar(&opts.podSecurity, "pod-security", "", "Pod Security level: privileged, baseline or restricted (default restricted)")
	f.StringArrayVar(&opts.owners, "owner", nil, "owner of the tenant as Kind:name: User:ana, Group:dev-team or ServiceAccount:ci/deployer (repeatable)")
	f.StringVar(&opts.prefix, "self-service-prefix", "", "let the tenant create namespaces itself, named with this prefix")
	f.Int32Var(&opts.maxNS, "max-namespaces", 0, "how many self-service namespaces the tenant may hold (with --self-service-prefix)")
	f.StringSliceVar(&opts.adopted, "adopted", nil, "self-service namespaces the tenant created, rendered as the controller renders them once adopted (with --render)")
	f.StringVar(&opts.defaults, "tenant-defaults", "", "the controller's --tenant-defaults file, whose quota and limitRange the Tenant gets unless it sets its own (with --render)")
	f.BoolVar(&opts.export, "export", false, "print the Tenant as YAML, or write it into --fleet")
	f.StringVar(&opts.fleet, "fleet", "", "fleet repository to write the Tenant into (with --export)")
	f.BoolVar(&opts.render, "render", false, "print the objects the Tenant creates, as YAML")
	f.BoolVar(&opts.forceConflicts, "force-conflicts", false, "take over fields another manager set to other values")
	addDryRunFlag(cmd, &opts.dryRun)
	f.BoolVar(&opts.wait, "wait", false, "wait until the Tenant is Ready")
	f.DurationVar(&opts.timeout, "timeout", defaultWaitTimeout, "how long --wait waits")
	return cmd
}

// tenantOptions checks how the flags combine, naming the wrong one; what
// they set is the Tenant's schema's to judge (flagErrors).
func (o tenantCreateOptions) tenantOptions() (fleet.TenantOptions, []fleet.EnvPath, error) {
	var none fleet.TenantOptions
	if err := checkDryRun(o.dryRun); err != nil {
		return none, nil, err
	}
	switch {
	case o.export && o.render:
		return none, nil, errors.New("set at most one of --export (the Tenant as YAML) or --render (the objects it creates); neither applies it to the cluster")
	case (o.export || o.render) && (o.wait || o.forceConflicts):
		return none, nil, errors.New("--wait and --force-conflicts apply to the cluster: drop --export and --render to use them")
	case o.dryRun != dryRunNone && (o.export || o.render):
		return none, nil, errors.New("--dry-run=server asks the cluster; --export and --render do not: use one or the other")
	case o.timeoutSet && !o.wait:
		return none, nil, errors.New("--timeout needs --wait")
	case o.timeout <= 0:
		return none, nil, fmt.Errorf("--timeout %s: must be positive", o.timeout)
	case o.fleet != "" && !o.export:
		return none, nil, errors.New("--fleet needs --export")
	case len(o.envs) > 0 && o.fleet == "":
		return none, nil, errors.New("--env needs --fleet: it writes per-cluster patches into the fleet")
	case o.maxNS != 0 && o.prefix == "":
		return none, nil, errors.New("--max-namespaces needs --self-service-prefix")
	case len(o.adopted) > 0 && !o.render:
		return none, nil, errors.New("--adopted needs --render: on a cluster the controller finds the namespaces the tenant created")
	case o.defaults != "" && !o.render:
		return none, nil, errors.New("--tenant-defaults needs --render: on a cluster the controller applies its own")
	}
	if err := checkTenantName(o.name); err != nil {
		return none, nil, err
	}
	if err := checkGitURL(o.gitURL); err != nil {
		return none, nil, err
	}
	ref := v1alpha1.GitRef{Branch: o.branch, Tag: o.tag, SemVer: o.semver}
	needGit := []struct {
		flag string
		set  bool
	}{
		{"--branch", o.branch != ""}, {"--tag", o.tag != ""}, {"--semver", o.semver != ""},
		{"--path", o.path != ""}, {"--env", len(o.envs) > 0}, {"--secret-ref", o.secretRef != ""},
	}
	if o.gitURL == "" {
		for _, f := range needGit {
			if f.set {
				return none, nil, fmt.Errorf("%s needs --git-url", f.flag)
			}
		}
	}
	vars, err := fleet.ParseVariables(o.vars)
	if err != nil {
		return none, nil, fmt.Errorf("--var %w", err)
	}
	quota, err := fleet.ParseQuota(o.quota)
	if err != nil {
		return none, nil, fmt.Errorf("--quota %w", err)
	}
	envs, err := fleet.ParseEnvPaths(o.envs)
	if err != nil {
		return none, nil, fmt.Errorf("--env %w", err)
	}
	owners, err := fleet.ParseOwners(o.owners)
	if err != nil {
		return none, nil, fmt.Errorf("--owner %w", err)
	}
	var selfService *v1alpha1.SelfService
	if o.prefix != "" {
		selfService = &v1alpha1.SelfService{Prefix: o.prefix, MaxNamespaces: o.maxNS}
	}
	return fleet.TenantOptions{
		Name:        o.name,
		Namespaces:  o.namespaces,
		GitURL:      o.gitURL,
		Ref:         ref,
		Path:        o.path,
		SecretRef:   o.secretRef,
		Variables:   vars,
		Quota:       quota,
		PodSecurity: v1alpha1.PodSecurityLevel(o.podSecurity),
		Owners:      owners,
		SelfService: selfService,
	}, envs, nil
}

// checkTenantName refuses a NAME that is no DNS label in the user's terms,
// before the fields it would fill (the Tenant's name, its first source's)
// each say so in the schema's.
func checkTenantName(name string) error {
	if len(validation.IsDNS1123Label(name)) == 0 {
		return nil
	}
	msg := fmt.Sprintf("NAME %q: want a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit, at most %d characters", name, validation.DNS1123LabelMaxLength)
	if label := asLabel(name); label != "" {
		msg += fmt.Sprintf(", such as %s", label)
	}
	return errors.New(msg)
}

// asLabel is the DNS label closest to s: lowercase, '-' for what a label
// cannot hold, trimmed to length; empty when nothing is left.
func asLabel(s string) string {
	label := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		}
		return '-'
	}, s)
	if len(label) > validation.DNS1123LabelMaxLength {
		label = label[:validation.DNS1123LabelMaxLength]
	}
	return strings.Trim(label, "-")
}

// scpAddress is git's [user@]host:path, which is not a URL.
var scpAddress = regexp.MustCompile(`^(?:([A-Za-z0-9._~-]+)@)?([A-Za-z0-9.-]+):([^/\\].*)$`)

// checkGitURL refuses an scp-style address, showing the URL to write.
func checkGitURL(addr string) error {
	if u, ok := sshURL(addr); ok {
		return fmt.Errorf("--git-url %q: an scp-style address is not a URL, which Flux needs: write it %s", addr, u)
	}
	return nil
}

// sshURL is the ssh:// URL of an scp-style address, and whether it was one.
func sshURL(addr string) (string, bool) {
	if strings.Contains(addr, "://") {
		return "", false
	}
	m := scpAddress.FindStringSubmatch(addr)
	if m == nil {
		return "", false
	}
	user := ""
	if m[1] != "" {
		user = m[1] + "@"
	}
	return "ssh://" + user + m[2] + "/" + m[3], true
}

// fieldFlags are the flags, or the NAME argument, that set each field of
// the Tenant, by field path prefix.
var fieldFlags = []struct{ field, flag string }{
	{"metadata.name", "NAME"},
	{"spec.namespaces", "--namespace"},
	{"spec.sources[0].name", "NAME"},
	{"spec.sources[0].git.url", "--git-url"},
	{"spec.sources[0].git.ref", "--branch, --tag or --semver"},
	{"spec.sources[0].git.secretRef", "--secret-ref"},
	{"spec.sources[0].path", "--path"},
	{"spec.variables", "--var"},
	{"spec.quota", "--quota"},
	{"spec.podSecurity", "--pod-security"},
	{"spec.owners", "--owner"},
	{"spec.selfService.maxNamespaces", "--max-namespaces"},
	{"spec.selfService", "--self-service-prefix"},
}

// flagErrors names the flag that set each field the Tenant's schema
// refuses, beside the field.
func flagErrors(err error) error {
	var agg utilerrors.Aggregate
	if !errors.As(err, &agg) {
		return err
	}
	errs := make([]error, 0, len(agg.Errors()))
	for _, e := range agg.Errors() {
		var fe *field.Error
		if !errors.As(e, &fe) {
			errs = append(errs, e)
			continue
		}
		path, whole := fe.Field, fe.Field == "<nil>"
		if whole {
			// A rule of the whole Tenant names its field first.
			path, _, _ = strings.Cut(fe.Detail, " ")
		}
		flag := ""
		for _, f := range fieldFlags {
			if path == f.field || strings.HasPrefix(path, f.field+".") || strings.HasPrefix(path, f.field+"[") {
				flag = f.flag
				break
			}
		}
		switch {
		case whole && flag == "":
			errs = append(errs, errors.New(fe.Detail))
		case whole:
			errs = append(errs, fmt.Errorf("%s: %s", flag, fe.Detail))
		case flag == "":
			errs = append(errs, fe)
		default:
			errs = append(errs, fmt.Errorf("%s: %w", flag, fe))
		}
	}
	return errors.Join(errs...)
}

func runTenantCreate(cmd *cobra.Command, opts tenantCreateOptions) error {
	topts, envs, err := opts.tenantOptions()
	if err != nil {
		return err
	}
	t, err := fleet.NewTenant(topts)
	if err != nil {
		return flagErrors(err)
	}
	out := cmd.OutOrStdout()
	switch {
	case !opts.export && !opts.render:
		return applyTenant(cmd, opts, t)
	case opts.render:
		defaults, err := profile.Load(opts.defaults)
		if err != nil {
			return fmt.Errorf("--tenant-defaults: %w", err)
		}
		return printRender(out, defaults.Apply(t), render.Holdings{SelfService: opts.adopted})
	case opts.fleet != "":
		changes, err := fleet.AddTenant(opts.fleet, t, envs)
		if err != nil {
			return err
		}
		printChanges(out, changes)
		return nil
	default:
		data, err := fleet.MarshalTenant(t)
		if err != nil {
			return err
		}
		_, err = out.Write(data)
		return err
	}
}

// printRender writes the Tenant's objects as a multi-document YAML stream.
func printRender(w io.Writer, t *v1alpha1.Tenant, h render.Holdings) error {
	objects, err := render.Objects(t, h)
	if err != nil {
		return flagErrors(err)
	}
	for _, obj := range objects {
		data, err := yaml.Marshal(obj)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "---\n%s", data); err != nil {
			return err
		}
	}
	return nil
}

// applyTenant server-side applies the Tenant as --export prints it, says
// whether that created or changed it, and with --wait waits for Ready.
func applyTenant(cmd *cobra.Command, opts tenantCreateOptions, t *v1alpha1.Tenant) error {
	dry, err := dryRun(opts.dryRun, opts.wait)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	c, err := opts.kube.client()
	if err != nil {
		return err
	}
	if dry {
		c = client.NewDryRunClient(c)
	}
	before := &v1alpha1.Tenant{}
	err = c.Get(ctx, client.ObjectKeyFromObject(t), before)
	existed := err == nil
	switch {
	case err != nil && !apierrors.IsNotFound(err):
		return tenantError(err, "")
	case existed && !before.DeletionTimestamp.IsZero():
		return fmt.Errorf("tenant/%s is being deleted: create it again once it is gone ('landlord tenant delete %s --wait' waits for that)", t.Name, t.Name)
	}

	// The exported YAML holds only what the flags set, so the apply owns
	// just those fields, as when the file is applied with kubectl.
	data, err := fleet.MarshalTenant(t)
	if err != nil {
		return err
	}
	data, err = yaml.YAMLToJSON(data)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return err
	}
	applyOpts := []client.ApplyOption{client.FieldOwner(cliFieldOwner)}
	if opts.forceConflicts {
		applyOpts = append(applyOpts, client.ForceOwnership)
	}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), applyOpts...); err != nil {
		if apierrors.IsConflict(err) {
			return fmt.Errorf("tenant/%s exists with fields another manager set to other values, nothing changed; --force-conflicts takes them over: %w", t.Name, err)
		}
		return tenantError(err, "")
	}

	// The apply's answer, which a dry run's is too: the generation moves
	// with the spec alone, not with the status the controller may write.
	verb := "created"
	if existed {
		verb = "configured"
		if u.GetGeneration() == before.Generation {
			verb = "unchanged"
		}
	}
	out := cmd.OutOrStdout()
	if dry {
		verb += " (server dry run)"
	}
	fmt.Fprintf(out, "tenant/%s %s\n", t.Name, verb)
	if !opts.wait {
		return nil
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "waiting for tenant/%s to be Ready (--timeout %s)\n", t.Name, opts.timeout)
	if err := waitTenant(ctx, c, t.Name, opts.timeout, cmd.ErrOrStderr(), readyProgress(t.Name)); err != nil {
		return err
	}
	fmt.Fprintf(out, "tenant/%s is Ready\n", t.Name)
	return nil
}

// readyProgress reports the Ready condition of the Tenant's latest
// generation; Stalled there ends the wait, as it needs a spec change.
func readyProgress(name string) func(context.Context, *v1alpha1.Tenant) (string, bool, error) {
	return func(_ context.Context, t *v1alpha1.Tenant) (string, bool, error) {
		if t == nil {
			return "", false, fmt.Errorf("tenant/%s was deleted while waiting for it to be Ready", name)
		}
		if stalled := apimeta.FindStatusCondition(t.Status.Conditions, v1alpha1.StalledCondition); stalled != nil &&
			stalled.Status == metav1.ConditionTrue && stalled.ObservedGeneration == t.Generation {
			return "", false, fmt.Errorf("tenant/%s is stalled until its spec changes: %s: %s", name, stalled.Reason, oneLine(stalled.Message))
		}
		ready := apimeta.FindStatusCondition(t.Status.Conditions, v1alpha1.ReadyCondition)
		if ready == nil || ready.ObservedGeneration != t.Generation {
			return fmt.Sprintf("Ready=Unknown: waiting for the Landlord controller to reconcile generation %d", t.Generation), false, nil
		}
		line := fmt.Sprintf("Ready=%s %s: %s", ready.Status, ready.Reason, oneLine(ready.Message))
		return line, ready.Status == metav1.ConditionTrue, nil
	}
}
