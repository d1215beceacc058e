// Package webhook is landlord-controller's admission guard: thin handlers
// around internal/policy, the cache-backed tenant index they consult, the
// serving certificate and the webhook configurations that route the
// apiserver to them.
package webhook

import (
	"context"
	"fmt"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"net/url"
	"os"
	"path/filepath"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/landlord-dev/landlord/internal/policy"
)

// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Options configure the admission webhooks.
type Options struct {
	// Namespace of the controller, holding the Service and the Secret.
	Namespace string
	// ServiceName routes the apiserver to the controller in cluster;
	// "landlord-webhook" when empty.
	ServiceName string
	// URLBase, such as https://127.0.0.1:9443, replaces the Service out of
	// cluster.
	URLBase string
	// CertManager leaves the certificate to cert-manager: its CA injector
	// fills caBundle and its Secret is mounted on CertDir.
	CertManager bool
	// Host and Port the webhook server listens on; all addresses and 9443
	// when empty.
	Host string
	Port int
	// CertDir is the webhook server's certificate directory;
	// controller-runtime's default when empty.
	CertDir string
	// CertValidity is the lifetime of issued certificates; one year when
	// zero. A certificate is replaced when a third of it is left.
	CertValidity time.Duration
	// CertCheckInterval is how often the certificate is checked; one hour
	// when zero.
	CertCheckInterval time.Duration
	// Platform are the platform's admins beyond system:masters, exempt from
	// the identity rules as masters are; its Namespace is Namespace.
	Platform policy.Platform
	// FailurePolicy of the webhooks guarding tenant namespaces: Fail
	// (default) holds every tenant write while no replica answers; Ignore
	// lets them through unjudged.
	FailurePolicy admissionregistrationv1.FailurePolicyType
	// TimeoutSeconds the API server waits for an answer; 5 when zero.
	TimeoutSeconds int32
}

func (o *Options) setDefaults() {
	// The controller serving these webhooks is the platform's.
	o.Platform.Namespace = o.Namespace
	if o.ServiceName == "" {
		o.ServiceName = DefaultServiceName
	}
	if o.CertDir == "" {
		o.CertDir = filepath.Join(os.TempDir(), "k8s-webhook-server", "serving-certs")
	}
	if o.CertValidity == 0 {
		o.CertValidity = 365 * 24 * time.Hour
	}
	if o.CertCheckInterval == 0 {
		o.CertCheckInterval = time.Hour
	}
	if o.FailurePolicy == "" {
		o.FailurePolicy = admissionregistrationv1.Fail
	}
	if o.TimeoutSeconds == 0 {
		o.TimeoutSeconds = 5
	}
}

// hosts are the names the serving certificate must carry.
func (o *Options) hosts() ([]string, error) {
	hosts := []string{
		o.ServiceName + "." + o.Namespace + ".svc",
		o.ServiceName + "." + o.Namespace + ".svc.cluster.local",
	}
	if o.URLBase == "" {
		return hosts, nil
	}
	u, err := url.Parse(o.URLBase)
	if err != nil || u.Scheme != "https" || u.Hostname() == "" {
		return nil, fmt.Errorf("webhook URL base %q: want https://host[:port]", o.URLBase)
	}
	return append([]string{u.Hostname()}, hosts...), nil
}

// NewServer is the webhook server for the manager's options.
func NewServer(opts Options) webhook.Server {
	opts.setDefaults()
	return webhook.NewServer(webhook.Options{Host: opts.Host, Port: opts.Port, CertDir: opts.CertDir})
}

// SetupWithManager serves the webhooks on the manager's webhook server and
// registers them with the apiserver. Without CertManager it issues the
// serving certificate before returning, so the server finds it on start,
// and keeps it fresh from then on.
func SetupWithManager(ctx context.Context, mgr ctrl.Manager, opts Options) error {
	opts.setDefaults()
	if opts.Namespace == "" {
		return fmt.Errorf("webhook options: the controller's namespace is required")
	}
	hosts, err := opts.hosts()
	if err != nil {
		return err
	}
	index, err := NewIndex(ctx, mgr.GetCache(), mgr.GetAPIReader())
	if err != nil {
		return fmt.Errorf("indexing tenants: %w", err)
	}
	shared, err := newSharedCache(ctx, mgr)
	if err != nil {
		return fmt.Errorf("caching ingress hosts and default classes: %w", err)
	}
	if err := mgr.Add(&clusterDefaults{shared: shared, writer: mgr.GetClient(), platform: opts.Platform}); err != nil {
		return err
	}
	server := mgr.GetWebhookServer()
	server.Register(ValidatePath, &webhook.Admission{Handler: timed{"validate", &validator{index: index, shared: shared, platform: opts.Platform, events: newDenialEvents(mgr.GetEventRecorder("landlord-webhook"), denialWindow), creates: newSelfServiceCreates()}}})
	server.Register(MutatePath, &webhook.Admission{Handler: timed{"mutate", &mutator{index: index}}})
	if err := mgr.AddReadyzCheck("webhook", server.StartedChecker()); err != nil {
		return err
	}
	if opts.CertManager {
		return register(ctx, mgr.GetAPIReader(), mgr.GetClient(), opts, nil)
	}
	c := &certs{
		reader:   mgr.GetAPIReader(),
		writer:   mgr.GetClient(),
		key:      client.ObjectKey{Namespace: opts.Namespace, Name: SecretName},
		hosts:    hosts,
		validity: opts.CertValidity,
		interval: opts.CertCheckInterval,
		certDir:  opts.CertDir,
		inject: func(ctx context.Context, caBundle []byte) error {
			return register(ctx, mgr.GetAPIReader(), mgr.GetClient(), opts, caBundle)
		},
	}
	if err := c.sync(ctx); err != nil {
		return err
	}
	return mgr.Add(c)
}
