// Package faults runs Landlord through faults while tenants change: its
// leader SIGKILLed and restarted, the API server restarted, etcd stopped;
// then the cluster must hold exactly what the Tenants render. `make test`
// runs a short version, `make faults` the full one with its figures.
package faults_test

import (
	"context"
	"flag"
	"os"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/testenv"
)

var (
	kills = flag.Int("kills", 5, "SIGKILLs of the leading landlord-controller; make faults asks for 50")
	seed  = flag.Uint64("seed", 0, "seed of the random churn and kill points; the time when 0")
)

var (
	ctx = context.Background()
	env *localcluster.Env
	k8s client.Client
	// bin is landlord-controller built from this tree.
	bin string
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(testenv.RunMainWithController(m, localcluster.Options{}, func(e *localcluster.Env, path string) error {
		env, bin = e, path
		var err error
		k8s, err = client.New(e.Config, client.Options{Scheme: manager.Scheme()})
		return err
	}))
}
