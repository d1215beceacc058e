package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/lint"
)

func init() { parts["p3"] = measureLint }

// builtinSchemas are lint's embedded OpenAPI schemas of the built-in kinds,
// read from the source tree: make bench runs in the repository's root.
const builtinSchemas = "internal/apivalidation/schemas"

// measureLint lints the fleet BenchmarkLintFleet lints with `landlord lint`
// as a child process, and times the baseline on the same files: `kustomize
// build` of every kustomization lint starts from, piped to `kubeconform
// -strict` with the same schemas, one overlay after the other as a CI
// script would.
func measureLint(ctx context.Context, e *env) ([]row, error) {
	dir, err := os.MkdirTemp("", "landlord-bench-lint-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	log.Printf("p3: writing %d tenants × 2 clusters", e.tenants)
	fleetDir, repos, err := lint.WriteBenchFleet(dir, e.tenants)
	if err != nil {
		return nil, err
	}

	args := []string{"lint", fleetDir}
	for _, r := range repos {
		args = append(args, "--tenant-repo", r.Tenant+"="+r.Dir)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(e.bin, "landlord"), args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("landlord lint: %w", err)
	}
	seconds := time.Since(start).Seconds()
	// ru_maxrss is in KiB on Linux.
	rssMiB := float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024

	schemaDir := filepath.Join(dir, "schemas")
	if err := writeKubeconformSchemas(schemaDir); err != nil {
		return nil, err
	}
	log.Printf("p3: baseline, kustomize build | kubeconform -strict")
	start = time.Now()
	if err := kustomizeKubeconform(ctx, e.bin, schemaDir, fleetDir, repos); err != nil {
		return nil, err
	}
	baseline := time.Since(start).Seconds()

	note := fmt.Sprintf("%d tenants × 2 clusters, every tenant repository", e.tenants)
	return []row{
		{part: "p3", figure: "lint, seconds", value: seconds, baseline: baseline, unit: "s",
			target: "≤ 5 s and ≥ 3× faster", met: seconds <= 5 && baseline >= 3*seconds, note: note},
		{part: "p3", figure: "lint, peak RSS", value: rssMiB, unit: "MiB",
			target: "≤ 1024 MiB", met: rssMiB <= 1024, note: "ru_maxrss of landlord lint"},
	}, nil
}

// kustomizeKubeconform builds each kustomization no other one takes in,
// of the fleet and of every tenant repository, and validates its output
// with kubeconform; the fleet's Flux Kustomizations, plain files, are
// validated as they are.
func kustomizeKubeconform(ctx context.Context, bin, schemaDir, fleetDir string, repos []lint.TenantRepo) error {
	location := filepath.Join(schemaDir, "{{ .Group }}-{{ .ResourceAPIVersion }}-{{ .ResourceKind }}.json")
	kubeconform := func(stdin io.Reader, files ...string) error {
		cmd := exec.CommandContext(ctx, filepath.Join(bin, "kubeconform"), append([]string{"-strict", "-schema-location", location}, files...)...)
		cmd.Stdin = stdin
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("kubeconform %s: %w: %s", strings.Join(files, " "), err, out)
		}
		return nil
	}
	overlays := []string{filepath.Join(fleetDir, "infrastructure"), filepath.Join(fleetDir, "tenants", "staging"), filepath.Join(fleetDir, "tenants", "production")}
	for _, r := range repos {
		overlays = append(overlays, filepath.Join(r.Dir, "staging"), filepath.Join(r.Dir, "production"))
	}
	for _, overlay := range overlays {
		build := exec.CommandContext(ctx, filepath.Join(bin, "kustomize"), "build", overlay)
		out, err := build.StdoutPipe()
		if err != nil {
			return err
		}
		build.Stderr = os.Stderr
		if err := build.Start(); err != nil {
			return err
		}
		if err := kubeconform(out); err != nil {
			return err
		}
		if err := build.Wait(); err != nil {
			return fmt.Errorf("kustomize build %s: %w", overlay, err)
		}
	}
	clusters, err := filepath.Glob(filepath.Join(fleetDir, "clusters", "*", "*.yaml"))
	if err != nil {
		return err
	}
	return kubeconform(nil, clusters...)
}

// writeKubeconformSchemas writes the schemas lint validates with in
// kubeconform's layout, one standalone JSON schema a kind, strict as
// kubeconform's own (no property a schema does not name): the built-in
// kinds with the definitions they refer to, and config/'s CRDs.
func writeKubeconformSchemas(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(apiVersion, kind string, schema map[string]any) error {
		group, version := path.Split(apiVersion)
		group = strings.TrimSuffix(group, "/")
		if group == "" {
			group = version
		}
		data, err := json.Marshal(schema)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%s-%s.json", group, version, strings.ToLower(kind))), data, 0o644)
	}
	files, err := filepath.Glob(filepath.Join(builtinSchemas, "*_*.json"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no schemas in %s: run make bench in the repository's root", builtinSchemas)
	}
	for _, file := range files {
		var definitions map[string]any
		if err := readJSON(file, &definitions); err != nil {
			return err
		}
		strict(definitions)
		for name, def := range definitions {
			gvks, _ := def.(map[string]any)["x-kubernetes-group-version-kind"].([]any)
			for _, g := range gvks {
				gvk, _ := g.(map[string]any)
				apiVersion := path.Join(fmt.Sprint(gvk["group"]), fmt.Sprint(gvk["version"]))
				// Each kind's file carries every definition of its group-version
				// file, where its references point.
				schema := map[string]any{"$ref": "#/components/schemas/" + name, "components": map[string]any{"schemas": definitions}}
				if err := write(apiVersion, fmt.Sprint(gvk["kind"]), schema); err != nil {
					return err
				}
			}
		}
	}
	crds, err := config.CRDs()
	if err != nil {
		return err
	}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			var schema map[string]any
			data, err := json.Marshal(v.Schema.OpenAPIV3Schema)
			if err != nil {
				return err
			}
			if err := json.Unmarshal(data, &schema); err != nil {
				return err
			}
			strict(schema)
			if err := write(crd.Spec.Group+"/"+v.Name, crd.Spec.Names.Kind, schema); err != nil {
				return err
			}
		}
	}
	return nil
}

// strict forbids properties an object schema does not name, as
// kubeconform's -strict schemas do, unless it allows any.
func strict(schema any) {
	switch s := schema.(type) {
	case map[string]any:
		if _, ok := s["properties"]; ok {
			if _, set := s["additionalProperties"]; !set && s["x-kubernetes-preserve-unknown-fields"] != true {
				s["additionalProperties"] = false
			}
		}
		for _, v := range s {
			strict(v)
		}
	case []any:
		for _, v := range s {
			strict(v)
		}
	}
}

func readJSON(file string, into any) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, into)
}
