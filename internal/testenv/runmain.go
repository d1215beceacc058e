package testenv

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// RunMain is the body of a TestMain sharing one control plane across a
// package's tests: it starts the environment, hands it to setup, runs the
// tests and stops the environment, also when a test panics on the main
// goroutine. Use it as os.Exit(testenv.RunMain(m, setup)).
func RunMain(m *testing.M, setup func(*Env) error) int {
	return RunMainWith(m, Options{}, setup)
}

// RunMainWith is RunMain with an environment started with opts, such as
// Options{Flux: true}.
func RunMainWith(m *testing.M, opts Options, setup func(*Env) error) (code int) {
	env, err := Start(context.Background(), opts)
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
