package localcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// ControllerOptions configure StartController.
type ControllerOptions struct {
	// Bin is the landlord-controller executable; where the control plane's
	// binaries are when empty (make build puts it there).
	Bin string
	// Name names the replica and its log, Name.log in the environment
	// directory; "landlord-controller" when empty.
	Name string
	// WebhookAddr is the host:port its webhooks listen on; a free loopback
	// port when empty.
	WebhookAddr string
	// WebhookURLBase is where the API server calls the webhooks, such as a
	// Service in front of several replicas; https://WebhookAddr when empty.
	WebhookURLBase string
	// Args are further flags, such as --leader-elect.
	Args []string
	// Env adds to the environment it inherits, such as GOMEMLIMIT.
	Env []string
	// Namespace is the one it runs in, as its service account there;
	// tenancy.ControllerNamespace when empty.
	Namespace string
}

// Controller is landlord-controller running as its own process against the
// control plane, as its service account, with its webhooks served on
// loopback and called by the API server, as in production.
type Controller struct {
	// Name is the replica's, from ControllerOptions.
	Name string
	// Metrics, Health and Pprof are the host:port of its endpoints.
	Metrics, Health, Pprof string
	proc                   *process
}

// StartController installs Landlord's CRDs and RBAC, runs the binary and
// returns once it is ready. Stop it before the control plane.
func (e *Env) StartController(ctx context.Context, opts ControllerOptions) (*Controller, error) {
	admin, err := e.installClient()
	if err != nil {
		return nil, err
	}
	if err := install.Prerequisites(ctx, admin); err != nil {
		return nil, err
	}
	if opts.Namespace == "" {
		opts.Namespace = tenancy.ControllerNamespace
	}
	if err := install.ControllerRBAC(ctx, admin, opts.Namespace); err != nil {
		return nil, err
	}
	if err := leaderElectionRBAC(ctx, admin, opts.Namespace); err != nil {
		return nil, err
	}
	if opts.Name == "" {
		opts.Name = "landlord-controller"
	}
	kubeconfig, err := e.controllerKubeconfig(opts.Name, opts.Namespace)
	if err != nil {
		return nil, err
	}
	if opts.Bin == "" {
		dir, err := binDir("")
		if err != nil {
			return nil, err
		}
		opts.Bin = filepath.Join(dir, "landlord-controller")
	}
	ports, err := FreePorts(4)
	if err != nil {
		return nil, err
	}
	addr := func(i int) string { return loopback(ports[i]) }
	if opts.WebhookAddr == "" {
		opts.WebhookAddr = addr(3)
	}
	if opts.WebhookURLBase == "" {
		opts.WebhookURLBase = "https://" + opts.WebhookAddr
	}
	host, port, err := net.SplitHostPort(opts.WebhookAddr)
	if err != nil {
		return nil, err
	}
	c := &Controller{Name: opts.Name, Metrics: addr(0), Health: addr(1), Pprof: addr(2)}
	args := append([]string{
		"--kubeconfig=" + kubeconfig,
		"--metrics-bind-address=" + c.Metrics,
		"--health-probe-bind-address=" + c.Health,
		"--pprof-bind-address=" + c.Pprof,
		"--webhook-host=" + host,
		"--webhook-port=" + port,
		"--webhook-url-base=" + opts.WebhookURLBase,
		"--webhook-cert-dir=" + filepath.Join(e.Dir, opts.Name+"-certs"),
		"--namespace=" + opts.Namespace,
	}, opts.Args...)
	c.proc = &process{name: opts.Name, path: opts.Bin, args: args, env: opts.Env, logPath: filepath.Join(e.Dir, opts.Name+".log")}
	if err := c.proc.start(os.O_TRUNC); err != nil {
		return nil, err
	}
	if err := c.WaitReady(ctx); err != nil {
		return nil, errors.Join(err, c.Stop())
	}
	return c, nil
}

