package lockdown

import (
	"slices"
	"testing"
)

func TestMissing(t *testing.T) {
	for name, c := range map[string]struct {
		controller string
		args       []string
		want       []string
	}{
		"locked down": {"kustomize-controller",
			[]string{"--no-cross-namespace-refs=true", "--no-remote-bases", "--default-service-account", "flux-applier"}, nil},
		"nothing set": {"helm-controller", []string{"--watch-all-namespaces"},
			[]string{"--no-cross-namespace-refs=true", "--default-service-account=default"}},
		"turned off":          {"kustomize-controller", []string{"--no-cross-namespace-refs=false", "--no-remote-bases=true", "--default-service-account="}, []string{"--no-cross-namespace-refs=true", "--default-service-account=default"}},
		"the last one counts": {"notification-controller", []string{"--no-cross-namespace-refs=true", "--no-cross-namespace-refs=false"}, []string{"--no-cross-namespace-refs=true"}},
		"no such controller":  {"source-controller", nil, nil},
	} {
		if got := Missing(c.controller, c.args); !slices.Equal(got, c.want) {
			t.Errorf("%s: Missing = %q, want %q", name, got, c.want)
		}
	}
}

func TestArgs(t *testing.T) {
	want := []string{"--no-cross-namespace-refs=true", "--no-remote-bases=true", "--default-service-account=default"}
	if got := Args("kustomize-controller"); !slices.Equal(got, want) {
		t.Errorf("Args = %q, want %q", got, want)
	}
}
