package cli

import (
	"context"

	"github.com/spf13/cobra"
)

type devUpOptions struct {
	dir      string
	apply    []string
	flux     bool
	demo     bool
	node     bool
	defaults string
}

func newDevUpCommand(run func(context.Context, *cobra.Command, devUpOptions) error) *cobra.Command {
	opts := devUpOptions{}
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Start a local control plane with Landlord until interrupted",
		Long: `Start etcd, kube-apiserver and kube-controller-manager on loopback, install
Landlord's and Flux's CRDs, run the Landlord controller and its admission
webhooks against them and
write an admin kubeconfig to DIR/kubeconfig. With --flux, also run Flux's
source-controller, kustomize-controller and helm-controller (built by make
flux-tools) with the multi-tenancy lockdown flags, logging to DIR. With
--demo (implies --flux), onboard two tenants the GitOps way from a local
Git server and show what Landlord makes of them. With --node (as root, built
by make node-tools, with Debian's containerd, runc, containernetworking-plugins
and iptables), also run one node in namespaces of its own: containerd,
kubelet, kube-proxy, kube-network-policies and kube-scheduler, so pods run and
NetworkPolicies hold. Runs until SIGINT or SIGTERM, then stops every process
it started.`,
		Example: `  landlord dev up --dir .landlord --apply config/samples
  landlord dev up --flux
  landlord dev up --demo
  landlord dev up --node`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.dir, "dir", ".landlord", "directory for the control plane's data, logs and kubeconfig")
	cmd.Flags().StringSliceVar(&opts.apply, "apply", nil, "manifest files or directories to apply once ready")
	cmd.Flags().BoolVar(&opts.flux, "flux", false, "also run the Flux source, kustomize and helm controllers, locked down for multi-tenancy")
	cmd.Flags().BoolVar(&opts.demo, "demo", false, "onboard two demo tenants from a local Git server (implies --flux)")
	cmd.Flags().StringVar(&opts.defaults, "tenant-defaults", "", "YAML file of the quota and limitRange Tenants get, as the controller's flag; the chart's tenantDefaults when empty")
	cmd.Flags().BoolVar(&opts.node, "node", false, "also run one node (containerd, kubelet, kube-proxy, a NetworkPolicy enforcer) and kube-scheduler")
	return cmd
}
