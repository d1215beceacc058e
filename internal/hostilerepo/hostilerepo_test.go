package hostilerepo

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWrite checks what the fuzz tests take for granted, for every seed:
// the machine writes nothing outside the tree's root, the same program
// makes the same tree, and only the files outside the repositories hold
// the marker.
func TestWrite(t *testing.T) {
	for _, s := range Seeds {
		t.Run(s.Name, func(t *testing.T) {
			top := t.TempDir()
			tree, err := Write(filepath.Join(top, "root"), s.Program)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Write(filepath.Join(top, "again"), s.Program)
			if err != nil {
				t.Fatal(err)
			}
			entries, _ := os.ReadDir(top)
			if len(entries) != 2 {
				t.Errorf("%d entries beside the trees, want none", len(entries)-2)
			}
			if got, want := paths(t, again.Root), paths(t, tree.Root); !slices.Equal(got, want) {
				t.Errorf("the program makes %q, then %q", want, got)
			}
			_ = filepath.WalkDir(tree.Root, func(p string, d fs.DirEntry, err error) error {
				if err != nil || !d.Type().IsRegular() {
					return nil
				}
				data, err := os.ReadFile(p)
				if err != nil {
					t.Error(err)
				}
				outside := strings.HasPrefix(p, tree.Outside+string(filepath.Separator))
				if strings.Contains(string(data), tree.Marker) != outside {
					t.Errorf("%s: holds the marker %v, outside the repositories %v", p, !outside, outside)
				}
				return nil
			})
		})
	}
}

// paths lists the entries below dir.
func paths(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for p := range Snapshot(dir) {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}
