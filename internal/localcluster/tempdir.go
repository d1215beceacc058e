package localcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

const (
	tempDirPattern = "landlord-testenv-"
	ownerFile      = "owner.pid"
)

// makeTempDir creates the directory of a throw-away environment, recording
// the owning process so a later run can tell when it was left behind.
func makeTempDir() (string, error) {
	sweepTempDirs()
	dir, err := os.MkdirTemp("", tempDirPattern)
	if err != nil {
		return "", fmt.Errorf("create environment directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		return "", errors.Join(fmt.Errorf("record environment owner: %w", err), os.RemoveAll(dir))
	}
	return dir, nil
}

// sweepTempDirs removes the directories of environments whose owner died
// without Stop (a panicking or killed test binary); each holds over 100 MB of
// etcd files. It is best effort: a directory it cannot judge or remove stays.
func sweepTempDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), tempDirPattern+"*"))
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue // not ours, or its owner is still writing it
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil || pid <= 0 {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			_ = os.RemoveAll(dir)
		}
	}
}
