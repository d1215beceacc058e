package controller_test

import (
	"context"
	"os"
	"testing"

	"go.uber.org/zap/zapcore"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/landlord-dev/landlord/internal/devenv"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/profile"
	"github.com/landlord-dev/landlord/internal/testenv"
)

var (
	ctx = context.Background()
	// k8s is the admin client; env gives impersonated ones.
	k8s client.Client
	env *localcluster.Env
)

// TestMain runs one control plane and Landlord on it: the manager as its
// service account, bound to the generated least-privilege role (a missing
// RBAC marker fails these tests), with its admission webhooks.
func TestMain(m *testing.M) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapLevel())))
	os.Exit(testenv.RunMain(m, func(e *localcluster.Env) (err error) {
		env = e
		if k8s, err = client.New(env.Config, client.Options{Scheme: manager.Scheme()}); err != nil {
			return err
		}
		_, err = devenv.Start(ctx, env, env.Dir, profile.Profile{})
		return err
	}))
}

// impersonate returns a client acting as user, through real authentication
// and authorization.
func impersonate(user string, groups ...string) client.Client {
	c, err := client.New(env.ConfigFor(user, groups...), client.Options{Scheme: manager.Scheme()})
	if err != nil {
		panic(err)
	}
	return c
}

// zapLevel keeps controller logs quiet unless LANDLORD_TEST_LOG is set.
func zapLevel() zapcore.Level {
	if os.Getenv("LANDLORD_TEST_LOG") != "" {
		return zapcore.DebugLevel
	}
	return zapcore.ErrorLevel
}
