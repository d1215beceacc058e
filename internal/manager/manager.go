// Package manager assembles landlord-controller: scheme, cache, probes, the
// Tenant reconciler and the admission webhooks, for the binary and for
// `landlord dev up` alike.
package manager

import (
	"context"
	"fmt"
	"net/http"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	imageautov1 "github.com/fluxcd/image-automation-controller/api/v1"
	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	notificationv1 "github.com/fluxcd/notification-controller/api/v1"
	notificationv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/controller"
	"github.com/landlord-dev/landlord/internal/profile"
	"github.com/landlord-dev/landlord/internal/tenancy"
	"github.com/landlord-dev/landlord/internal/webhook"
)

// Options configure the manager.
type Options struct {
	// MetricsAddr serves Prometheus metrics; "0" disables it.
	MetricsAddr string
	// HealthAddr serves /healthz and /readyz; "0" disables it.
	HealthAddr string
	// PprofAddr serves net/http/pprof, to profile under load; empty
	// disables it.
	PprofAddr string
	// LeaderElection makes one replica of several the active one.
	LeaderElection bool
	// LeaderElectionNamespace holds the lease; defaults to the pod's.
	LeaderElectionNamespace string
	// LeaseDuration, RenewDeadline and RetryPeriod time the election as
	// client-go's leader election does; controller-runtime's defaults
	// (15s, 10s, 2s) when zero. A killed leader is replaced within about
	// LeaseDuration + RetryPeriod.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Concurrency is how many Tenants reconcile at once.
	Concurrency int
	// Namespace is the controller's own, whence TenantResources copy
	// Secrets; tenancy.ControllerNamespace when empty.
	Namespace string
	// Profile fills what a Tenant leaves unset.
	Profile profile.Profile
	// Webhook serves the admission webhooks when not nil.
	Webhook *webhook.Options
	// DashboardAddr serves the read-only web dashboard; empty disables it.
	DashboardAddr string
}

// Scheme knows the core kinds, CRDs, the Tenant and the Flux kinds Landlord
// uses.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(apiextensionsv1.AddToScheme(s))
	utilruntime.Must(v1alpha1.AddToScheme(s))
	utilruntime.Must(sourcev1.AddToScheme(s))
	utilruntime.Must(kustomizev1.AddToScheme(s))
	utilruntime.Must(helmv2.AddToScheme(s))
	utilruntime.Must(notificationv1.AddToScheme(s))
	utilruntime.Must(notificationv1beta3.AddToScheme(s))
	utilruntime.Must(imagev1.AddToScheme(s))
	utilruntime.Must(imageautov1.AddToScheme(s))
	utilruntime.Must(gatewayv1.Install(s))
	return s
}

// New builds a manager with the Tenant reconciler registered, once the API
// server is ready: a replica started while it is away waits instead of
// exiting, so the kubelet sees no crash loop.
func New(ctx context.Context, cfg *rest.Config, opts Options) (ctrl.Manager, error) {
	if err := waitForAPIServer(ctx, cfg); err != nil {
		return nil, err
	}
	if opts.Namespace == "" {
		opts.Namespace = tenancy.ControllerNamespace
	}
	mgrOpts := ctrl.Options{
		Scheme: Scheme(),
		// Managed fields are the cache's largest part: only the owned kinds keep
		// theirs, trimmed to what the reconciler compares (controller.CacheByObject).
		Cache:                  cache.Options{ByObject: controller.CacheByObject(opts.Namespace), DefaultTransform: cache.TransformStripManagedFields()},
		Metrics:                metricsserver.Options{BindAddress: opts.MetricsAddr},
		HealthProbeBindAddress: opts.HealthAddr,
		PprofBindAddress:       opts.PprofAddr,
		LeaderElection:         opts.LeaderElection,
		LeaderElectionID:       "landlord-controller.landlord.dev",
		// A replica shutting down hands the lease over at once instead of
		// letting it expire; its process ends when the manager stops.
		LeaderElectionReleaseOnCancel: true,
		LeaderElectionNamespace:       opts.LeaderElectionNamespace,
		LeaseDuration:                 nonZero(opts.LeaseDuration),
		RenewDeadline:                 nonZero(opts.RenewDeadline),
		RetryPeriod:                   nonZero(opts.RetryPeriod),
	}
	if opts.Webhook != nil {
		mgrOpts.WebhookServer = webhook.NewServer(*opts.Webhook)
	}
	mgr, err := ctrl.NewManager(cfg, mgrOpts)
	if err != nil {
		return nil, fmt.Errorf("creating manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("cache", func(req *http.Request) error {
		if !mgr.GetCache().WaitForCacheSync(req.Context()) {
			return fmt.Errorf("informer caches not synced")
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := controller.SetupWithManager(ctx, mgr, controller.Options{MaxConcurrentReconciles: opts.Concurrency, Profile: opts.Profile, Namespace: opts.Namespace}); err != nil {
		return nil, fmt.Errorf("setting up the tenant controller: %w", err)
	}
	if opts.Webhook != nil {
		if err := webhook.SetupWithManager(ctx, mgr, *opts.Webhook); err != nil {
			return nil, fmt.Errorf("setting up the admission webhooks: %w", err)
		}
	}
	if opts.DashboardAddr != "" {
		if err := addDashboard(mgr, opts.DashboardAddr); err != nil {
			return nil, err
		}
	}
	return mgr, nil
}

// nonZero is d, or nil for zero so that controller-runtime's default holds.
func nonZero(d time.Duration) *time.Duration {
	if d == 0 {
		return nil
	}
	return &d
}

// waitForAPIServer polls the API server's /readyz, which fails while etcd
// is away too, until it answers or ctx ends; building the manager needs
// discovery and the webhook setup reads its Secret.
func waitForAPIServer(ctx context.Context, cfg *rest.Config) error {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating a client: %w", err)
	}
	logged := false
	return wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
		err := client.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
		if err != nil && !logged {
			ctrl.Log.Info("waiting for the API server", "reason", err.Error())
			logged = true
		}
		return err == nil, nil
	})
}
