// Command landlord-controller reconciles Tenants and guards tenant
// namespaces with admission webhooks.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/profile"
	"github.com/landlord-dev/landlord/internal/tenancy"
	"github.com/landlord-dev/landlord/internal/version"
	"github.com/landlord-dev/landlord/internal/webhook"
)

func main() {
	var opts manager.Options
	flag.StringVar(&opts.MetricsAddr, "metrics-bind-address", ":8080", "address of the metrics endpoint; 0 disables it")
	flag.StringVar(&opts.HealthAddr, "health-probe-bind-address", ":8081", "address of the /healthz and /readyz probes; 0 disables them")
	flag.BoolVar(&opts.LeaderElection, "leader-elect", false, "elect one active replica among several")
	flag.StringVar(&opts.LeaderElectionNamespace, "leader-election-namespace", "", "namespace of the leader lease; defaults to the pod's")
	flag.DurationVar(&opts.LeaseDuration, "leader-elect-lease-duration", 15*time.Second, "how long a replica waits after the leader's last renewal before taking over")
	flag.DurationVar(&opts.RenewDeadline, "leader-elect-renew-deadline", 10*time.Second, "how long the leader retries renewing before it gives up leading and exits")
	flag.DurationVar(&opts.RetryPeriod, "leader-elect-retry-period", 2*time.Second, "how often replicas try to acquire or renew the lease")
	flag.IntVar(&opts.Concurrency, "concurrency", 4, "tenants reconciled at once")
	hooks := webhook.Options{Namespace: os.Getenv("POD_NAMESPACE")}
	if hooks.Namespace == "" {
		hooks.Namespace = tenancy.ControllerNamespace
	}
	flag.StringVar(&opts.PprofAddr, "pprof-bind-address", "", "address of the net/http/pprof endpoints; empty disables them")
	flag.StringVar(&opts.DashboardAddr, "dashboard-bind-address", "", "address of the read-only web dashboard, each viewer authenticated by bearer token and shown what it may get; empty disables it")
	flag.IntVar(&hooks.Port, "webhook-port", 0, "port of the admission webhooks; 0 disables them")
	flag.StringVar(&hooks.Host, "webhook-host", "", "address the admission webhooks listen on; all addresses when empty")
	flag.StringVar(&hooks.URLBase, "webhook-url-base", "", "https://host:port the API server calls the webhooks at, out of cluster; the in-cluster Service when empty")
	flag.StringVar(&hooks.CertDir, "webhook-cert-dir", "", "directory of the webhook serving certificate; controller-runtime's default when empty")
	flag.BoolVar(&hooks.CertManager, "cert-manager", false, "leave the webhook certificate and caBundle to cert-manager")
	flag.StringVar(&hooks.Namespace, "namespace", hooks.Namespace, "the controller's namespace, holding the webhook Service and Secret and the Secrets TenantResources copy; defaults to $POD_NAMESPACE")
	flag.Func("webhook-failure-policy", "Fail (default) holds tenant writes while no replica answers; Ignore lets them through unjudged", func(v string) error {
		switch p := admissionregistrationv1.FailurePolicyType(v); p {
		case admissionregistrationv1.Fail, admissionregistrationv1.Ignore:
			hooks.FailurePolicy = p
			return nil
		}
		return fmt.Errorf("%q: allowed Fail or Ignore", v)
	})
	flag.Func("webhook-timeout-seconds", "seconds the API server waits for an admission answer, 1 to 30 (default 5)", func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 30 {
			return fmt.Errorf("%q: allowed a whole number of seconds from 1 to 30", v)
		}
		hooks.TimeoutSeconds = int32(n)
		return nil
	})
	flag.Func("platform-users", "comma-separated users exempt from the tenant rules as system:masters is (platform admins)", appendList(&hooks.Platform.Users))
	flag.Func("platform-groups", "comma-separated groups exempt from the tenant rules as system:masters is (platform admins on EKS, GKE, AKS or OIDC)", appendList(&hooks.Platform.Groups))
	defaults := flag.String("tenant-defaults", "", "YAML file of the quota and limitRange every Tenant gets unless it sets its own; none when empty")
	showVersion := flag.Bool("version", false, "print the version and exit")
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse() // --kubeconfig is registered by controller-runtime
	if *showVersion {
		fmt.Println("landlord-controller", version.Get())
		return
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	if err := hooks.Platform.Validate(); err != nil {
		ctrl.Log.Error(err, "--platform-users, --platform-groups")
		os.Exit(1)
	}
	var err error
	if opts.Profile, err = profile.Load(*defaults); err != nil {
		ctrl.Log.Error(err, "--tenant-defaults")
		os.Exit(1)
	}
	if uncounted := opts.Profile.Uncounted(); len(uncounted) > 0 {
		ctrl.Log.Info("the tenant defaults count none of some kinds tenants may create: a Tenant without its own count may store as many as etcd holds", "uncounted", uncounted)
	}
	opts.Namespace = hooks.Namespace
	if hooks.Port != 0 {
		opts.Webhook = &hooks
	}

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

// appendList parses a comma-separated flag value into list.
func appendList(list *[]string) func(string) error {
	return func(value string) error {
		for _, v := range strings.Split(value, ",") {
			if v = strings.TrimSpace(v); v != "" {
				*list = append(*list, v)
			}
		}
		return nil
	}
}
