// Command bench measures provisioning, the idle controller, admission,
// the dashboard's index and lint beside their baselines on a local control
// plane, and prints one table: `make bench`, or `go run ./hack/bench -tenants 5000 -only p1`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/landlord-dev/landlord/internal/localcluster"
)

func main() {
	tenants := flag.Int("tenants", 1000, "tenants provisioned in p1 and held while p2 runs, and served by the dashboard in dash")
	only := flag.String("only", "", "comma-separated parts to run, of "+strings.Join(order, ", ")+"; every part when empty")
	bin := flag.String("bin", "bin", "directory of the control-plane, Flux, landlord and kubectl binaries")
	concurrency := flag.Int("concurrency", 0, "landlord-controller's --concurrency; its default when 0")
	memLimit := flag.String("memlimit", "", "GOMEMLIMIT of landlord-controller, as a Deployment sets it from its memory limit (such as 128MiB); none when empty")
	shots := flag.String("screenshots", "", "directory to write the dash part's screenshots of the index into, taken in headless Chromium; none when empty")
	profiles := flag.String("profile", "", "directory to write profiles into: landlord-controller's CPU under p1 and p2 load and heap after p1, the API server's CPU under p2")
	flag.Parse()
	log.SetFlags(log.Ltime)
	log.SetOutput(os.Stderr)
	// The dash part's informer cache logs through controller-runtime.
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	names := slices.DeleteFunc(slices.Clone(order), func(name string) bool { return parts[name] == nil })
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	if err := run(ctx, *tenants, names, *bin, *profiles, *shots, *concurrency, *memLimit); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, tenants int, only []string, bin, profiles, shots string, concurrency int, memLimit string) (retErr error) {
	for _, name := range only {
		if _, ok := parts[name]; !ok {
			return fmt.Errorf("-only %s: no such part; parts: %s", name, strings.Join(order, ", "))
		}
	}
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	e := &env{tenants: tenants, bin: bin, profileDir: profiles, screenshots: shots, concurrency: concurrency, memLimit: memLimit}
	defer func() { retErr = errors.Join(retErr, e.close()) }()
	var rows []row
	for _, name := range order {
		if !slices.Contains(only, name) {
			continue
		}
		log.Printf("%s: measuring", name)
		got, err := parts[name](ctx, e)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		rows = append(rows, got...)
	}
	return printTable(os.Stdout, runtime.NumCPU(), rows)
}

// env is what the parts share: the run's settings, and the control plane
// in use with what runs on it.
type env struct {
	tenants int
	bin     string
	// concurrency is landlord-controller's --concurrency, 0 for its default.
	concurrency int
	// memLimit is landlord-controller's GOMEMLIMIT, "" for none.
	memLimit string
	// profileDir receives profiles; "" takes none.
	profileDir string
	// screenshots receives the dash part's screenshots; "" takes none.
	screenshots string

	plane     *localcluster.Env
	planeFlux bool
	// controller is landlord-controller on plane, nil until a part asks.
	controller *controllerProcess
	stops      []func() error // plane and what runs on it, in start order
}

// controlPlane returns a control plane with or without Flux: the one in
// use if it matches, else a new one, once the one in use has stopped with
// all that ran on it, so that one part's leftovers never weigh on another's
// figures.
func (e *env) controlPlane(ctx context.Context, flux bool) (*localcluster.Env, error) {
	if e.plane != nil && e.planeFlux == flux {
		return e.plane, nil
	}
	if err := e.close(); err != nil {
		return nil, err
	}
	log.Printf("starting the control plane (Flux: %t)", flux)
	p, err := localcluster.Start(ctx, localcluster.Options{BinDir: e.bin, Flux: flux})
	if err != nil {
		return nil, err
	}
	e.plane, e.planeFlux = p, flux
	e.stops = []func() error{p.Stop}
	return p, nil
}

// close stops the control plane and what runs on it, last started first.
func (e *env) close() error {
	var errs []error
	for i := len(e.stops) - 1; i >= 0; i-- {
		errs = append(errs, e.stops[i]())
	}
	e.plane, e.controller, e.stops = nil, nil, nil
	return errors.Join(errs...)
}
