// Package nodeimage builds the images the local node runs from commands of
// this module, without Docker, a registry or a base image: the static
// binary alone in one layer, run as uid/gid 65532, written as an archive
// that `ctr images import` reads.
package nodeimage

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// The images, by reference; the tag never changes, so pods use them with
// the default pull policy and nothing is ever pulled.
const (
	Pause    = "landlord.test/pause:1"
	Netcheck = "landlord.test/netcheck:1"
)

// commands are the packages each image runs, relative to the module root.
var commands = map[string]string{
	Pause:    "./internal/nodeimage/pause",
	Netcheck: "./internal/nodeimage/netcheck",
}

// References lists every image Build makes.
func References() []string { return []string{Pause, Netcheck} }

// nonRoot runs the binary, so the restricted Pod Security level admits it
// with runAsNonRoot alone.
const nonRoot = 65532

// Build compiles ref's command from the module at moduleDir for this
// machine's architecture and writes the image to out.
func Build(ctx context.Context, moduleDir, ref, out string) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "nodeimage-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	binary := filepath.Join(dir, path.Base(commands[ref]))
	if err := Compile(ctx, moduleDir, ref, binary); err != nil {
		return err
	}
	img, err := image(binary)
	if err != nil {
		return fmt.Errorf("nodeimage: %s: %w", ref, err)
	}
	return tarball.WriteToFile(out, tag, img)
}

// Compile writes the static binary of ref's command to out, for this
// machine: the node also runs pause itself, as the init of its namespaces.
func Compile(ctx context.Context, moduleDir, ref, out string) error {
	pkg, ok := commands[ref]
	if !ok {
		return fmt.Errorf("nodeimage: unknown image %q: one of %v", ref, References())
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("nodeimage: build %s: %w\n%s", pkg, err, output)
	}
	return nil
}

// image is binary alone at its base name in the root, as the entrypoint.
func image(binary string) (v1.Image, error) {
	data, err := os.ReadFile(binary)
	if err != nil {
		return nil, err
	}
	entry := "/" + filepath.Base(binary)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	// A fixed time, so the same binary makes the same layer.
	hdr := &tar.Header{Name: entry[1:], Mode: 0o755, Size: int64(len(data)), Typeflag: tar.TypeReg, ModTime: time.Unix(0, 0)}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(data); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(buf.Bytes())), nil
	})
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", runtime.GOARCH
	cfg.Config.Entrypoint = []string{entry}
	cfg.Config.User = fmt.Sprintf("%d:%d", nonRoot, nonRoot)
	return mutate.ConfigFile(img, cfg)
}
