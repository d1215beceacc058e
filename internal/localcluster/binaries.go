package localcluster

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// BinDirEnv overrides where the control-plane binaries are looked up.
const BinDirEnv = "LANDLORD_BIN_DIR"

const modulePath = "github.com/landlord-dev/landlord"

// binaries are the paths of the control-plane executables.
type binaries struct {
	etcd, apiserver, controllerManager string
}

// fluxBinaries are the paths of the Flux controllers.
type fluxBinaries struct {
	source, kustomize, helm string
}

// findBinaries looks in dir, else $LANDLORD_BIN_DIR, else bin/ at the root
// of the landlord module enclosing the working directory.
func findBinaries(dir string) (binaries, error) {
	var b binaries
	dir, err := binDir(dir)
	if err != nil {
		return b, err
	}
	return b, lookUp(dir, "make tools", map[string]*string{
		"etcd": &b.etcd, "kube-apiserver": &b.apiserver, "kube-controller-manager": &b.controllerManager,
	})
}

// findFluxBinaries looks where findBinaries does.
func findFluxBinaries(dir string) (fluxBinaries, error) {
	var b fluxBinaries
	dir, err := binDir(dir)
	if err != nil {
		return b, err
	}
	return b, lookUp(dir, "make flux-tools", map[string]*string{
		"source-controller": &b.source, "kustomize-controller": &b.kustomize, "helm-controller": &b.helm,
	})
}

func binDir(dir string) (string, error) {
	if dir == "" {
		dir = os.Getenv(BinDirEnv)
	}
	if dir != "" {
		return dir, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "bin"), nil
}

// lookUp sets each path to its executable in dir; errors name makeTarget,
// which builds them.
func lookUp(dir, makeTarget string, paths map[string]*string) error {
	var errs []error
	for name, path := range paths {
		var err error
		*path, err = executable(dir, name, makeTarget)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("get working directory: %w", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		ok, err := declaresModule(filepath.Join(dir, "go.mod"))
		if err != nil {
			return "", err
		}
		if ok {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("no go.mod of module %s above %s: set %s to the directory of the control-plane binaries", modulePath, wd, BinDirEnv)
		}
	}
}

// declaresModule reports whether the go.mod at path is landlord's own, so a
// nested module (hack/tools) does not stop the walk up.
func declaresModule(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if fields := strings.Fields(s.Text()); len(fields) == 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == modulePath, nil
		}
	}
	return false, s.Err()
}

// executable returns the path of name in dir, or an error telling to run
// makeTarget.
func executable(dir, name, makeTarget string) (string, error) {
	path := filepath.Join(dir, name)
	info, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("binary %s not found (run `%s`): %w", name, makeTarget, err)
	}
	if info.IsDir() || info.Mode()&0o111 == 0 {
		return "", fmt.Errorf("binary %s is not executable (run `%s`)", path, makeTarget)
	}
	return path, nil
}

// FluxInstanceCRDFile is the Flux Operator's FluxInstance CRD, which `make
// flux-tools` extracts from the operator's pinned module: the operator is
// AGPL-licensed, so the CRD stays out of the repository and the binaries.
const FluxInstanceCRDFile = "fluxcd.controlplane.io_fluxinstances.yaml"

// FluxInstanceCRD is the path of FluxInstanceCRDFile where findBinaries
// looks.
func FluxInstanceCRD() (string, error) {
	dir, err := binDir("")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, FluxInstanceCRDFile)
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("the FluxInstance CRD is not extracted (run `make flux-tools`): %w", err)
	}
	return path, nil
}
