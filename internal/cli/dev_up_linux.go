package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/landlord-dev/landlord/internal/devenv"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/profile"
)

func runDevUp(ctx context.Context, cmd *cobra.Command, opts devUpOptions) (retErr error) {
	started := time.Now()
	out := cmd.OutOrStdout()
	opts.flux = opts.flux || opts.demo
	dir, err := filepath.Abs(opts.dir)
	if err != nil {
		return err
	}
	defaults, err := profile.Shipped()
	if opts.defaults != "" {
		defaults, err = profile.Load(opts.defaults)
	}
	if err != nil {
		return fmt.Errorf("--tenant-defaults: %w", err)
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
	if opts.node {
		what += ", kube-scheduler and node " + localcluster.NodeName
	}
	fmt.Fprintf(out, "starting %s in %s\n", what, dir)
	env, err := localcluster.Start(ctx, localcluster.Options{Dir: dir, Flux: opts.flux, Node: opts.node, CRDs: true})
	if err != nil {
		return err
	}
	defer func() { retErr = errors.Join(retErr, env.Stop()) }()

	landlord, err := devenv.Start(ctx, env, dir, defaults)
	if err != nil {
		return err
	}
	// On every early return; the normal end stops it explicitly below.
	defer func() { _ = landlord.Stop() }()

	c, err := client.New(env.Config, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		return err
	}
	for _, path := range opts.apply {
		objects, err := readManifests(path)
		if err != nil {
			return fmt.Errorf("--apply: %w", err)
		}
		fmt.Fprintf(out, "applying %d objects from %s\n", len(objects), path)
		if _, err := install.Apply(ctx, c, out, objects...); err != nil {
			return fmt.Errorf("--apply %s: %w", path, err)
		}
	}
	if opts.demo {
		stopDemo, err := runDemo(ctx, out, env, c, dir)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		defer func() { retErr = errors.Join(retErr, stopDemo()) }()
		fmt.Fprintf(out, "\ndemo ready %s after start\n", time.Since(started).Round(time.Second))
	}

	kubeconfig := filepath.Join(dir, "kubeconfig")
	fmt.Fprintf(out, "ready: kubeconfig=%s\n", kubeconfig)
	fmt.Fprintf(out, "controller logs: %s; Ctrl-C stops everything\n", logFile.Name())
	select {
	case <-ctx.Done():
		return landlord.Stop()
	case <-landlord.Done():
		return fmt.Errorf("controller stopped: %w", landlord.Stop())
	}
}
