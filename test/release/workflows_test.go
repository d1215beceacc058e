package release_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// uses is a step's action reference with what follows it on the line.
var uses = regexp.MustCompile(`(?m)^\s*(?:-\s+)?uses:\s*(\S+)(.*)$`)

// pinned is an action at a full commit digest, the version it is named in
// a comment so that a reader and a bot can tell what it is.
var pinned = regexp.MustCompile(`^[^@\s]+@[0-9a-f]{40}$`)

// TestWorkflowActionsPinnedByDigest: a tag can be moved to other code, a
// digest cannot; each pin says which release it is.
func TestWorkflowActionsPinnedByDigest(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", ".github", "workflows", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no workflows (%v)", err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		steps := uses.FindAllStringSubmatch(string(b), -1)
		for _, m := range steps {
			ref, rest := m[1], strings.TrimSpace(m[2])
			if !pinned.MatchString(ref) || !strings.HasPrefix(rest, "# ") {
				t.Errorf("%s: uses %s %s, want owner/action@<40-hex digest> # <version>", filepath.Base(file), ref, rest)
			}
		}
		t.Logf("%s: %d actions pinned", filepath.Base(file), len(steps))
	}
}
