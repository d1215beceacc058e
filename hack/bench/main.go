// Command bench measures provisioning, the idle controller, admission and
// lint beside their baselines on a local control plane, and prints one
// table: `make bench`, or `go run ./hack/bench -tenants 5000 -only p1`.
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

	"github.com/landlord-dev/landlord/internal/testenv"
)

func main() {
	tenants := flag.Int("tenants", 1000, "tenants provisioned in p1 and held while p2 runs")
	only := flag.String("only", "", "comma-separated parts to run, of "+strings.Join(order, ", ")+"; every part when empty")
	bin := flag.String("bin", "bin", "directory of the control-plane, Flux, landlord and kubectl binaries")
	concurrency := flag.Int("concurrency", 0, "landlord-controller's --concurrency; its default when 0")
	profiles := flag.String("profile", "", "directory to write profiles into: landlord-controller's CPU under p1 and p2 load and heap after p1, the API server's CPU under p2")
	flag.Parse()
	log.SetFlags(log.Ltime)
	log.SetOutput(os.Stderr)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	names := slices.DeleteFunc(slices.Clone(order), func(name string) bool { return parts[name] == nil })
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	if err := run(ctx, *tenants, names, *bin, *profiles, *concurrency); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, tenants int, only []string, bin, profiles string, concurrency int) (retErr error) {
	for _, name := range only {
		if _, ok := parts[name]; !ok {
			return fmt.Errorf("-only %s: no such part; parts: %s", name, strings.Join(order, ", "))
		}
	}
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	e := &env{tenants: tenants, bin: bin, profileDir: profiles, concurrency: concurrency, planes: map[bool]*testenv.Env{}, controllers: map[*testenv.Env]*controllerProcess{}}
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

// env is what the parts share: the run's settings and the control planes
// they started, stopped once every part has run.
type env struct {
	tenants int
	bin     string
	// concurrency is landlord-controller's --concurrency, 0 for its default.
	concurrency int
	// profileDir receives CPU profiles of landlord-controller; "" takes none.
	profileDir string
	planes     map[bool]*testenv.Env // by whether Flux runs
	// controllers are the landlord-controller processes, by control plane.
	controllers map[*testenv.Env]*controllerProcess
	stops       []func() error // what else to stop, in start order
}

// controlPlane returns the run's control plane, with or without Flux,
// starting it on first use.
func (e *env) controlPlane(ctx context.Context, flux bool) (*testenv.Env, error) {
	if p, ok := e.planes[flux]; ok {
		return p, nil
	}
	log.Printf("starting the control plane (Flux: %t)", flux)
	p, err := testenv.Start(ctx, testenv.Options{BinDir: e.bin, Flux: flux})
	if err != nil {
		return nil, err
	}
	e.planes[flux] = p
	e.stops = append(e.stops, p.Stop)
	return p, nil
}

// onClose stops what a part started, before the control plane it runs on.
func (e *env) onClose(stop func() error) {
	e.stops = append(e.stops, stop)
}

// close stops everything, last started first.
func (e *env) close() error {
	var errs []error
	for i := len(e.stops) - 1; i >= 0; i-- {
		errs = append(errs, e.stops[i]())
	}
	return errors.Join(errs...)
}
