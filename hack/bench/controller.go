package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/policy"
	"github.com/landlord-dev/landlord/internal/tenancy"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// controllerProcess is the landlord-controller binary running as its own process
// against a control plane, as its service account, with its webhooks
// served on loopback and called by the API server, as in production.
type controllerProcess struct {
	cmd     *exec.Cmd
	done    chan struct{}
	metrics string // http address of /metrics
	pprof   string // http address of /debug/pprof
}

// landlord returns the landlord-controller running on the control plane in
// use, starting it on first use: it installs Landlord's CRDs and RBAC and
// runs bin/landlord-controller, returning once it is ready.
func (e *env) landlord(ctx context.Context) (*controllerProcess, error) {
	if e.controller != nil {
		return e.controller, nil
	}
	c, err := e.startController(ctx, e.plane)
	if err != nil {
		return nil, err
	}
	e.controller = c
	return c, nil
}

func (e *env) startController(ctx context.Context, p *testenv.Env) (*controllerProcess, error) {
	admin, err := client.New(p.Config, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		return nil, err
	}
	if err := install.Prerequisites(ctx, admin); err != nil {
		return nil, err
	}
	if err := install.ControllerRBAC(ctx, admin); err != nil {
		return nil, err
	}
	kubeconfig, err := controllerKubeconfig(p)
	if err != nil {
		return nil, err
	}
	ports, err := testenv.FreePorts(4)
	if err != nil {
		return nil, err
	}
	addr := func(i int) string { return "127.0.0.1:" + strconv.Itoa(ports[i]) }
	c := &controllerProcess{metrics: addr(0), pprof: addr(2), done: make(chan struct{})}
	logFile, err := os.Create(filepath.Join(p.Dir, "landlord-controller.log"))
	if err != nil {
		return nil, err
	}
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--metrics-bind-address=" + c.metrics,
		"--health-probe-bind-address=" + addr(1),
		"--pprof-bind-address=" + c.pprof,
		"--webhook-port=" + strconv.Itoa(ports[3]),
		"--webhook-host=127.0.0.1",
		"--webhook-url-base=https://" + addr(3),
		"--webhook-cert-dir=" + filepath.Join(p.Dir, "webhook-certs"),
		"--namespace=" + install.ControllerNamespace,
	}
	if e.concurrency != 0 {
		args = append(args, "--concurrency="+strconv.Itoa(e.concurrency))
	}
	c.cmd = exec.Command(filepath.Join(e.bin, "landlord-controller"), args...)
	c.cmd.Stdout, c.cmd.Stderr = logFile, logFile
	// Its own process group, killed with the bench if the bench dies.
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := c.cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start landlord-controller: %w", err)
	}
	go func() {
		_ = c.cmd.Wait()
		logFile.Close()
		close(c.done)
	}()
	e.stops = append(e.stops, c.stop)
	log.Printf("landlord-controller pid %d, log %s", c.cmd.Process.Pid, logFile.Name())
	if err := c.waitReady(ctx, "http://"+addr(1)+"/readyz"); err != nil {
		return nil, fmt.Errorf("%w; see %s", err, logFile.Name())
	}
	return c, nil
}

// controllerKubeconfig is the admin kubeconfig impersonating the
// controller's service account, so RBAC and the webhooks see it as in
// cluster.
func controllerKubeconfig(p *testenv.Env) (string, error) {
	cfg, err := clientcmd.LoadFromFile(p.KubeconfigPath)
	if err != nil {
		return "", err
	}
	ns, _, _ := tenancy.SplitServiceAccount(policy.ControllerUser)
	for _, auth := range cfg.AuthInfos {
		auth.Impersonate = policy.ControllerUser
		auth.ImpersonateGroups = []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}
	}
	path := filepath.Join(p.Dir, "landlord-controller.kubeconfig")
	return path, clientcmd.WriteToFile(*cfg, path)
}

func (c *controllerProcess) waitReady(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-c.done:
			return errors.New("landlord-controller exited before it was ready")
		case <-ctx.Done():
			return fmt.Errorf("landlord-controller not ready: %w", ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// stop sends SIGTERM and waits, SIGKILL after ten seconds.
func (c *controllerProcess) stop() error {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
	return nil
}

// memory reads the process's peak and current resident set in MiB.
func (c *controllerProcess) memory() (peak, current float64, err error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		fields := strings.Fields(line)
		if len(fields) != 3 || fields[2] != "kB" {
			continue
		}
		kb, _ := strconv.ParseFloat(fields[1], 64)
		switch fields[0] {
		case "VmHWM:":
			peak = kb / 1024
		case "VmRSS:":
			current = kb / 1024
		}
	}
	return peak, current, nil
}

// profile starts taking a CPU profile of the controller for d into path;
// the function it returns waits for it to be written.
func (c *controllerProcess) profile(ctx context.Context, path string, d time.Duration) func() error {
	return takeProfile(ctx, http.DefaultClient, "http://"+c.pprof, path, d)
}

// takeProfile starts fetching a CPU profile of d from the pprof endpoints
// under base into path; the function it returns waits for it.
func takeProfile(ctx context.Context, c *http.Client, base, path string, d time.Duration) func() error {
	done := make(chan error, 1)
	go func() {
		done <- fetch(ctx, c, fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, int(d.Seconds())), path)
	}()
	return func() error { return <-done }
}

// heapProfile writes the controller's live heap into path.
func (c *controllerProcess) heapProfile(ctx context.Context, path string) error {
	return fetch(ctx, http.DefaultClient, "http://"+c.pprof+"/debug/pprof/heap?gc=1", path)
}

// fetch writes what url answers into path.
func fetch(ctx context.Context, c *http.Client, url, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return os.WriteFile(path, body, 0o644)
}

// handlerTime reads the webhook server's time handling /validate, summed in
// seconds, and the requests it handled, from the controller's metrics.
func (c *controllerProcess) handlerTime(ctx context.Context) (seconds, count float64, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+c.metrics+"/metrics", nil)
	if err != nil {
		return 0, 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(body), "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		v, _ := strconv.ParseFloat(value, 64)
		switch name {
		case `controller_runtime_webhook_latency_seconds_sum{webhook="/validate"}`:
			seconds = v
		case `controller_runtime_webhook_latency_seconds_count{webhook="/validate"}`:
			count = v
		}
	}
	return seconds, count, nil
}
