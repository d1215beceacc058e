// Package version is what the landlord binaries report as their version,
// stamped at build time by the Makefile:
//
//	go build -ldflags "-X github.com/landlord-dev/landlord/internal/version.Version=v0.1.0 -X github.com/landlord-dev/landlord/internal/version.Revision=<commit>"
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version and Revision are set with -ldflags -X; a plain go build leaves
// them empty and Get reads Go's VCS stamp instead.
var (
	Version  string
	Revision string
)

// Info is a build's version.
type Info struct {
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// Get is this binary's version: the stamped one, else "dev" with the
// revision Go recorded from the checkout (with -buildvcs, its default).
func Get() Info {
	info := Info{Version: Version, Revision: Revision, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info.Version == "" {
		info.Version = "dev"
	}
	if info.Revision != "" {
		return info
	}
	build, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	var dirty bool
	for _, s := range build.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && info.Revision != "" {
		info.Revision += "-dirty"
	}
	return info
}

// String is the one line both binaries print.
func (i Info) String() string {
	s := i.Version
	if i.Revision != "" {
		s += " (" + i.Revision + ")"
	}
	return fmt.Sprintf("%s %s %s", s, i.Go, i.Platform)
}
