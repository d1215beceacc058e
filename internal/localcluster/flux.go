package localcluster

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/lockdown"
)

// FluxNamespace is the Flux controllers' runtime namespace, as in a Flux
// install.
const FluxNamespace = "flux-system"

// fluxPorts are the loopback ports of one run of the Flux controllers.
type fluxPorts struct {
	storage                                      int
	sourceMetrics, kustomizeMetrics, helmMetrics int
	sourceHealth, kustomizeHealth, helmHealth    int
}

func newFluxPorts() (fluxPorts, error) {
	free, err := FreePorts(7)
	if err != nil {
		return fluxPorts{}, err
	}
	return fluxPorts{
		storage:       free[0],
		sourceMetrics: free[1], kustomizeMetrics: free[2], helmMetrics: free[3],
		sourceHealth: free[4], kustomizeHealth: free[5], helmHealth: free[6],
	}, nil
}

func loopback(port int) string {
	return "127.0.0.1:" + strconv.Itoa(port)
}

// fluxCommonArgs are the flags the three controllers share: every
// namespace watched, no leader election, and failures retried within
// seconds rather than the default quarter of an hour.
func fluxCommonArgs(metrics, health int) []string {
	return []string{
		"--watch-all-namespaces=true",
		"--enable-leader-election=false",
		"--metrics-addr=" + loopback(metrics),
		"--health-addr=" + loopback(health),
		"--requeue-dependency=5s",
		"--max-retry-delay=10s",
		"--log-encoding=console",
	}
}

// sourceControllerArgs, kustomizeControllerArgs and helmControllerArgs
// lock tenants down as Flux's multi-tenancy guide does.
func sourceControllerArgs(storage string, p fluxPorts) []string {
	return append(fluxCommonArgs(p.sourceMetrics, p.sourceHealth), append(lockdown.Args("source-controller"),
		"--storage-path="+storage,
		"--storage-addr="+loopback(p.storage),
		// Artifact URLs name this address: the other controllers fetch from it.
		"--storage-adv-addr="+loopback(p.storage),
	)...)
}

func kustomizeControllerArgs(p fluxPorts) []string {
	return append(fluxCommonArgs(p.kustomizeMetrics, p.kustomizeHealth), lockdown.Args("kustomize-controller")...)
}

func helmControllerArgs(p fluxPorts) []string {
	return append(fluxCommonArgs(p.helmMetrics, p.helmHealth), append(lockdown.Args("helm-controller"),
		// Within the environment's stop grace, so Stop does not need SIGKILL.
		"--graceful-shutdown-timeout=5s")...)
}

// startFlux runs the Flux controllers against the API server as its admin,
// the CRDs installed before kube-controller-manager started, returning
// once each is healthy.
func (e *Env) startFlux(ctx context.Context, bin fluxBinaries) error {
	p, err := newFluxPorts()
	if err != nil {
		return err
	}
	c, err := e.installClient()
	if err != nil {
		return err
	}
	if _, err := install.Apply(ctx, c, io.Discard, fluxIdentities()...); err != nil {
		return err
	}

	storage := filepath.Join(e.Dir, "source-controller")
	if err := os.MkdirAll(storage, 0o700); err != nil {
		return fmt.Errorf("create artifact storage: %w", err)
	}

	env := []string{"KUBECONFIG=" + e.KubeconfigPath, "RUNTIME_NAMESPACE=" + FluxNamespace}
	controllers := []struct {
		name, path string
		args       []string
		health     int
		proc       *process
	}{
		{name: "source-controller", path: bin.source, args: sourceControllerArgs(storage, p), health: p.sourceHealth},
		{name: "kustomize-controller", path: bin.kustomize, args: kustomizeControllerArgs(p), health: p.kustomizeHealth},
		{name: "helm-controller", path: bin.helm, args: helmControllerArgs(p), health: p.helmHealth},
	}
	e.FluxArgs = map[string][]string{}
	// All three start at once: none needs another to come up.
	for i := range controllers {
		ctl := &controllers[i]
		e.FluxArgs[ctl.name] = ctl.args
		if ctl.proc, err = e.run(ctl.name, ctl.path, ctl.args, env...); err != nil {
			return err
		}
	}
	for _, ctl := range controllers {
		if err := e.waitFor(ctx, ctl.proc, ctl.name+" /readyz", httpOK(fmt.Sprintf("http://%s/readyz", loopback(ctl.health)))); err != nil {
			return err
		}
	}
	return nil
}

// fluxIdentities are what `flux install` gives the controllers: their
// namespace, service accounts, and cluster-admin for the two that apply,
// which a fleet's own Kustomizations impersonate.
func fluxIdentities() []client.Object {
	objects := []client.Object{&corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: FluxNamespace},
	}}
	binding := &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-reconciler-" + FluxNamespace},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
	}
	for _, name := range []string{"source-controller", "kustomize-controller", "helm-controller"} {
		objects = append(objects, &corev1.ServiceAccount{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
			ObjectMeta: metav1.ObjectMeta{Namespace: FluxNamespace, Name: name},
		})
		if name != "source-controller" {
			binding.Subjects = append(binding.Subjects, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: FluxNamespace, Name: name})
		}
	}
	return append(objects, binding)
}

// installPrerequisites installs Landlord's, Flux's and the Gateway API's
// CRDs and waits until the API server serves every version they serve.
func (e *Env) installPrerequisites(ctx context.Context) error {
	c, err := e.installClient()
	if err != nil {
		return err
	}
	if err := install.Prerequisites(ctx, c); err != nil {
		return err
	}
	crds, err := config.CRDs()
	if err != nil {
		return err
	}
	disco, err := discovery.NewDiscoveryClientForConfig(e.Config)
	if err != nil {
		return err
	}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			gv := crd.Spec.Group + "/" + v.Name
			if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
				_, err := disco.ServerResourcesForGroupVersion(gv)
				return err == nil, nil
			}); err != nil {
				return fmt.Errorf("waiting for %s to be served: %w", gv, err)
			}
		}
	}
	return nil
}

func (e *Env) installClient() (client.Client, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	c, err := client.New(e.Config, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("create client: %w", err)
	}
	return c, nil
}
