package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
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

// FuzzImport runs landlord tenant import --output-dir DIR on a hostile fleet written
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
		type tenant struct{ dir, name string }
		var (
			want, bad      []tenant
			applied        error
			stdout, stderr bytes.Buffer
		)
		r := hostilerepo.Execute(t, program, "tenant import", importBound, importGrace, func(ctx context.Context, tree *hostilerepo.Tree) error {
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
			cmd.SetArgs([]string{"tenant", "import", tree.Fleet, "--output-dir", tree.Out})
			cmd.SetOut(&stdout)
			cmd.SetErr(&stderr)
			return cmd.ExecuteContext(ctx)
		})
		top, tree, before, err := r.Top, r.Tree, r.Before, r.Err
		t.Logf("tenants %q, badly named %q: %v", want, bad, err)

		after := hostilerepo.Snapshot(top)
		out, _ := filepath.Rel(top, tree.Out)
		if changes := hostilerepo.Changes(before, after, out); len(changes) > 0 {
			t.Fatalf("tenant import --output-dir %s changed what is outside it:\n%s", out, strings.Join(changes, "\n"))
		}
		written := hostilerepo.Changes(before, after)
		for what, text := range map[string]string{"output": stdout.String(), "messages": stderr.String(), "error": fmt.Sprint(err)} {
			if strings.Contains(text, tree.Marker) {
				t.Errorf("the %s of tenant import carry a file from outside the fleet:\n%s", what, text)
			}
		}

		if applied != nil || r.TimedOut {
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
