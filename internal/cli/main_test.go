package cli_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"go.uber.org/zap/zapcore"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/landlord-dev/landlord/internal/cli"
	"github.com/landlord-dev/landlord/internal/devenv"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/profile"
)

// The package's live tests share one control plane, started by the first
// test that asks for it so that offline tests pay nothing.
var (
	ctx = context.Background()
	// env is the shared control plane, set by startCluster.
	env *localcluster.Env
	// k8s is its admin client, set by startCluster.
	k8s client.Client
)

var (
	clusterOnce  sync.Once
	clusterErr   error
	landlordOnce sync.Once
	landlordErr  error
	// stopLandlord stops the manager, once startLandlord ran it.
	stopLandlord func() error
)

// TestMain stops what the tests started.
func TestMain(m *testing.M) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapLevel())))
	// A command run without --kubeconfig must never reach the developer's
	// cluster: an empty kubeconfig makes it fail instead.
	if err := os.Setenv("KUBECONFIG", os.DevNull); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	var errs []error
	if stopLandlord != nil {
		errs = append(errs, stopLandlord())
	}
	if env != nil {
		errs = append(errs, env.Stop())
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintf(os.Stderr, "stopping the control plane: %v\n", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

// startCluster starts the shared control plane (etcd, kube-apiserver,
// kube-controller-manager, no CRDs) on first use and sets env and k8s.
func startCluster(t testing.TB) {
	t.Helper()
	clusterOnce.Do(func() {
		e, err := localcluster.Start(ctx, localcluster.Options{})
		if err != nil {
			clusterErr = err
			return
		}
		env = e
		k8s, clusterErr = client.New(env.Config, client.Options{Scheme: manager.Scheme()})
	})
	if clusterErr != nil {
		t.Fatalf("starting the control plane: %v", clusterErr)
	}
}

// startLandlord makes sure the shared control plane runs Landlord: its CRDs
// and Flux's, the real manager as its service account, bound to the
// generated least-privilege role, and the admission webhooks.
func startLandlord(t testing.TB) {
	t.Helper()
	startCluster(t)
	landlordOnce.Do(func() { landlordErr = runLandlord() })
	if landlordErr != nil {
		t.Fatalf("starting Landlord: %v", landlordErr)
	}
}

func runLandlord() error {
	landlord, err := devenv.Start(ctx, env, env.Dir, profile.Profile{})
	if err != nil {
		return err
	}
	stopLandlord = landlord.Stop
	return nil
}

// landlordLive runs the command line against the shared control plane,
// which the test must have started, with stdout and stderr apart.
func landlordLive(args ...string) (stdout, stderr string, err error) {
	cmd := cli.NewRootCommand()
	var out, errOut bytes.Buffer
	cmd.SetArgs(append([]string{"--kubeconfig=" + env.KubeconfigPath}, args...))
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	err = cmd.ExecuteContext(ctx)
	return out.String(), errOut.String(), err
}

// zapLevel keeps controller logs quiet unless LANDLORD_TEST_LOG is set.
func zapLevel() zapcore.Level {
	if os.Getenv("LANDLORD_TEST_LOG") != "" {
		return zapcore.DebugLevel
	}
	return zapcore.ErrorLevel
}
