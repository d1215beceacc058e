package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/internal/cli"
	"github.com/landlord-dev/landlord/internal/handmade"
	"github.com/landlord-dev/landlord/internal/hostilerepo"
	"github.com/landlord-dev/landlord/internal/lint"
)

// importBound is how long tenant import may take on one hostile fleet:
// the deadline of its context, and grace after it.
const (
	importBound = 10 * time.Second
	importGrace = 5 * time.Second
)

// FuzzImport runs landlord tenant import -o DIR on a hostile fleet written
// from the input by hostilerepo's machine: hand-made tenants whose labels,
// accounts and namespaces climb out (../), are absolute, hold NUL or are
// too long, symlinks out of the fleet, and DIR itself planted with
// symlinks out and in loops. Import must not panic, must return within
// importGrace of its deadline leaving no build running, must create or
// change nothing outside DIR, must reveal nothing of the files outside the
// fleet, and must write each Tenant to DIR/<fleet directory>/<name>.yaml
// under a DNS subdomain name; a fleet with a tenant whose name is not one
// gets nothing written and an error naming that name.
func FuzzImport(f *testing.F) {
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
		t.Setenv("TMPDIR", tree.Tmp)
		ctx, cancel := context.WithTimeout(context.Background(), importBound)
		defer cancel()

		before := hostilerepo.Snapshot(top)
		type tenant struct{ dir, name string }
		var (
			want, bad      []tenant
			applied        error
			stdout, stderr bytes.Buffer
		)
		done := make(chan error, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					done <- fmt.Errorf("panic: %v\n%s", p, debug.Stack())
				}
			}()
			// What import should do, from the library calls it makes.
			var builds []lint.AppliedBuild
			builds, _, applied = lint.Applied(ctx, tree.Fleet)
			for _, b := range builds {
				for _, h := range handmade.Find(b.Objects).Tenants {
					want = append(want, tenant{b.Dir, h.Tenant.Name})
					if len(validation.IsDNS1123Subdomain(h.Tenant.Name)) > 0 {
						bad = append(bad, tenant{b.Dir, h.Tenant.Name})
					}
				}
			}
			cmd := cli.NewRootCommand()
			cmd.SetArgs([]string{"tenant", "import", tree.Fleet, "-o", tree.Out})
			cmd.SetOut(&stdout)
			cmd.SetErr(&stderr)
			done <- cmd.ExecuteContext(ctx)
		}()
		select {
		case err = <-done:
		case <-time.After(importBound + importGrace):
			t.Fatalf("tenant import still runs %v after its context's deadline of %v", importGrace, importBound)
		}
		t.Logf("tenants %q, badly named %q: %v", want, bad, err)
		if err != nil && strings.HasPrefix(err.Error(), "panic: ") {
			t.Fatalf("tenant import panicked: %v", err)
		}
		if left := hostilerepo.StillRunning(importGrace, "github.com/landlord-dev/landlord/internal/lint", "sigs.k8s.io/kustomize"); left != "" {
			t.Fatalf("tenant import returned (%v), yet its work still runs %v later:\n%s", err, importGrace, left)
		}

		after := hostilerepo.Snapshot(top)
		out, _ := filepath.Rel(top, tree.Out)
		if changes := hostilerepo.Changes(before, after, out); len(changes) > 0 {
			t.Fatalf("tenant import -o %s changed what is outside it:\n%s", out, strings.Join(changes, "\n"))
		}
		written := hostilerepo.Changes(before, after)
		for what, text := range map[string]string{"output": stdout.String(), "messages": stderr.String(), "error": fmt.Sprint(err)} {
			if strings.Contains(text, tree.Marker) {
				t.Errorf("the %s of tenant import carry a file from outside the fleet:\n%s", what, text)
			}
		}

		if applied != nil || ctx.Err() != nil {
			return // import fails as lint does, or ran out of time: FuzzLint judges that
		}
		if len(bad) > 0 {
			if err == nil || !strings.Contains(err.Error(), "nothing imported") {
				t.Fatalf("tenants named %q imported: err %v", bad, err)
			}
			for _, b := range bad {
				if !strings.Contains(err.Error(), fmt.Sprintf("tenant name %q", b.name)) {
					t.Errorf("the refusal does not name tenant name %q:\n%v", b.name, err)
				}
			}
			if len(written) > 0 {
				t.Errorf("tenant import refused, yet wrote:\n%s", strings.Join(written, "\n"))
			}
			return
		}
		if err != nil {
			return // a write refused (a symlink out of DIR, a name too long): nothing outside changed
		}
		for _, w := range want {
			file := filepath.Join(tree.Out, filepath.FromSlash(path.Join(w.dir, w.name+".yaml")))
			data, err := os.ReadFile(file)
			if err != nil {
				t.Errorf("tenant %q of %s: %v", w.name, w.dir, err)
				continue
			}
			if strings.Contains(string(data), tree.Marker) {
				t.Errorf("%s carries a file from outside the fleet:\n%s", file, data)
			}
			var got struct {
				Kind     string
				Metadata struct{ Name string }
			}
			if err := yaml.Unmarshal(data, &got); err != nil || got.Kind != "Tenant" || got.Metadata.Name != w.name {
				t.Errorf("%s is not Tenant %q (%v):\n%s", file, w.name, err, data)
			}
		}
	})
}
