// Package localcluster runs a real local Kubernetes control plane (etcd,
// kube-apiserver with RBAC, kube-controller-manager) as child processes,
// with Flux's controllers and a node when asked: what `landlord dev up`
// runs, and what the integration tests run against (internal/testenv).
package localcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

const (
	defaultStartTimeout = time.Minute
	// Three more processes, each loading its informers, and the CRDs.
	defaultFluxStartTimeout = 2 * time.Minute
	stopGrace               = 10 * time.Second
)

// Options configure Start. The zero value runs a throw-away environment.
type Options struct {
	// Dir keeps the environment's data, certificates, kubeconfig and logs
	// across runs; empty means a temporary directory removed by Stop.
	Dir string
	// BinDir holds etcd, kube-apiserver and kube-controller-manager, and
	// the Flux controllers; empty means $LANDLORD_BIN_DIR, else bin/ at the
	// root of the landlord module.
	BinDir string
	// Flux also runs source-controller, kustomize-controller and
	// helm-controller (built by make flux-tools), locked down for
	// multi-tenancy, after installing the Flux CRDs and the rest of
	// install.Prerequisites.
	Flux bool
	// CRDs installs Landlord's and Flux's CRDs, with the rest of
	// install.Prerequisites, before kube-controller-manager starts; Flux
	// implies it.
	CRDs bool
	// StartTimeout bounds how long Start waits for readiness; zero means one
	// minute, two with Flux.
	StartTimeout time.Duration
	// Workloads also runs the Deployment, ReplicaSet, Job and CronJob
	// controllers: their Pods are created, though no node runs them.
	Workloads bool
	// Node also runs one node (built by make node-tools; needs root and
	// Debian's containerd, runc, CNI plugins and iptables), kube-scheduler
	// and the EndpointSlice controller: pods run, Services route and
	// NetworkPolicies are enforced, all inside namespaces of its own.
	Node bool
}

// Env is a running control plane. It is not safe for concurrent Stop calls.
type Env struct {
	// Config authenticates as a member of system:masters.
	Config *rest.Config
	// KubeconfigPath is an admin kubeconfig file for the same identity.
	KubeconfigPath string
	// Dir holds the environment's data, certificates and child logs.
	Dir string
	// FluxArgs are the flags each Flux controller was started with, by
	// name; nil without Options.Flux.
	FluxArgs map[string][]string
	// Node is the running node; nil without Options.Node.
	Node *Node

	certs    *pki
	apiPort  int
	keepDir  bool
	procs    []*process     // in start order
	cleanups []func() error // after every process has stopped
}

