package hostilerepo

import (
	"runtime"
	"strings"
	"time"
)

// StillRunning waits up to grace for every goroutine with a frame in one
// of packages (import paths) to end, and returns the stacks of those
// still running then, empty if none: a build left running after its
// command returned is work no deadline ends.
func StillRunning(grace time.Duration, packages ...string) string {
	deadline := time.Now().Add(grace)
	for {
		buf := make([]byte, 4<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var left []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			for _, p := range packages {
				// The package's own frames, not its tests' (p_test.).
				if strings.Contains(g, p+".") {
					left = append(left, g)
					break
				}
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return strings.Join(left, "\n\n")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
