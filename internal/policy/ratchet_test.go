package policy

import (
	"slices"
	"testing"
)

func TestSplitFieldPath(t *testing.T) {
	for in, want := range map[string][]string{
		"":                              nil,
		"spec":                          {"spec"},
		"spec.sources[0].path":          {"spec", "sources", "0", "path"},
		"metadata.labels[a.b/c]":        {"metadata", "labels", "a.b/c"},
		"subjects[1]":                   {"subjects", "1"},
		"spec.containers[0].env[2].nam": {"spec", "containers", "0", "env", "2", "nam"},
	} {
		if got := SplitFieldPath(in); !slices.Equal(got, want) {
			t.Errorf("SplitFieldPath(%q) = %q, want %q", in, got, want)
		}
	}
}
