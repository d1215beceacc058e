package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/landlord-dev/landlord/internal/apply"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/testenv"
	"github.com/landlord-dev/landlord/internal/webhook"
)

type devUpOptions struct {
	dir   string
	apply []string
	flux  bool
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
flux-tools) with the multi-tenancy lockdown flags, logging to DIR. Runs until
SIGINT or SIGTERM, then stops every process it started.`,
		Example: `  landlord dev up --dir .landlord --apply config/samples
  landlord dev up --flux`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.dir, "dir", ".landlord", "directory for the control plane's data, logs and kubeconfig")
	cmd.Flags().StringSliceVar(&opts.apply, "apply", nil, "manifest files or directories to apply once ready")
	cmd.Flags().BoolVar(&opts.flux, "flux", false, "also run the Flux source, kustomize and helm controllers, locked down for multi-tenancy")
	return cmd
}

func runDevUp(ctx context.Context, cmd *cobra.Command, opts devUpOptions) (retErr error) {
	out := cmd.OutOrStdout()
	dir, err := filepath.Abs(opts.dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--dir: %w", err)
	}
	logFile, err := os.Create(filepath.Join(dir, "landlord-controller.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	ctrl.SetLogger(zap.New(zap.WriteTo(logFile)))

	what := "etcd, kube-apiserver and kube-controller-manager"
	if opts.flux {
		what += ", source-controller, kustomize-controller and helm-controller"
	}
	fmt.Fprintf(out, "starting %s in %s\n", what, dir)
	env, err := testenv.Start(ctx, testenv.Options{Dir: dir, Flux: opts.flux})
	if err != nil {
		return err
	}
	defer func() { retErr = errors.Join(retErr, env.Stop()) }()

	c, err := client.New(env.Config, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		return err
	}
	if err := install.Prerequisites(ctx, c); err != nil {
		return err
	}
	hooks, err := devWebhooks(ctx, c, dir)
	if err != nil {
		return err
	}
	mgr, err := manager.New(ctx, env.Config, manager.Options{MetricsAddr: "0", HealthAddr: "0", Concurrency: 4, Webhook: hooks})
	if err != nil {
		return err
	}
	mgrCtx, stopManager := context.WithCancel(ctx)
	defer stopManager()
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(mgrCtx) }()

	for _, path := range opts.apply {
		objects, err := readManifests(path)
		if err != nil {
			return fmt.Errorf("--apply: %w", err)
		}
		if err := apply.Objects(ctx, c, install.FieldOwner, objects...); err != nil {
			return fmt.Errorf("--apply %s: %w", path, err)
		}
		fmt.Fprintf(out, "applied %d objects from %s\n", len(objects), path)
	}

	kubeconfig := filepath.Join(dir, "kubeconfig")
	fmt.Fprintf(out, "ready: kubeconfig=%s\n", kubeconfig)
	fmt.Fprintf(out, "controller logs: %s; Ctrl-C stops everything\n", logFile.Name())
	select {
	case <-ctx.Done():
		stopManager()
		return <-stopped
	case err := <-stopped:
		return fmt.Errorf("controller stopped: %w", err)
	}
}

// devWebhooks serves the admission webhooks on a free loopback port that the
// local apiserver calls by URL, keeping their Secret in landlord-system.
func devWebhooks(ctx context.Context, c client.Client, dir string) (*webhook.Options, error) {
	ns := &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: install.ControllerNamespace},
	}
	if err := apply.Objects(ctx, c, install.FieldOwner, ns); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("finding a port for the webhooks: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		return nil, err
	}
	return &webhook.Options{
		Namespace: ns.Name,
		Host:      "127.0.0.1",
		Port:      port,
		URLBase:   fmt.Sprintf("https://127.0.0.1:%d", port),
		CertDir:   filepath.Join(dir, "webhook-certs"),
	}, nil
}
