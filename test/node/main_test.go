// Package node runs pods on the local environment's one node and proves
// with packets what Landlord's NetworkPolicies promise: a tenant's pods
// reach their own, and not another tenant's, beside the neighbour that must
// still work. `make test-node` runs it; it needs root and Debian's
// containerd, runc, CNI plugins and iptables (.ci/run installs them).
package node

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/devenv"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/profile"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// The environment the tests share, set up once by TestMain.
var (
	ctx  = context.Background()
	env  *localcluster.Env
	k8s  client.Client
	core kubernetes.Interface
)

func TestMain(m *testing.M) {
	// LANDLORD_NODE_TEST_DIR keeps the environment's logs there. Flux and
	// the workload controllers turn a tenant's repository into pods.
	opts := localcluster.Options{Node: true, Flux: true, Workloads: true, Dir: os.Getenv("LANDLORD_NODE_TEST_DIR")}
	os.Exit(testenv.RunMainWith(m, opts, func(e *localcluster.Env) error {
		env = e
		var err error
		if k8s, err = client.New(e.Config, client.Options{Scheme: manager.Scheme()}); err != nil {
			return err
		}
		if core, err = kubernetes.NewForConfig(e.Config); err != nil {
			return err
		}
		landlord, err := devenv.Start(ctx, e, filepath.Join(e.Dir, "landlord"), profile.Profile{})
		if err != nil {
			return fmt.Errorf("start Landlord: %w", err)
		}
		// Stopped by the process's end: RunMainWith stops the environment after m.Run.
		_ = landlord
		return nil
	}))
}
