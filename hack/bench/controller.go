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

// residentSet is the controller's resident memory in MiB, from
// /proc/PID/status: the whole (VmRSS), its peak (VmHWM), and the whole's
// two parts, the Go heap and stacks (RssAnon) and the binary's pages and
// other mapped files (RssFile).
type residentSet struct {
	rss, peak, anon, file float64
}

// memory reads the process's resident set.
func (c *controllerProcess) memory() (residentSet, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.Pid()))
	if err != nil {
		return residentSet{}, err
	}
	var m residentSet
	for _, line := range strings.Split(string(status), "\n") {
		fields := strings.Fields(line)
		if len(fields) != 3 || fields[2] != "kB" {
			continue
		}
		kb, _ := strconv.ParseFloat(fields[1], 64)
		switch fields[0] {
		case "VmRSS:":
			m.rss = kb / 1024
		case "VmHWM:":
			m.peak = kb / 1024
		case "RssAnon:":
			m.anon = kb / 1024
		case "RssFile:":
			m.file = kb / 1024
		}
	}
	return m, nil
}

// watchMemory samples the resident set every interval until the function
// it returns is called, which returns the sample that held the most:
// VmHWM says how high the whole went, not how its parts stood then.
func (c *controllerProcess) watchMemory(interval time.Duration) func() residentSet {
	stop, done := make(chan struct{}), make(chan residentSet, 1)
	go func() {
		var top residentSet
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			if m, err := c.memory(); err == nil && m.rss > top.rss {
				top = m
			}
			select {
			case <-stop:
				done <- top
				return
			case <-tick.C:
			}
		}
	}()
	return func() residentSet {
		close(stop)
		return <-done
	}
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
