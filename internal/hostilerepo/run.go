package hostilerepo

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"
)

// Run is one execution of a fuzz target on a hostile repository.
type Run struct {
	// Top is the directory four levels above the tree, so that a write
	// climbing out of it is seen.
	Top  string
	Tree *Tree
	// Before is Top's snapshot before the command ran.
	Before map[string]string
	// Err is the command's error; TimedOut tells its context ended first.
	Err      error
	TimedOut bool
}

// Execute writes program's tree, with TMPDIR inside it, and runs what on
// it with a context that ends after bound. It fails t when what panics,
// still runs grace after that deadline, or left lint or kustomize work
// running grace after it returned: work no deadline ends.
func Execute(t *testing.T, program []byte, name string, bound, grace time.Duration, what func(ctx context.Context, tree *Tree) error) Run {
	t.Helper()
	r := Run{Top: t.TempDir()}
	var err error
	if r.Tree, err = Write(filepath.Join(r.Top, "1", "2", "3", "4"), program); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", r.Tree.Tmp)
	r.Before = Snapshot(r.Top)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	type result struct {
		err   error
		panic string
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{panic: fmt.Sprintf("%v\n%s", p, debug.Stack())}
			}
		}()
		done <- result{err: what(ctx, r.Tree)}
	}()
	var res result
	select {
	case res = <-done:
	case <-time.After(bound + grace):
		t.Fatalf("%s still runs %v after its context's deadline of %v", name, grace, bound)
	}
	if res.panic != "" {
		t.Fatalf("%s panicked: %s", name, res.panic)
	}
	r.Err = res.err
	if left := StillRunning(grace, "github.com/landlord-dev/landlord/internal/lint", "sigs.k8s.io/kustomize"); left != "" {
		t.Fatalf("%s returned (%v), yet its work still runs %v later:\n%s", name, r.Err, grace, left)
	}
	r.TimedOut = ctx.Err() != nil
	return r
}
