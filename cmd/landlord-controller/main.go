// Command landlord-controller reconciles Tenants.
package main

import (
	"flag"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/landlord-dev/landlord/internal/manager"
)

func main() {
	var opts manager.Options
	flag.StringVar(&opts.MetricsAddr, "metrics-bind-address", ":8080", "address of the metrics endpoint; 0 disables it")
	flag.StringVar(&opts.HealthAddr, "health-probe-bind-address", ":8081", "address of the /healthz and /readyz probes; 0 disables them")
	flag.BoolVar(&opts.LeaderElection, "leader-elect", false, "elect one active replica among several")
	flag.StringVar(&opts.LeaderElectionNamespace, "leader-election-namespace", "", "namespace of the leader lease; defaults to the pod's")
	flag.IntVar(&opts.Concurrency, "concurrency", 4, "tenants reconciled at once")
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse() // --kubeconfig is registered by controller-runtime
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))

	ctx := ctrl.SetupSignalHandler()
	mgr, err := manager.New(ctx, ctrl.GetConfigOrDie(), opts)
	if err != nil {
		ctrl.Log.Error(err, "unable to start")
		os.Exit(1)
	}
	if err := mgr.Start(ctx); err != nil {
		ctrl.Log.Error(err, "manager stopped")
		os.Exit(1)
	}
}
