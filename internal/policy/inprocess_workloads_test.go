package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/distribution/reference"
	"github.com/google/cel-go/cel"
	"github.com/opencontainers/go-digest"
	"k8s.io/apiserver/pkg/cel/environment"
)

// evalCEL evaluates expr in the API server's CEL environment of the
// oldest Kubernetes Landlord supports, with vars declared dynamic.
func evalCEL(t testing.TB, expr string, vars map[string]any) any {
	t.Helper()
	var opts []cel.EnvOption
	for name := range vars {
		opts = append(opts, cel.Variable(name, cel.DynType))
	}
	env, err := environment.MustBaseEnvSet(OldestKubernetes).NewExpressionsEnv().Extend(opts...)
	if err != nil {
		t.Fatal(err)
	}
	ast, issues := env.Compile(expr)
	if issues.Err() != nil {
		t.Fatalf("%s: %v", expr, issues.Err())
	}
	prg, err := env.Program(ast)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := prg.Eval(vars)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return out.Value()
}

// TestPullPolicyDefault is the API server's defaulting, which lint applies
// to manifests that leave the policy out.
func TestPullPolicyDefault(t *testing.T) {
	for image, want := range map[string]string{
		"nginx":                      "Always",
		"nginx:latest":               "Always",
		"nginx:1.27":                 "IfNotPresent",
		"localhost:5000/nginx":       "Always",
		"localhost:5000/nginx:1.27":  "IfNotPresent",
		"nginx@sha256:" + sha:        "IfNotPresent",
		"nginx:latest@sha256:" + sha: "Always",
	} {
		pull := map[string]any{"image": image, "imagePullPolicy": ""}
		if got := evalCEL(t, pullPolicy("p"), map[string]any{"p": pull}); got != want {
			t.Errorf("%s: %s, want %s", image, got, want)
		}
	}
}

// FuzzImageName: the full name the policy reads of an image is the one
// distribution/reference, the parser of the kubelet and the container
// runtimes, reads; where that parser refuses an image the policy finds no
// name, but for a digest it cannot check (an algorithm or length), which
// no runtime pulls either.
func FuzzImageName(f *testing.F) {
	for _, seed := range []string{
		"nginx", "nginx:1.27", "library/nginx", "docker.io/nginx", "index.docker.io/library/nginx:latest",
		"registry.example.com/team/app:1.0", "registry.example.com:5000/team/app@sha256:" + sha, "localhost/app", "localhost:5000/app",
		"Registry.Example.com/app", "REGISTRY/app", "team/App", "registry.example.com/team/app:1.0@sha256:" + sha, sha,
		"registry.example.com.evil.io/team/app", "ghcr.io/team-b/app", "a:b:c", "a//b", "-a/b", "[::1]:5000/app", "app:", "app@",
		// A first part with a dot that is no host name is path: 258 long.
		"a.b_c/" + strings.Repeat("x", 252),
	} {
		f.Add(seed)
	}
	env, err := environment.MustBaseEnvSet(OldestKubernetes).NewExpressionsEnv().Extend(cel.Variable("i", cel.StringType))
	if err != nil {
		f.Fatal(err)
	}
	ast, issues := env.Compile(imageName("i"))
	if issues.Err() != nil {
		f.Fatal(issues.Err())
	}
	prg, err := env.Program(ast)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, image string) {
		out, _, err := prg.Eval(map[string]any{"i": image})
		if err != nil {
			t.Fatalf("%q: %v", image, err)
		}
		got := out.Value().(string)
		named, err := reference.ParseNormalizedNamed(image)
		switch {
		case err == nil && got != named.Name():
			t.Fatalf("%q: the policy reads %q, the runtimes %q", image, got, named.Name())
		case err != nil && got != "" && !errors.Is(err, digest.ErrDigestUnsupported) && !errors.Is(err, digest.ErrDigestInvalidLength) && !errors.Is(err, digest.ErrDigestInvalidFormat):
			t.Fatalf("%q: the policy reads %q, the runtimes refuse it: %v", image, got, err)
		}
	})
}