// Start runs etcd, kube-apiserver and kube-controller-manager on free loopback
// ports and returns once the API server is ready and the controller manager
// has aggregated the admin ClusterRole; with Options.Flux, also once each
// Flux controller is ready.
func Start(ctx context.Context, opts Options) (*Env, error) {
	bin, err := findBinaries(opts.BinDir)
	if err != nil {
		return nil, err
	}
	var flux *fluxBinaries
	if opts.Flux {
		found, err := findFluxBinaries(opts.BinDir)
		if err != nil {
			return nil, err
		}
		flux = &found
	}
	var node *nodeBinaries
	if opts.Node {
		found, err := findNodeBinaries(opts.BinDir)
		if err != nil {
			return nil, err
		}
		node = &found
	}
	env := &Env{Dir: opts.Dir, keepDir: opts.Dir != ""}
	if env.keepDir {
		if err := os.MkdirAll(env.Dir, 0o700); err != nil {
			return nil, fmt.Errorf("create environment directory: %w", err)
		}
	} else if env.Dir, err = makeTempDir(); err != nil {
		return nil, err
	}
	if opts.Node {
		// The node's processes run elsewhere than this working directory.
		if env.Dir, err = filepath.Abs(env.Dir); err != nil {
			return nil, err
		}
	}
	timeout := opts.StartTimeout
	switch {
	case timeout != 0:
	case opts.Flux:
		timeout = defaultFluxStartTimeout
	default:
		timeout = defaultStartTimeout
	}
	if opts.Node && opts.StartTimeout == 0 {
		timeout += nodeStartTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := env.start(ctx, bin, opts); err != nil {
		return nil, errors.Join(err, env.Stop())
	}
	if flux != nil {
		if err := env.startFlux(ctx, *flux); err != nil {
			return nil, errors.Join(err, env.Stop())
		}
	}
	if node != nil {
		if err := env.startNode(ctx, *node, env.certs, env.apiPort); err != nil {
			return nil, errors.Join(err, env.Stop())
		}
	}
	return env, nil
}

func (e *Env) start(ctx context.Context, bin binaries, opts Options) error {
	certs, err := ensurePKI(filepath.Join(e.Dir, "pki"))
	if err != nil {
		return err
	}
	e.certs = certs
	free, err := FreePorts(4)
	if err != nil {
		return err
	}
	p := ports{etcdClient: free[0], etcdPeer: free[1], apiserver: free[2], controllerManager: free[3]}
	e.apiPort = p.apiserver
	server := fmt.Sprintf("https://127.0.0.1:%d", p.apiserver)

	e.KubeconfigPath = filepath.Join(e.Dir, "kubeconfig")
	if err := writeKubeconfig(e.KubeconfigPath, server, certs.caPEM, &clientcmdapi.AuthInfo{
		ClientCertificateData: certs.adminCert, ClientKeyData: certs.adminKey,
	}); err != nil {
		return err
	}
	controllerKubeconfig := filepath.Join(e.Dir, "kube-controller-manager.kubeconfig")
	if err := writeKubeconfig(controllerKubeconfig, server, certs.caPEM, &clientcmdapi.AuthInfo{
		ClientCertificate: certs.path("kube-controller-manager.crt"), ClientKey: certs.path("kube-controller-manager.key"),
	}); err != nil {
		return err
	}
	e.Config = adminConfig(server, certs)
	client, err := kubernetes.NewForConfig(e.Config)
	if err != nil {
		return fmt.Errorf("create client: %w", err)
	}

	// Each child starts once the one it talks to is ready, so logs show real errors only.
	etcd, err := e.run(Etcd, bin.etcd, etcdArgs(e.Dir, p, e.keepDir))
	if err != nil {
		return err
	}
	etcd.ready = etcdHealthy(fmt.Sprintf("http://127.0.0.1:%d", p.etcdClient))
	if err := e.waitFor(ctx, etcd, "etcd /health", etcd.ready); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(e.Dir, auditPolicyFile), []byte(auditPolicy), 0o600); err != nil {
		return err
	}
	args := apiserverArgs(e.Dir, p, certs)
	if opts.Node {
		if err := os.WriteFile(filepath.Join(e.Dir, "egress-selector.yaml"), []byte(egressConfig(egressSocket(e.Dir))), 0o600); err != nil {
			return err
		}
		args = append(args, nodeAPIServerArgs(e.Dir, certs)...)
	}
	apiserver, err := e.run(APIServer, bin.apiserver, args)
	if err != nil {
		return err
	}
	apiserver.ready = apiserverReady(client)
	if err := e.waitFor(ctx, apiserver, "kube-apiserver /readyz", apiserver.ready); err != nil {
		return err
	}
	// The quota controller counts a custom kind only from the discovery
	// after its CRD is served and then only at its next full resync, five
	// minutes on, so the tenant defaults' counts of Flux's kinds would
	// refuse creates with "status unknown for quota" until then: the CRDs
	// go in first.
	if opts.CRDs || opts.Flux {
		if err := e.installPrerequisites(ctx); err != nil {
			return err
		}
	}
	controllerManager, err := e.run(ControllerManager, bin.controllerManager, controllerManagerArgs(e.Dir, p, certs, controllerKubeconfig, opts.Workloads, opts.Node))
	if err != nil {
		return err
	}
	controllerManager.ready = insecureHTTPSOK(fmt.Sprintf("https://127.0.0.1:%d/healthz", p.controllerManager))
	return e.waitFor(ctx, controllerManager, "the aggregated admin ClusterRole", adminRoleAggregated(client))
}

// run starts a child whose log is name.log in the environment directory,
// with env added to its environment.
func (e *Env) run(name, path string, args []string, env ...string) (*process, error) {
	proc, err := startProcess(name, path, args, env, filepath.Join(e.Dir, name+".log"))
	if err != nil {
		return nil, err
	}
	e.procs = append(e.procs, proc)
	return proc, nil
}

// Stop stops every child, last started first, and removes the directory
// unless it was given in Options.
func (e *Env) Stop() error {
	var errs []error
	for i := len(e.procs) - 1; i >= 0; i-- {
		errs = append(errs, e.procs[i].stop(stopGrace))
	}
	e.procs = nil
	for _, cleanup := range e.cleanups {
		errs = append(errs, cleanup())
	}
	e.cleanups = nil
	if !e.keepDir {
		if err := os.RemoveAll(e.Dir); err != nil {
			errs = append(errs, fmt.Errorf("remove environment directory: %w", err))
		}
	}
	return errors.Join(errs...)
}

// ConfigFor returns a copy of the admin Config that impersonates user with
// groups. A service account's username (system:serviceaccount:ns:name)
// without groups gets the service account's groups from the API server.
func (e *Env) ConfigFor(user string, groups ...string) *rest.Config {
	cfg := rest.CopyConfig(e.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	return cfg
}
