package nodeimage

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// TestBuildRunsTheCommandAsNonRoot reads back what Build wrote: the tag,
// the entrypoint, the user, the platform and the one file of the layer.
func TestBuildRunsTheCommandAsNonRoot(t *testing.T) {
	out := filepath.Join(t.TempDir(), "netcheck.tar")
	if err := Build(context.Background(), "../..", Netcheck, out); err != nil {
		t.Fatal(err)
	}
	tag, err := name.NewTag(Netcheck)
	if err != nil {
		t.Fatal(err)
	}
	img, err := tarball.ImageFromPath(out, &tag)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Config.Entrypoint; len(got) != 1 || got[0] != "/netcheck" {
		t.Errorf("entrypoint %v, want [/netcheck]", got)
	}
	if cfg.Config.User != "65532:65532" {
		t.Errorf("user %q, want 65532:65532", cfg.Config.User)
	}
	if cfg.OS != "linux" || cfg.Architecture != runtime.GOARCH {
		t.Errorf("platform %s/%s, want linux/%s", cfg.OS, cfg.Architecture, runtime.GOARCH)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers %d (%v), want 1", len(layers), err)
	}
}

func TestBuildRefusesAnUnknownImage(t *testing.T) {
	err := Build(context.Background(), "../..", "landlord.test/other:1", filepath.Join(t.TempDir(), "x.tar"))
	if err == nil {
		t.Fatal("Build of an unknown image succeeded")
	}
}
