package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fluxcd/pkg/ssa/utils"
	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/fleet"
	"github.com/landlord-dev/landlord/internal/fluxoperator"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/lockdown"
)

type installOptions struct {
	kube         kubeFlags
	fluxLockdown bool
	export       bool
	wait         bool
	timeout      time.Duration
	timeoutSet   bool
	dryRun       string
}

func newInstallCommand(kube kubeFlags) *cobra.Command {
	opts := installOptions{kube: kube}
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Install Landlord into a cluster, or print its manifests",
		Long: `Install Landlord: its CRDs, least-privilege RBAC, the controller Deployment,
the webhook Service, the admission webhook configurations, the
ValidatingAdmissionPolicy the API server runs in-process and its binding, and
the tenant defaults ConfigMap, as
config/default builds them (embedded in this binary). Objects are applied
with server-side apply, field manager ` + install.FieldOwner + `, in stages as
flux install applies: the CRDs, namespace and ClusterRoles first, the rest
once they are established. Each object's line says created, configured or
unchanged; running it again changes nothing.

--export prints the manifests instead, for a fleet repository's
infrastructure/landlord directory.

--flux-lockdown also locks Flux's controllers in flux-system down for
multi-tenancy, adding to each Deployment's arguments what it lacks of:
` + lockdownSettings() + `
A Flux that manages itself (flux bootstrap) reverts such a change on its
next sync: put ` + fleet.LockdownComponent + `, written by 'landlord init
fleet', into its flux-system kustomization.yaml as well. Where the Flux
Operator installs Flux, --flux-lockdown turns on the multi-tenancy settings
of its FluxInstance (spec.cluster: ` + strings.Join(fluxoperator.Settings(), ", ") + `)
instead, leaving the Deployments to the operator.

--wait waits (kstatus, as flux does) until the CRD is established, the controller Deployment is
available and the webhook configurations have a CA bundle, printing each
change, and fails after --timeout naming what is not ready.`,
		Example: `  landlord install --flux-lockdown --wait
  landlord install --flux-lockdown --dry-run=server   # what would change, judged by the API server, nothing stored
  landlord install --export > fleet/` + fleet.InstallFile + `   # the file a scaffolded fleet lists`,
		Args:              cobra.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.timeoutSet = cmd.Flags().Changed("timeout")
			return runInstall(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.fluxLockdown, "flux-lockdown", false, "also lock Flux's controllers in flux-system down for multi-tenancy")
	f.BoolVar(&opts.export, "export", false, "print the manifests as YAML instead of applying them")
	f.BoolVar(&opts.wait, "wait", false, "wait until the CRD, the controller and the webhooks are ready")
	f.DurationVar(&opts.timeout, "timeout", 5*time.Minute, "how long --wait waits")
	addDryRunFlag(cmd, &opts.dryRun)
	return cmd
}

func (o installOptions) validate() error {
	if err := checkDryRun(o.dryRun); err != nil {
		return err
	}
	switch {
	case o.export && o.fluxLockdown:
		return errors.New("--flux-lockdown patches a live Flux and cannot be exported: for a fleet repository use infrastructure/flux-lockdown from 'landlord init fleet'")
	case o.export && o.dryRun != dryRunNone:
		return errors.New("--dry-run=server asks the cluster; --export does not: use one or the other")
	case o.export && o.wait:
		return errors.New("--wait needs a cluster to wait on: drop it with --export")
	case o.timeoutSet && !o.wait:
		return errors.New("--timeout needs --wait")
	case o.timeout <= 0:
		return fmt.Errorf("--timeout %s: must be positive", o.timeout)
	}
	return nil
}

func runInstall(cmd *cobra.Command, opts installOptions) error {
	if err := opts.validate(); err != nil {
		return err
	}
	objects, err := config.Install()
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if opts.export {
		yaml, err := utils.ObjectsToYAML(objects)
		if err != nil {
			return err
		}
		_, err = io.WriteString(out, yaml)
		return err
	}
	dry, err := dryRun(opts.dryRun, opts.wait)
	if err != nil {
		return err
	}
	c, err := opts.kube.client()
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	if dry {
		c = client.NewDryRunClient(c)
	}
	var flux *fluxInstall
	if opts.fluxLockdown {
		// Before anything is applied, so that a missing Flux changes nothing.
		if flux, err = findFlux(ctx, c); err != nil {
			return err
		}
	}
	toApply := make([]client.Object, 0, len(objects))
	for _, obj := range objects {
		toApply = append(toApply, obj)
	}
	if dry {
		err = install.DryRun(ctx, c, out, toApply...)
	} else {
		_, err = install.Apply(ctx, c, out, toApply...)
	}
	if err != nil {
		return err
	}
	if flux != nil {
		if dry {
			fmt.Fprintln(out, "Flux lockdown (server dry run):")
		}
		if err := flux.lockDown(ctx, c, out); err != nil {
			return err
		}
	}
	if opts.wait {
		return install.Wait(ctx, c, out, objects, opts.timeout)
	}
	return nil
}

// lockdownSettings lists what --flux-lockdown sets, from the table it sets.
func lockdownSettings() string {
	var b strings.Builder
	for _, s := range lockdown.Settings() {
		fmt.Fprintf(&b, "  %s on %s\n", s.Flag, strings.Join(s.Controllers, ", "))
	}
	return b.String()
}
