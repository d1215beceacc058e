package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/landlord-dev/landlord/internal/localcluster"
)

// controllerProcess is the landlord-controller binary running as its own
// process against a control plane.
type controllerProcess struct {
	*localcluster.Controller
}

// landlord returns the landlord-controller running on the control plane in
// use, starting it on first use: it installs Landlord's CRDs and RBAC and
// runs bin/landlord-controller, returning once it is ready.
func (e *env) landlord(ctx context.Context) (*controllerProcess, error) {
	if e.controller != nil {
		return e.controller, nil
	}
	opts := localcluster.ControllerOptions{Bin: filepath.Join(e.bin, "landlord-controller")}
	if e.concurrency != 0 {
		opts.Args = append(opts.Args, "--concurrency="+strconv.Itoa(e.concurrency))
	}
	if e.memLimit != "" {
		opts.Env = []string{"GOMEMLIMIT=" + e.memLimit}
	}
	c, err := e.plane.StartController(ctx, opts)
	if err != nil {
		return nil, err
	}
	e.stops = append(e.stops, c.Stop)
	log.Printf("landlord-controller pid %d, log %s", c.Pid(), c.LogPath())
	e.controller = &controllerProcess{c}
	return e.controller, nil
}

// memory reads the process's peak and current resident set in MiB.
func (c *controllerProcess) memory() (peak, current float64, err error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.Pid()))
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
	return takeProfile(ctx, http.DefaultClient, "http://"+c.Pprof, path, d)
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
	return fetch(ctx, http.DefaultClient, "http://"+c.Pprof+"/debug/pprof/heap?gc=1", path)
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
	series, err := c.ReadMetrics(ctx)
	if err != nil {
		return 0, 0, err
	}
	return series[`controller_runtime_webhook_latency_seconds_sum{webhook="/validate"}`], series[`controller_runtime_webhook_latency_seconds_count{webhook="/validate"}`], nil
}
