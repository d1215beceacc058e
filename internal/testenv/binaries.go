package testenv

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

// findBinaries looks in dir, else $LANDLORD_BIN_DIR, else bin/ at the root
// of the landlord module enclosing the working directory.
func findBinaries(dir string) (binaries, error) {
	var b binaries
	if dir == "" {
		dir = os.Getenv(BinDirEnv)
	}
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			return b, err
		}
		dir = filepath.Join(root, "bin")
	}
	for _, bin := range []struct {
		name string
		path *string
	}{{"etcd", &b.etcd}, {"kube-apiserver", &b.apiserver}, {"kube-controller-manager", &b.controllerManager}} {
		var err error
		if *bin.path, err = executable(dir, bin.name); err != nil {
			return b, err
		}
	}
	return b, nil
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

// executable returns the path of name in dir, or an error telling how to
// build it.
func executable(dir, name string) (string, error) {
	path := filepath.Join(dir, name)
	info, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("control-plane binary %s not found (run `make tools`): %w", name, err)
	}
	if info.IsDir() || info.Mode()&0o111 == 0 {
		return "", fmt.Errorf("control-plane binary %s is not executable (run `make tools`)", path)
	}
	return path, nil
}
