// Command openapi writes the OpenAPI v3 schemas of the built-in stable
// group-versions, as served by the pinned kube-apiserver, into
// internal/apivalidation/schemas, so that offline validation judges against
// what a real apiserver publishes rather than hand-written schemas.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"k8s.io/client-go/kubernetes"

	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/localcluster"
)

// stable matches the discovery paths of the core group and of every other
// group at a GA version: alpha and beta APIs are off by default, so a fleet
// cannot rely on them.
var stable = regexp.MustCompile(`^(api/v1|apis/[^/]+/v[0-9]+)$`)

// dropped are schema keywords that only document: they make the files
// large and say nothing a validator checks. Defaults go too, since the
// apiserver applies built-in defaults in Go, not from OpenAPI.
var dropped = []string{"description", "default", "example", "externalDocs"}

func main() {
	out := flag.String("out", "internal/apivalidation/schemas", "directory to write one JSON file per group-version into")
	flag.Parse()
	log.SetFlags(0)
	if err := run(context.Background(), *out); err != nil {
		log.Fatalf("openapi: %v", err)
	}
}

func run(ctx context.Context, out string) (err error) {
	env, err := localcluster.Start(ctx, localcluster.Options{})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, env.Stop()) }()
	client, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		return err
	}
	paths, err := client.Discovery().OpenAPIV3().Paths()
	if err != nil {
		return fmt.Errorf("list /openapi/v3: %w", err)
	}
	builtIn, err := builtInPath()
	if err != nil {
		return err
	}
	files := map[string][]byte{}
	for path, gv := range paths {
		if !builtIn(path) {
			continue
		}
		raw, err := gv.Schema("application/json")
		if err != nil {
			return fmt.Errorf("get /openapi/v3/%s: %w", path, err)
		}
		data, err := compact(path, raw)
		if err != nil {
			return fmt.Errorf("/openapi/v3/%s: %w", path, err)
		}
		files[fileName(path)] = data
	}
	if len(files) == 0 {
		return errors.New("the apiserver served no stable group-version")
	}
	if files["resources.json"], err = scopes(client, builtIn); err != nil {
		return err
	}
	// Remove what an older apiserver served, so that the directory is
	// exactly this run's output.
	old, err := filepath.Glob(filepath.Join(out, "*.json"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// builtInPath reports a discovery path of a stable group-version the API
// server serves itself: the local control plane also serves the CRDs
// Landlord installs, whose schemas the CRDs carry.
func builtInPath() (func(string) bool, error) {
	crds, err := config.CRDs()
	if err != nil {
		return nil, err
	}
	installed := map[string]bool{}
	for _, crd := range crds {
		installed[crd.Spec.Group] = true
	}
	return func(path string) bool {
		group, _, _ := strings.Cut(strings.TrimPrefix(path, "apis/"), "/")
		return stable.MatchString(path) && !installed[group]
	}, nil
}

// scopes lists, per stable group-version, each resource kind and whether
// it is namespaced: OpenAPI does not say, discovery does.
func scopes(client kubernetes.Interface, builtIn func(string) bool) ([]byte, error) {
	_, lists, err := client.Discovery().ServerGroupsAndResources()
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	out := map[string]map[string]bool{}
	for _, list := range lists {
		path := "apis/" + list.GroupVersion
		if list.GroupVersion == "v1" {
			path = "api/v1"
		}
		if !builtIn(path) {
			continue
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") {
				continue // a subresource
			}
			if out[list.GroupVersion] == nil {
				out[list.GroupVersion] = map[string]bool{}
			}
			out[list.GroupVersion][r.Kind] = r.Namespaced
		}
	}
	// encoding/json sorts map keys, so the output is deterministic.
	data, err := json.MarshalIndent(out, "", " ")
	return append(data, '\n'), err
}

// fileName is api/v1 -> core_v1.json, apis/apps/v1 -> apps_v1.json.
func fileName(path string) string {
	if path == "api/v1" {
		return "core_v1.json"
	}
	group, version, _ := strings.Cut(strings.TrimPrefix(path, "apis/"), "/")
	return group + "_" + version + ".json"
}

// document is the part of an OpenAPI v3 document lint reads.
type document struct {
	Components struct {
		Schemas map[string]map[string]any `json:"schemas"`
	} `json:"components"`
}

// compact keeps the definitions reachable from the kinds of the
// group-version at path, without documentation, one definition a line in
// name order so that a regeneration diffs line by line.
func compact(path string, raw []byte) ([]byte, error) {
	var doc document
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	group, version := "", "v1"
	if path != "api/v1" {
		group, version, _ = strings.Cut(strings.TrimPrefix(path, "apis/"), "/")
	}
	keep := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		if keep[name] {
			return
		}
		def, ok := doc.Components.Schemas[name]
		if !ok {
			return
		}
		keep[name] = true
		for _, ref := range refs(def, nil) {
			visit(ref)
		}
	}
	for name, def := range doc.Components.Schemas {
		if servesKind(def, group, version) {
			visit(name)
		}
	}
	if len(keep) == 0 {
		return nil, errors.New("no kind of this group-version in components.schemas")
	}
	var buf bytes.Buffer
	buf.WriteString("{\n")
	names := make([]string, 0, len(keep))
	for name := range keep {
		names = append(names, name)
	}
	slices.Sort(names)
	for i, name := range names {
		key, err := json.Marshal(name)
		if err != nil {
			return nil, err
		}
		// encoding/json sorts map keys, so the output is deterministic.
		def, err := json.Marshal(strip(doc.Components.Schemas[name]))
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&buf, "%s: %s", key, def)
		if i < len(names)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}

// servesKind reports whether the definition is a kind of group/version.
func servesKind(def map[string]any, group, version string) bool {
	gvks, _ := def["x-kubernetes-group-version-kind"].([]any)
	for _, g := range gvks {
		m, _ := g.(map[string]any)
		if m["group"] == group && m["version"] == version {
			return true
		}
	}
	return false
}

const refPrefix = "#/components/schemas/"

// refs collects the names of the definitions schema refers to.
func refs(schema any, acc []string) []string {
	switch s := schema.(type) {
	case map[string]any:
		for k, v := range s {
			if r, ok := v.(string); ok && k == "$ref" && strings.HasPrefix(r, refPrefix) {
				acc = append(acc, strings.TrimPrefix(r, refPrefix))
				continue
			}
			acc = refs(v, acc)
		}
	case []any:
		for _, v := range s {
			acc = refs(v, acc)
		}
	}
	return acc
}

// strip removes the documentation keywords from a schema and its
// subschemas, leaving property names alone even when a property is called
// description or default.
func strip(schema map[string]any) map[string]any {
	out := make(map[string]any, len(schema))
	for k, v := range schema {
		if slices.Contains(dropped, k) {
			continue
		}
		switch k {
		case "properties":
			props := map[string]any{}
			for name, p := range v.(map[string]any) {
				props[name] = strip(p.(map[string]any))
			}
			v = props
		case "items", "additionalProperties", "not":
			if m, ok := v.(map[string]any); ok {
				v = strip(m)
			}
		case "allOf", "anyOf", "oneOf":
			list := []any{}
			for _, s := range v.([]any) {
				list = append(list, strip(s.(map[string]any)))
			}
			v = list
		}
		out[k] = v
	}
	return out
}
