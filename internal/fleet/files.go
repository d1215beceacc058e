// Package fleet scaffolds fleet and tenant repositories and adds tenants to
// them, as files on disk: no cluster, no Git.
package fleet

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"
)

// Action says what happened to one file.
type Action string

const (
	Created   Action = "created"
	Updated   Action = "updated"
	Unchanged Action = "unchanged"
	// Kept is a file of Landlord's that was edited by hand: left as it is,
	// with a note of what it lacks.
	Kept Action = "kept"
)

// Change is one file written, or found identical, below the repository root.
type Change struct {
	Path   string
	Action Action
	// Note says why a file was kept.
	Note string
}

// file is one file to write, its path relative to the repository root.
type file struct {
	path string
	data []byte
	// merged files (kustomization.yaml read, changed and written back) may
	// replace what is there; the others must be absent or identical.
	merged bool
	// previous is what Landlord wrote here before, which it may replace;
	// a file matching neither is kept, noted with handEdited.
	previous   []byte
	handEdited string
}

// writeFiles checks every file before writing any, so that a refusal leaves
// the repository as it was.
func writeFiles(root string, files []file) ([]Change, error) {
	changes := make([]Change, 0, len(files))
	for _, f := range files {
		old, err := os.ReadFile(filepath.Join(root, f.path))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			changes = append(changes, Change{Path: f.path, Action: Created})
		case err != nil:
			return nil, err
		case bytes.Equal(old, f.data):
			changes = append(changes, Change{Path: f.path, Action: Unchanged})
		case f.merged || (f.previous != nil && bytes.Equal(old, f.previous)):
			changes = append(changes, Change{Path: f.path, Action: Updated})
		case f.handEdited != "":
			changes = append(changes, Change{Path: f.path, Action: Kept, Note: f.handEdited})
		default:
			return nil, fmt.Errorf("%s exists with different content: refusing to overwrite it", filepath.Join(root, f.path))
		}
	}
	for i, f := range files {
		if changes[i].Action == Unchanged || changes[i].Action == Kept {
			continue
		}
		path := filepath.Join(root, f.path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, f.data, 0o644); err != nil {
			return nil, err
		}
	}
	return changes, nil
}

// marshal writes an object as YAML without the fields only an apiserver
// fills: status and metadata.creationTimestamp.
func marshal(obj any) ([]byte, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	delete(u, "status")
	if m, ok := u["metadata"].(map[string]any); ok {
		delete(m, "creationTimestamp")
	}
	// Structs without omitempty, such as a Tenant's network, say nothing.
	if spec, ok := u["spec"].(map[string]any); ok {
		for k, v := range spec {
			if m, ok := v.(map[string]any); ok && len(m) == 0 {
				delete(spec, k)
			}
		}
	}
	return yaml.Marshal(u)
}

// objectFile is a file holding one object.
func objectFile(path string, obj any) (file, error) {
	data, err := marshal(obj)
	if err != nil {
		return file{}, fmt.Errorf("%s: %w", path, err)
	}
	return file{path: path, data: data}, nil
}

// newKustomization is a kustomization.yaml listing resources.
func newKustomization(resources ...string) *types.Kustomization {
	k := &types.Kustomization{Resources: resources}
	k.FixKustomization()
	return k
}

func kustomizationFile(path string, k *types.Kustomization) (file, error) {
	data, err := yaml.Marshal(k)
	if err != nil {
		return file{}, fmt.Errorf("%s: %w", path, err)
	}
	// kustomize refuses to build a kustomization that says nothing, as the
	// tenants base of a fleet without tenants would.
	if k.Kind == types.KustomizationKind && len(k.Resources) == 0 && len(k.Patches) == 0 && len(k.Components) == 0 {
		data = append(data, "resources: []\n"...)
	}
	return file{path: path, data: data}, nil
}

// readKustomization reads a kustomization.yaml the scaffold wrote, or that
// a human edited since.
func readKustomization(root, path string) (*types.Kustomization, error) {
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		return nil, err
	}
	k := &types.Kustomization{}
	if err := yaml.UnmarshalStrict(data, k); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(root, path), err)
	}
	return k, nil
}

// addResource appends r to the resources unless listed, keeping the order
// a human chose.
func addResource(k *types.Kustomization, r string) {
	if !slices.Contains(k.Resources, r) {
		k.Resources = append(k.Resources, r)
	}
}

// mergedKustomization is the kustomization.yaml at path listing resources
// besides what it lists already, so that scaffolding again keeps the
// tenants and manifests added since.
func mergedKustomization(root, path string, resources ...string) (file, error) {
	k, err := readKustomization(root, path)
	if errors.Is(err, fs.ErrNotExist) {
		k, err = newKustomization(), nil
	}
	if err != nil {
		return file{}, err
	}
	for _, r := range resources {
		addResource(k, r)
	}
	f, err := kustomizationFile(path, k)
	f.merged = true
	return f, err
}
