package main

import (
	"archive/tar"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// TestImage builds the image as make image does and reads it back: both
// platforms in the index, the user, entrypoint and labels of each, a single
// file in the image, and the extracted binary reporting its version.
func TestImage(t *testing.T) {
	out := t.TempDir()
	opts := options{
		repository: "registry.example.com/landlord-controller", version: "v0.0.0-test", revision: "0123abc",
		source: "https://example.com/landlord", platforms: []string{"linux/amd64", "linux/arm64"},
		module: "../..", out: out,
	}
	if _, err := build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	wantLabels := map[string]string{
		"org.opencontainers.image.title":    "landlord-controller",
		"org.opencontainers.image.version":  "v0.0.0-test",
		"org.opencontainers.image.revision": "0123abc",
		"org.opencontainers.image.source":   "https://example.com/landlord",
	}
	check := func(t *testing.T, img v1.Image, arch string) {
		t.Helper()
		cfg, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.OS != "linux" || cfg.Architecture != arch {
			t.Errorf("platform %s/%s, want linux/%s", cfg.OS, cfg.Architecture, arch)
		}
		if cfg.Config.User != "65532:65532" {
			t.Errorf("user %q, want 65532:65532", cfg.Config.User)
		}
		if !reflect.DeepEqual(cfg.Config.Entrypoint, []string{"/landlord-controller"}) || cfg.Config.Cmd != nil {
			t.Errorf("entrypoint %q cmd %q, want the binary alone", cfg.Config.Entrypoint, cfg.Config.Cmd)
		}
		if !reflect.DeepEqual(cfg.Config.Labels, wantLabels) {
			t.Errorf("labels %v, want %v", cfg.Config.Labels, wantLabels)
		}
		if files := listFiles(t, img); !reflect.DeepEqual(files, []string{"landlord-controller"}) {
			t.Errorf("files %q, want the binary alone (no shell)", files)
		}
	}

	t.Run("OCI layout", func(t *testing.T) {
		root, err := layout.ImageIndexFromPath(filepath.Join(out, "oci"))
		if err != nil {
			t.Fatal(err)
		}
		top, err := root.IndexManifest()
		if err != nil {
			t.Fatal(err)
		}
		if len(top.Manifests) != 1 {
			t.Fatalf("index.json lists %d manifests, want the image index alone", len(top.Manifests))
		}
		if got := top.Manifests[0].Annotations["io.containerd.image.name"]; got != "registry.example.com/landlord-controller:v0.0.0-test" {
			t.Errorf("image name %q", got)
		}
		index, err := root.ImageIndex(top.Manifests[0].Digest)
		if err != nil {
			t.Fatal(err)
		}
		manifest, err := index.IndexManifest()
		if err != nil {
			t.Fatal(err)
		}
		var platforms []string
		for _, desc := range manifest.Manifests {
			platforms = append(platforms, desc.Platform.String())
			img, err := index.Image(desc.Digest)
			if err != nil {
				t.Fatal(err)
			}
			check(t, img, desc.Platform.Architecture)
		}
		if want := []string{"linux/amd64", "linux/arm64"}; !reflect.DeepEqual(platforms, want) {
			t.Errorf("platforms %q, want %q", platforms, want)
		}
	})

	t.Run("docker archive", func(t *testing.T) {
		tag, err := name.NewTag("registry.example.com/landlord-controller:v0.0.0-test")
		if err != nil {
			t.Fatal(err)
		}
		for _, arch := range []string{"amd64", "arm64"} {
			img, err := tarball.ImageFromPath(filepath.Join(out, "landlord-controller-linux-"+arch+".tar"), &tag)
			if err != nil {
				t.Fatal(err)
			}
			check(t, img, arch)
			if arch != runtime.GOARCH {
				continue
			}
			bin := extract(t, img)
			got, err := exec.Command(bin, "--version").CombinedOutput()
			if err != nil {
				t.Fatalf("%s --version: %v\n%s", bin, err, got)
			}
			if want := "landlord-controller v0.0.0-test (0123abc) "; !strings.HasPrefix(string(got), want) {
				t.Errorf("--version printed %q, want it to start with %q", got, want)
			}
		}
	})
}

// listFiles names the entries of the image's flattened file system.
func listFiles(t *testing.T, img v1.Image) []string {
	t.Helper()
	var files []string
	walk(t, img, func(hdr *tar.Header, _ io.Reader) { files = append(files, hdr.Name) })
	slices.Sort(files)
	return files
}

// extract writes the image's binary into a temporary file and returns it.
func extract(t *testing.T, img v1.Image) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "landlord-controller")
	walk(t, img, func(hdr *tar.Header, r io.Reader) {
		if hdr.Name != "landlord-controller" {
			return
		}
		data, err := io.ReadAll(r)
		if err == nil {
			err = os.WriteFile(path, data, os.FileMode(hdr.Mode))
		}
		if err != nil {
			t.Fatal(err)
		}
	})
	return path
}

func walk(t *testing.T, img v1.Image, visit func(*tar.Header, io.Reader)) {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		visit(hdr, tr)
	}
}
