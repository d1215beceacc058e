// Package testenv holds what tests need around a local cluster
// (internal/localcluster): one per package, and polling for what the
// controllers do on their own time.
package testenv

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/landlord-dev/landlord/internal/localcluster"
)

// RunMain is the body of a TestMain sharing one control plane across a
// package's tests: it starts the environment, hands it to setup, runs the
// tests and stops the environment, also when a test panics on the main
// goroutine. Use it as os.Exit(testenv.RunMain(m, setup)).
func RunMain(m *testing.M, setup func(*localcluster.Env) error) int {
	return RunMainWith(m, localcluster.Options{}, setup)
}

// RunMainWith is RunMain with an environment started with opts, such as
// localcluster.Options{Flux: true}.
func RunMainWith(m *testing.M, opts localcluster.Options, setup func(*localcluster.Env) error) (code int) {
	env, err := localcluster.Start(context.Background(), opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
		return 1
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "testenv: stop: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}()
	if setup != nil {
		if err := setup(env); err != nil {
			fmt.Fprintf(os.Stderr, "testenv: setup: %v\n", err)
			return 1
		}
	}
	return m.Run()
}

// Eventually calls check until it returns nil, failing t with check's last
// error once timeout has passed: the controllers under test act on their
// own time.
func Eventually(t testing.TB, timeout time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %v", timeout, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// RunMainWithController is RunMainWith for packages that run
// landlord-controller as a process: it builds the binary from source while
// the control plane starts, and hands setup its path too.
func RunMainWithController(m *testing.M, opts localcluster.Options, setup func(e *localcluster.Env, bin string) error) int {
	dir, err := os.MkdirTemp("", "landlord-controller-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	var bin string
	built := make(chan error, 1)
	go func() {
		var err error
		bin, err = localcluster.BuildController(dir)
		built <- err
	}()
	return RunMainWith(m, opts, func(e *localcluster.Env) error {
		if err := <-built; err != nil {
			return err
		}
		return setup(e, bin)
	})
}
