package lint_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/landlord-dev/landlord/internal/hostilerepo"
	"github.com/landlord-dev/landlord/internal/lint"
)

// lintBound is how long lint may take on one hostile repository: the
// deadline of its context, and grace after it for lint to notice.
const (
	lintBound = 10 * time.Second
	lintGrace = 5 * time.Second
)

// FuzzLint lints a hostile fleet and tenant repository, written from the
// input by hostilerepo's machine (symlinks out of the repositories, ../ and
// absolute paths, loops, deep nesting, large files, Flux objects, garbage),
// as landlord lint does with --tenant-repo. Lint must not panic, must
// return within lintGrace of its context's deadline leaving no build
// running, must write nothing, and no finding, error or log line may carry
// a byte of the files outside the repositories (each holds the tree's
// marker).
func FuzzLint(f *testing.F) {
	for _, s := range hostilerepo.Seeds {
		f.Add(s.Program)
	}
	f.Fuzz(func(t *testing.T, program []byte) {
		// The tree four directories down, so that a write climbing out
		// of it is seen.
		top := t.TempDir()
		tree, err := hostilerepo.Write(filepath.Join(top, "1", "2", "3", "4"), program)
		if err != nil {
			t.Fatal(err)
		}
		// Temporary files land in the tree, which is checked for writes.
		t.Setenv("TMPDIR", tree.Tmp)
		before := hostilerepo.Snapshot(top)
		var logs bytes.Buffer
		log.SetOutput(&logs)
		defer log.SetOutput(os.Stderr)

		ctx, cancel := context.WithTimeout(context.Background(), lintBound)
		defer cancel()
		type result struct {
			findings []lint.Finding
			err      error
			panic    string
		}
		done := make(chan result, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					done <- result{panic: fmt.Sprintf("%v\n%s", p, debug.Stack())}
				}
			}()
			findings, err := lint.Lint(ctx, lint.Options{Dir: tree.Fleet,
				TenantRepos: []lint.TenantRepo{{Tenant: hostilerepo.Tenant, Dir: tree.TenantRepo}}})
			done <- result{findings: findings, err: err}
		}()
		var r result
		select {
		case r = <-done:
		case <-time.After(lintBound + lintGrace):
			t.Fatalf("lint still runs %v after its context's deadline of %v", lintGrace, lintBound)
		}
		if r.panic != "" {
			t.Fatalf("lint panicked: %s", r.panic)
		}
		if left := hostilerepo.StillRunning(lintGrace, "github.com/landlord-dev/landlord/internal/lint", "sigs.k8s.io/kustomize"); left != "" {
			t.Fatalf("lint returned (%v), yet its work still runs %v later:\n%s", r.err, lintGrace, left)
		}

		// Every output format (text, JSON, SARIF, GitHub) is made of the
		// findings' fields.
		out, err := json.Marshal(r.findings)
		if err != nil {
			t.Fatal(err)
		}
		for what, text := range map[string]string{"findings": string(out), "log": logs.String(), "error": fmt.Sprint(r.err)} {
			if strings.Contains(text, tree.Marker) {
				t.Errorf("the %s of lint carry a file from outside the repositories:\n%s", what, text)
			}
		}
		if changes := hostilerepo.Changes(before, hostilerepo.Snapshot(top)); len(changes) > 0 {
			t.Errorf("lint wrote:\n%s", strings.Join(changes, "\n"))
		}
	})
}
