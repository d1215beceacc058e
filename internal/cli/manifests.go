package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// readManifests decodes every object of a YAML file, or of the .yaml and
// .yml files below a directory, in lexical order.
func readManifests(path string) ([]client.Object, error) {
	var objects []client.Object
	err := filepath.WalkDir(path, func(file string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if ext := filepath.Ext(file); file != path && ext != ".yaml" && ext != ".yml" {
			return nil
		}
		found, err := decodeFile(file)
		objects = append(objects, found...)
		return err
	})
	return objects, err
}

func decodeFile(file string) ([]client.Object, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var objects []client.Object
	decoder := utilyaml.NewYAMLOrJSONDecoder(bufio.NewReader(f), 4096)
	for {
		u := &unstructured.Unstructured{}
		err := decoder.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			return objects, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(u.Object) == 0 {
			continue // an empty document between separators
		}
		if u.GetKind() == "" || u.GetAPIVersion() == "" {
			return nil, fmt.Errorf("%s: object %q needs apiVersion and kind", file, u.GetName())
		}
		objects = append(objects, u)
	}
}
