package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fluxcd/pkg/ssa/utils"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// readManifests reads every object of a YAML file, or of the .yaml and .yml
// files below a directory, in lexical order, with the reader Flux uses
// (kustomization.yaml files are not objects).
func readManifests(path string) ([]client.Object, error) {
	var objects []client.Object
	err := filepath.WalkDir(path, func(file string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if ext := filepath.Ext(file); file != path && ext != ".yaml" && ext != ".yml" {
			return nil
		}
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		defer f.Close()
		found, err := utils.ReadObjects(f)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		for _, obj := range found {
			objects = append(objects, obj)
		}
		return nil
	})
	return objects, err
}
