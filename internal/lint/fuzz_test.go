package lint_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
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
		var logs bytes.Buffer
		log.SetOutput(&logs)
		defer log.SetOutput(os.Stderr)
		var findings []lint.Finding
		r := hostilerepo.Execute(t, program, "lint", lintBound, lintGrace, func(ctx context.Context, tree *hostilerepo.Tree) (err error) {
			findings, err = lint.Lint(ctx, lint.Options{Dir: tree.Fleet,
				TenantRepos: []lint.TenantRepo{{Tenant: hostilerepo.Tenant, Dir: tree.TenantRepo}}})
			return err
		})
		tree := r.Tree

		// Every output format (text, JSON, SARIF, GitHub) is made of the
		// findings' fields.
		out, err := json.Marshal(findings)
		if err != nil {
			t.Fatal(err)
		}
		for what, text := range map[string]string{"findings": string(out), "log": logs.String(), "error": fmt.Sprint(r.Err)} {
			if strings.Contains(text, tree.Marker) {
				t.Errorf("the %s of lint carry a file from outside the repositories:\n%s", what, text)
			}
		}
		if changes := hostilerepo.Changes(r.Before, hostilerepo.Snapshot(r.Top)); len(changes) > 0 {
			t.Errorf("lint wrote:\n%s", strings.Join(changes, "\n"))
		}
	})
}
