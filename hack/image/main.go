// Command image builds landlord-controller's container image without Docker
// and without a base image: a static binary per platform, cross-compiled
// with GOARCH, in one layer on an empty image, run as uid/gid 65532 with no
// shell, and the platforms in one OCI index. `make image` runs it.
//
// It writes below -out:
//
//	oci/                                 OCI layout holding the index, named for ctr and docker
//	landlord-controller.oci.tar          the same layout as one tar: every platform for
//	                                     `ctr images import --all-platforms`, `kind load
//	                                     image-archive` and `docker load` (Docker 25 or later)
//	landlord-controller-linux-ARCH.tar   one platform as a docker-archive: `docker load` of
//	                                     any version, `ctr images import`, `kind load image-archive`
//
// A docker-archive holds images by tag, not an index: each platform gets its
// own, under the same tag.
package main

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Where the binary lives in the image and who runs it: distroless'
// nonroot, so that runAsNonRoot holds without a passwd file.
const (
	binaryPath = "/landlord-controller"
	nonRoot    = 65532
)

// options say what to build and where.
type options struct {
	// repository is the image's name without tag.
	repository string
	// version tags the image and is stamped into the binary.
	version  string
	revision string
	// source is the repository's URL, for the source label.
	source    string
	platforms []string
	// module is the directory of the Go module holding the command.
	module string
	out    string
}

func main() {
	opts := options{}
	flag.StringVar(&opts.repository, "repository", "ghcr.io/landlord-dev/landlord-controller", "image name without tag")
	flag.StringVar(&opts.version, "version", "dev", "image tag and the binary's version")
	flag.StringVar(&opts.revision, "revision", "", "commit the binary is built from")
	flag.StringVar(&opts.source, "source", "https://github.com/landlord-dev/landlord", "URL of the source repository")
	platforms := flag.String("platforms", "linux/amd64,linux/arm64", "comma-separated os/arch to build")
	flag.StringVar(&opts.out, "out", "bin/image", "directory to write the layout and tarballs to")
	flag.Parse()
	opts.platforms = strings.Split(*platforms, ",")
	opts.module = "."
	written, err := build(context.Background(), opts)
	if err != nil {
		log.Fatal(err)
	}
	for _, path := range written {
		fmt.Println(path)
	}
}

// build compiles the controller for every platform, assembles the images and
// their index, and writes them below opts.out; it returns the paths written.
func build(ctx context.Context, opts options) ([]string, error) {
	tag, err := name.NewTag(opts.repository + ":" + opts.version)
	if err != nil {
		return nil, fmt.Errorf("image name: %w", err)
	}
	labels := map[string]string{
		"org.opencontainers.image.title":    "landlord-controller",
		"org.opencontainers.image.version":  opts.version,
		"org.opencontainers.image.revision": opts.revision,
		"org.opencontainers.image.source":   opts.source,
	}
	bins, err := os.MkdirTemp("", "landlord-image-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(bins)

	index := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	images := map[string]v1.Image{}
	for _, p := range opts.platforms {
		platform, err := v1.ParsePlatform(p)
		if err != nil {
			return nil, fmt.Errorf("platform %q: %w", p, err)
		}
		binary := filepath.Join(bins, platform.OS+"-"+platform.Architecture)
		if err := compile(ctx, opts, platform, binary); err != nil {
			return nil, err
		}
		img, err := image(binary, platform, labels)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		images[platform.OS+"-"+platform.Architecture] = img
		index = mutate.AppendManifests(index, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: platform}})
	}
	index = mutate.Annotations(index, labels).(v1.ImageIndex)

	ociDir := filepath.Join(opts.out, "oci")
	// A layout appends: the previous build's index would stay in it.
	if err := os.RemoveAll(ociDir); err != nil {
		return nil, err
	}
	lp, err := layout.Write(ociDir, empty.Index)
	if err != nil {
		return nil, err
	}
	// The names buildx's OCI export gives: containerd's, and the layout's tag.
	if err := lp.AppendIndex(index, layout.WithAnnotations(map[string]string{
		"io.containerd.image.name":          tag.Name(),
		"org.opencontainers.image.ref.name": tag.TagStr(),
	})); err != nil {
		return nil, fmt.Errorf("writing the OCI layout: %w", err)
	}
	written := []string{ociDir}
	ociTar := filepath.Join(opts.out, "landlord-controller.oci.tar")
	if err := tarDir(ociTar, ociDir); err != nil {
		return nil, err
	}
	written = append(written, ociTar)
	for suffix, img := range images {
		path := filepath.Join(opts.out, "landlord-controller-"+suffix+".tar")
		if err := tarball.WriteToFile(path, tag, img); err != nil {
			return nil, fmt.Errorf("writing %s: %w", path, err)
		}
		written = append(written, path)
	}
	return written, nil
}

// compile builds a static, reproducible binary for platform, stamped with
// the version.
func compile(ctx context.Context, opts options, platform *v1.Platform, out string) error {
	pkg := "github.com/landlord-dev/landlord/internal/version"
	ldflags := fmt.Sprintf("-s -w -X %s.Version=%s -X %s.Revision=%s", pkg, opts.version, pkg, opts.revision)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", ldflags, "-o", out, "./cmd/landlord-controller")
	cmd.Dir = opts.module
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+platform.OS, "GOARCH="+platform.Architecture)
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build for %s/%s: %w\n%s", platform.OS, platform.Architecture, err, output)
	}
	return nil
}

// image is binary alone on an empty OCI image, run as nonRoot.
func image(binary string, platform *v1.Platform, labels map[string]string) (v1.Image, error) {
	layer, err := binaryLayer(binary)
	if err != nil {
		return nil, err
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.ConfigFile(img, &v1.ConfigFile{
		OS:           platform.OS,
		Architecture: platform.Architecture,
		Variant:      platform.Variant,
		Config: v1.Config{
			Entrypoint: []string{binaryPath},
			User:       fmt.Sprintf("%d:%d", nonRoot, nonRoot),
			WorkingDir: "/",
			Labels:     labels,
		},
	})
	if err != nil {
		return nil, err
	}
	return mutate.AppendLayers(img, layer)
}

// binaryLayer is a layer holding binary at binaryPath, root-owned and
// executable by anyone, with a zero time so that builds are reproducible.
func binaryLayer(binary string) (v1.Layer, error) {
	data, err := os.ReadFile(binary)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := &tar.Header{
		Name: strings.TrimPrefix(binaryPath, "/"), Typeflag: tar.TypeReg, Mode: 0o755,
		Size: int64(len(data)), ModTime: time.Unix(0, 0), Format: tar.FormatPAX,
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(data); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	layerTar := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
}

// tarDir writes the files below dir into a tar at path, relative to dir.
func tarDir(path, dir string) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	tw := tar.NewWriter(f)
	if err := tw.AddFS(os.DirFS(dir)); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return tw.Close()
}
