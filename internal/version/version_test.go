package version

import (
	"strings"
	"testing"
)

func TestGet(t *testing.T) {
	for name, tc := range map[string]struct {
		version, revision string
		want              string
	}{
		"unstamped": {want: "dev"},
		"stamped":   {version: "v0.1.0", revision: "abc123", want: "v0.1.0 (abc123)"},
	} {
		t.Run(name, func(t *testing.T) {
			oldV, oldR := Version, Revision
			t.Cleanup(func() { Version, Revision = oldV, oldR })
			Version, Revision = tc.version, tc.revision
			got := Get()
			if got.Version == "" || got.Go == "" || got.Platform == "" {
				t.Fatalf("incomplete: %+v", got)
			}
			if s := got.String(); !strings.HasPrefix(s, tc.want) {
				t.Errorf("String() = %q, want it to start with %q", s, tc.want)
			}
		})
	}
}
