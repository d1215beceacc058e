package lockdown

import (
	"slices"
	"testing"
)

// kustomizeLocked is kustomize-controller's complete lockdown.
var kustomizeLocked = []string{"--no-cross-namespace-refs=true", "--no-remote-bases=true", "--default-service-account=default",
	"--feature-gates=ObjectLevelWorkloadIdentity=true", "--default-decryption-service-account=default", "--default-kubeconfig-service-account=default"}

func TestMissing(t *testing.T) {
	for name, c := range map[string]struct {
		controller string
		args       []string
		want       []string
	}{
		"locked down": {"kustomize-controller", []string{"--no-cross-namespace-refs=true", "--no-remote-bases", "--default-service-account", "flux-applier",
			"--feature-gates=OOMWatch=true", "--feature-gates", "ObjectLevelWorkloadIdentity=true", "--default-decryption-service-account=sops", "--default-kubeconfig-service-account=kubeconfig"}, nil},
		"nothing set": {"helm-controller", []string{"--watch-all-namespaces"},
			[]string{"--no-cross-namespace-refs=true", "--default-service-account=default", "--feature-gates=ObjectLevelWorkloadIdentity=true", "--default-kubeconfig-service-account=default"}},
		"turned off": {"kustomize-controller", []string{"--no-cross-namespace-refs=false", "--no-remote-bases=true", "--default-service-account=",
			"--feature-gates=ObjectLevelWorkloadIdentity=true", "--default-kubeconfig-service-account=default"},
			[]string{"--no-cross-namespace-refs=true", "--default-service-account=default", "--default-decryption-service-account=default"}},
		"the last one counts": {"notification-controller", []string{"--no-cross-namespace-refs=true", "--no-cross-namespace-refs=false",
			"--default-service-account=default", "--feature-gates=ObjectLevelWorkloadIdentity=true", "--feature-gates=ObjectLevelWorkloadIdentity=false"},
			[]string{"--no-cross-namespace-refs=true", "--feature-gates=ObjectLevelWorkloadIdentity=true"}},
		"source without object identity": {"source-controller", []string{"--storage-path=/data", "--default-service-account=default"},
			[]string{"--feature-gates=ObjectLevelWorkloadIdentity=true"}},
		"image reflector": {"image-reflector-controller", nil,
			[]string{"--no-cross-namespace-refs=true", "--feature-gates=ObjectLevelWorkloadIdentity=true", "--default-service-account=default"}},
		"no such controller": {"flux-operator", nil, nil},
		// pflag's reading: booleans as ParseBool reads them, "--" ends the
		// flags, a string flag alone takes the next argument whatever it is.
		"booleans written otherwise": {"notification-controller", []string{"--no-cross-namespace-refs=True", "--feature-gates=ObjectLevelWorkloadIdentity=1", "--default-service-account=default"}, nil},
		"flags after the end of flags": {"notification-controller", []string{"--watch-all-namespaces", "--", "--no-cross-namespace-refs=true",
			"--feature-gates=ObjectLevelWorkloadIdentity=true", "--default-service-account=default"},
			[]string{"--no-cross-namespace-refs=true", "--feature-gates=ObjectLevelWorkloadIdentity=true", "--default-service-account=default"}},
		"a flag swallowed as another's value": {"notification-controller", []string{"--enable-leader-election", "--feature-gates=ObjectLevelWorkloadIdentity=true",
			"--default-service-account=default", "--events-addr", "--no-cross-namespace-refs=true"},
			[]string{"--no-cross-namespace-refs=true"}},
	} {
		if got := Missing(c.controller, c.args); !slices.Equal(got, c.want) {
			t.Errorf("%s: Missing = %q, want %q", name, got, c.want)
		}
	}
}

func TestArgs(t *testing.T) {
	if got := Args("kustomize-controller"); !slices.Equal(got, kustomizeLocked) {
		t.Errorf("Args = %q, want %q", got, kustomizeLocked)
	}
}

func TestLock(t *testing.T) {
	for name, c := range map[string]struct {
		controller string
		args, want []string
	}{
		"from scratch": {"kustomize-controller", []string{"--events-addr=http://nc/"}, append([]string{"--events-addr=http://nc/"}, kustomizeLocked...)},
		"replaced where it stands, later ones dropped": {"helm-controller",
			[]string{"--no-cross-namespace-refs", "--log-level=info", "--no-cross-namespace-refs=false", "--default-service-account", "", "--x"},
			[]string{"--no-cross-namespace-refs=true", "--log-level=info", "--default-service-account=default",
				"--feature-gates=ObjectLevelWorkloadIdentity=true", "--default-kubeconfig-service-account=default", "--x"}},
		"added before the end of flags": {"source-controller", []string{"--storage-path=/data", "--", "extra"},
			[]string{"--storage-path=/data", "--feature-gates=ObjectLevelWorkloadIdentity=true", "--default-service-account=default", "--", "extra"}},
		"the platform's account kept": {"source-controller", []string{"--default-service-account=flux-fetcher"},
			[]string{"--default-service-account=flux-fetcher", "--feature-gates=ObjectLevelWorkloadIdentity=true"}},
		"other gates kept, occurrences merged": {"source-controller",
			[]string{"--feature-gates=OOMWatch=true,ObjectLevelWorkloadIdentity=false", "--storage-path=/data", "--feature-gates", "CacheSecretsAndConfigMaps=true"},
			[]string{"--feature-gates=OOMWatch=true,ObjectLevelWorkloadIdentity=true,CacheSecretsAndConfigMaps=true", "--storage-path=/data", "--default-service-account=default"}},
		"locked down already": {"kustomize-controller", kustomizeLocked, kustomizeLocked},
	} {
		got := Lock(c.controller, c.args)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: Lock =\n %q\nwant\n %q", name, got, c.want)
		}
		if missing := Missing(c.controller, got); missing != nil {
			t.Errorf("%s: still missing %q", name, missing)
		}
	}
}
