package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"filippo.io/age"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/landlord-dev/landlord/internal/cli"
	"github.com/landlord-dev/landlord/internal/devenv"
	"github.com/landlord-dev/landlord/internal/gitserver"
	"github.com/landlord-dev/landlord/internal/helmrepo"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/profile"
)

// devUpEnv makes the test binary run `landlord dev up --flux` in the
// directory it names instead of the tests: the production cluster of
// TestProduction, in a process of its own because controller-runtime allows
// one Landlord controller per process.
const devUpEnv = "LANDLORD_E2E_DEV_UP"

// The environment every scenario shares, set up once by TestMain.
var (
	ctx = context.Background()
	env *localcluster.Env
	// k8s is the staging cluster's admin client.
	k8s client.Client
	// public serves the fleet and the public tenant repositories; private
	// asks for privateUser and privatePassword.
	public, private *gitserver.Server
	// chartsURL is the Helm repository serving the podinfo chart.
	chartsURL string
	// sopsKey decrypts the fleet's SOPS-encrypted Secrets.
	sopsKey *age.X25519Identity
	// work holds the working copies of every repository.
	work string
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(devUpEnv); dir != "" {
		os.Exit(cli.Execute([]string{"dev", "up", "--flux", "--dir", dir}, os.Stdout, os.Stderr))
	}
	os.Exit(run(m))
}

// run starts the staging cluster (control plane, Flux, Landlord), the Git
// server and the chart repository, bootstraps Flux on the fleet repository
// and runs the tests; everything stops in reverse order.
func run(m *testing.M) (code int) {
	var err error
	env, err = localcluster.Start(ctx, localcluster.Options{Flux: true})
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	defer func() { code = exitCode(code, "stop the control plane", env.Stop()) }()

	logs, err := os.Create(filepath.Join(env.Dir, "landlord-controller.log"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	defer logs.Close()
	ctrl.SetLogger(zap.New(zap.WriteTo(logs)))
	landlord, err := devenv.Start(ctx, env, env.Dir, profile.Profile{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: start Landlord: %v\n", err)
		return 1
	}
	defer func() { code = exitCode(code, "stop Landlord", landlord.Stop()) }()

	if k8s, err = client.New(env.Config, client.Options{Scheme: manager.Scheme()}); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	if work, err = os.MkdirTemp("", "landlord-e2e-"); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	defer os.RemoveAll(work)
	stop, err := serve()
	defer func() { code = exitCode(code, "stop the servers", stop()) }()
	if err == nil {
		err = bootstrap(ctx, k8s, "staging")
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: setup: %v\n%s", err, diagnostics(ctx))
		return 1
	}
	return m.Run()
}

// serve starts the Git servers and the chart repository and pushes the
// fleet and tenant repositories; stop closes the servers.
func serve() (stop func() error, err error) {
	var closers []func() error
	stop = func() error {
		var errs []error
		for i := len(closers) - 1; i >= 0; i-- {
			errs = append(errs, closers[i]())
		}
		return errors.Join(errs...)
	}
	gitLog, err := os.Create(filepath.Join(env.Dir, "gitserver.log"))
	if err != nil {
		return stop, err
	}
	closers = append(closers, gitLog.Close)
	if public, err = gitserver.New(filepath.Join(work, "git", "public"), gitserver.WithErrorLog(gitLog)); err != nil {
		return stop, err
	}
	if _, err := public.Serve(); err != nil {
		return stop, err
	}
	closers = append(closers, public.Close)
	if private, err = gitserver.New(filepath.Join(work, "git", "private"),
		gitserver.WithBasicAuth(privateUser, privatePassword), gitserver.WithErrorLog(gitLog)); err != nil {
		return stop, err
	}
	if _, err := private.Serve(); err != nil {
		return stop, err
	}
	closers = append(closers, private.Close)

	charts, err := helmrepo.New(filepath.Join(work, "charts"))
	if err != nil {
		return stop, err
	}
	if err := addPodinfoCharts(charts); err != nil {
		return stop, err
	}
	if chartsURL, err = charts.Serve(); err != nil {
		return stop, err
	}
	closers = append(closers, charts.Close)

	if sopsKey, err = age.GenerateX25519Identity(); err != nil {
		return stop, err
	}
	return stop, pushRepositories(ctx)
}

// exitCode turns a failure to stop into a failed run, reported.
func exitCode(code int, what string, err error) int {
	if err == nil {
		return code
	}
	fmt.Fprintf(os.Stderr, "e2e: %s: %v\n", what, err)
	if code == 0 {
		return 1
	}
	return code
}