// leaderElectionRBAC applies config/default's Role and RoleBinding that
// let the controller hold its lease, for --leader-elect, in namespace.
func leaderElectionRBAC(ctx context.Context, c client.Client, namespace string) error {
	objects, err := config.Install()
	if err != nil {
		return err
	}
	var rbac []client.Object
	for _, obj := range objects {
		if (obj.GetKind() == "Role" || obj.GetKind() == "RoleBinding") && strings.HasSuffix(obj.GetName(), "leader-election") {
			rbac = append(rbac, obj)
		}
	}
	if len(rbac) != 2 {
		return fmt.Errorf("config/default: want the leader election Role and RoleBinding, found %d objects", len(rbac))
	}
	for _, obj := range rbac {
		u := obj.(*unstructured.Unstructured)
		u.SetNamespace(namespace)
		if u.GetKind() == "RoleBinding" {
			subjects := []any{map[string]any{"kind": rbacv1.ServiceAccountKind, "namespace": namespace, "name": tenancy.ControllerServiceAccount}}
			if err := unstructured.SetNestedSlice(u.Object, subjects, "subjects"); err != nil {
				return err
			}
		}
	}
	_, err = install.Apply(ctx, c, io.Discard, rbac...)
	return err
}

// BuildController builds landlord-controller from the module's source into
// dir and returns its path, so that a test never runs a stale binary.
func BuildController(dir string) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "landlord-controller")
	cmd := exec.Command("go", "build", "-o", path, "./cmd/landlord-controller")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building landlord-controller: %w\n%s", err, out)
	}
	return path, nil
}

// controllerKubeconfig is the admin kubeconfig impersonating the
// controller's service account, so RBAC and the webhooks see it as in
// cluster.
func (e *Env) controllerKubeconfig(name, namespace string) (string, error) {
	cfg, err := clientcmd.LoadFromFile(e.KubeconfigPath)
	if err != nil {
		return "", err
	}
	for _, auth := range cfg.AuthInfos {
		auth.Impersonate = tenancy.ControllerUser(namespace)
		auth.ImpersonateGroups = []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}
	}
	path := filepath.Join(e.Dir, name+".kubeconfig")
	return path, clientcmd.WriteToFile(*cfg, path)
}

// Pid is the process id of the running or last run process.
func (c *Controller) Pid() int { return c.proc.id() }

// LogPath is the file its output goes to.
func (c *Controller) LogPath() string { return c.proc.logPath }

// Done is closed once the process has exited.
func (c *Controller) Done() <-chan struct{} { return c.proc.exited() }

// Restart runs the exited process again with the same flags and ports,
// its log appended to, without waiting until it is ready: as the kubelet
// restarts a container.
func (c *Controller) Restart() error {
	select {
	case <-c.proc.exited():
	default:
		return fmt.Errorf("%s is running", c.Name)
	}
	return c.proc.start(os.O_APPEND)
}

// Kill sends SIGKILL and waits for the process to exit.
func (c *Controller) Kill() error {
	// The run killed, not one a supervisor may start once it has exited.
	exited := c.proc.exited()
	if err := c.proc.signal(syscall.SIGKILL); err != nil {
		return err
	}
	<-exited
	return nil
}

// Stop sends SIGTERM and waits, SIGKILL after the grace Stop gives the
// control plane's children.
func (c *Controller) Stop() error {
	return c.proc.stop(stopGrace)
}

// Ready checks /readyz once.
func (c *Controller) Ready(ctx context.Context) error {
	return httpOK("http://" + c.Health + "/readyz")(ctx)
}

// WaitReady polls /readyz until it answers 200, failing at once if the
// process exits, and after two minutes.
func (c *Controller) WaitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		if c.Ready(ctx) == nil {
			return nil
		}
		select {
		case <-c.proc.exited():
			return c.proc.exitError()
		case <-ctx.Done():
			return fmt.Errorf("%s not ready: %w; see %s", c.Name, ctx.Err(), c.proc.logPath)
		case <-time.After(pollInterval):
		}
	}
}

// ReadMetrics reads its Prometheus metrics as value by series, the series
// spelled as exposed, such as
// leader_election_master_status{name="landlord-controller.landlord.dev"}.
func (c *Controller) ReadMetrics(ctx context.Context) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+c.Metrics+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	series := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		// Label values may hold spaces; the value is the last field.
		i := strings.LastIndexByte(line, ' ')
		if i < 0 || strings.HasPrefix(line, "#") {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			series[line[:i]] = v
		}
	}
	return series, nil
}
