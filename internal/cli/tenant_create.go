package cli

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/fleet"
	"github.com/landlord-dev/landlord/internal/render"
)

type tenantCreateOptions struct {
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
	export      bool
	fleet       string
	render      bool
}

func newTenantCreateCommand(run func(*cobra.Command, tenantCreateOptions) error) *cobra.Command {
	opts := tenantCreateOptions{}
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Create a tenant as YAML for a fleet repository",
		Long: `Create a Tenant from flags.

--export prints the Tenant, or with --fleet DIR writes it into a fleet
repository scaffolded by 'landlord init fleet': tenants/base/NAME/tenant.yaml,
listed in tenants/base, and for each --env cluster=path a patch in
tenants/<cluster> setting the path of the tenant's repository that cluster
syncs. --render prints the plain objects the Landlord controller would
create, for clusters without it.`,
		Example: `  landlord tenant create dev-team --namespace apps,apps-jobs \
    --git-url https://git.example.com/org/dev-team --branch main \
    --env staging=./staging,production=./production \
    --var CLUSTER_DOMAIN=example.com --quota requests.cpu=4,pods=50 \
    --export --fleet ./fleet`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
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
	f.BoolVar(&opts.export, "export", false, "print the Tenant as YAML, or write it into --fleet")
	f.StringVar(&opts.fleet, "fleet", "", "fleet repository to write the Tenant into (with --export)")
	f.BoolVar(&opts.render, "render", false, "print the objects the Tenant creates, as YAML")
	return cmd
}

var gitURL = regexp.MustCompile(`^(http|https|ssh)://.+`)

// tenantOptions checks the flags, naming the wrong one.
func (o tenantCreateOptions) tenantOptions() (fleet.TenantOptions, []fleet.EnvPath, error) {
	var none fleet.TenantOptions
	switch {
	case o.export == o.render:
		return none, nil, errors.New("set exactly one of --export (the Tenant as YAML) or --render (the objects it creates)")
	case o.fleet != "" && !o.export:
		return none, nil, errors.New("--fleet needs --export")
	case len(o.envs) > 0 && o.fleet == "":
		return none, nil, errors.New("--env needs --fleet: it writes per-cluster patches into the fleet")
	case len(o.namespaces) == 0:
		return none, nil, errors.New("--namespace is required: the tenant needs at least one namespace")
	}
	ref := v1alpha1.GitRef{Branch: o.branch, Tag: o.tag, SemVer: o.semver}
	needGit := []struct {
		flag string
		set  bool
	}{
		{"--branch", o.branch != ""}, {"--tag", o.tag != ""}, {"--semver", o.semver != ""},
		{"--path", o.path != ""}, {"--env", len(o.envs) > 0}, {"--secret-ref", o.secretRef != ""},
	}
	refs := 0
	for _, f := range needGit[:3] {
		if f.set {
			refs++
		}
	}
	if refs > 1 {
		return none, nil, errors.New("set at most one of --branch, --tag or --semver")
	}
	if o.gitURL == "" {
		for _, f := range needGit {
			if f.set {
				return none, nil, fmt.Errorf("%s needs --git-url", f.flag)
			}
		}
	} else if !gitURL.MatchString(o.gitURL) {
		return none, nil, fmt.Errorf("--git-url %q: must be an http, https or ssh URL", o.gitURL)
	}
	if strings.Contains(o.path, "..") {
		return none, nil, fmt.Errorf("--path %q: must not contain '..'", o.path)
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
	level := v1alpha1.PodSecurityLevel(o.podSecurity)
	switch level {
	case "", v1alpha1.PodSecurityPrivileged, v1alpha1.PodSecurityBaseline, v1alpha1.PodSecurityRestricted:
	default:
		return none, nil, fmt.Errorf("--pod-security %q: must be privileged, baseline or restricted", o.podSecurity)
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
		PodSecurity: level,
	}, envs, nil
}

func runTenantCreate(cmd *cobra.Command, opts tenantCreateOptions) error {
	topts, envs, err := opts.tenantOptions()
	if err != nil {
		return err
	}
	t, err := fleet.NewTenant(topts)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	switch {
	case opts.render:
		return printRender(out, t)
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
func printRender(w io.Writer, t *v1alpha1.Tenant) error {
	objects, err := render.Objects(t)
	if err != nil {
		return err
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
