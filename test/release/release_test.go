// Package release_test builds the CLI's release as a tag would, unsigned
// and unpublished, and installs it the way a kubectl user would, with krew.
package release_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// platforms are those the release ships the CLI for.
var platforms = []string{"darwin_amd64", "darwin_arm64", "linux_amd64", "linux_arm64", "windows_amd64", "windows_arm64"}

func TestSnapshot(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "bin")
	dist := filepath.Join(bin, "dist")
	if out, err := exec.Command("make", "-C", root, "release-snapshot").CombinedOutput(); err != nil {
		t.Fatalf("make release-snapshot: %v\n%s", err, out)
	}

	var meta struct {
		Version string `json:"version"`
		Commit  string `json:"commit"`
	}
	readJSON(t, filepath.Join(dist, "metadata.json"), &meta)

	// Every archive and SBOM is listed in checksums.txt, which is what the
	// release signs, with its digest; nothing else is.
	var archives, signed []string
	for _, p := range platforms {
		ext := ".tar.gz"
		if strings.HasPrefix(p, "windows") {
			ext = ".zip"
		}
		archives = append(archives, "landlord_"+p+ext)
		signed = append(signed, "landlord_"+p+ext, "landlord_"+p+".cdx.json")
	}
	sums := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, filepath.Join(dist, "checksums.txt"))), "\n") {
		sum, name, _ := strings.Cut(line, "  ")
		sums[name] = sum
	}
	for _, name := range signed {
		if sums[name] != digest(t, filepath.Join(dist, name)) {
			t.Errorf("checksums.txt says %s is %q, it is %s", name, sums[name], digest(t, filepath.Join(dist, name)))
		}
		delete(sums, name)
	}
	for name := range sums {
		t.Errorf("checksums.txt lists %s, which is not an archive or SBOM of the release", name)
	}

	// Each binary's SBOM names the CLI's module at the release's version
	// and what it was built from.
	for _, p := range platforms {
		var sbom struct {
			BOMFormat string `json:"bomFormat"`
			Metadata  struct {
				Component struct {
					Name    string `json:"name"`
					Version string `json:"version"`
				} `json:"component"`
			} `json:"metadata"`
			Components []struct {
				Name string `json:"name"`
			} `json:"components"`
		}
		readJSON(t, filepath.Join(dist, "landlord_"+p+".cdx.json"), &sbom)
		names := make([]string, len(sbom.Components))
		for i, c := range sbom.Components {
			names[i] = c.Name
		}
		if sbom.BOMFormat != "CycloneDX" || sbom.Metadata.Component.Name != "github.com/landlord-dev/landlord" || sbom.Metadata.Component.Version != "v"+meta.Version ||
			!slices.Contains(names, "github.com/spf13/cobra") {
			t.Errorf("%s's SBOM: %s %s %s with %d components, want CycloneDX of github.com/landlord-dev/landlord v%s with cobra", p,
				sbom.BOMFormat, sbom.Metadata.Component.Name, sbom.Metadata.Component.Version, len(names), meta.Version)
		}
	}

	// krew's own checks of a plugin manifest, then an install from this
	// machine's archive, which checks its digest against the manifest.
	manifest := filepath.Join(dist, "krew", "landlord.yaml")
	if out, err := exec.Command(filepath.Join(bin, "validate-krew-manifest"), "-manifest", manifest, "-skip-install").CombinedOutput(); err != nil {
		t.Fatalf("validate-krew-manifest: %v\n%s", err, out)
	}
	platform := runtime.GOOS + "_" + runtime.GOARCH
	archive := archives[slices.Index(platforms, platform)]
	krewRoot := t.TempDir()
	install := exec.Command(filepath.Join(bin, "krew"), "install", "--manifest", manifest, "--archive", filepath.Join(dist, archive))
	install.Env = append(os.Environ(), "KREW_ROOT="+krewRoot)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("krew install from %s: %v\n%s", archive, err, out)
	}
	out, err := exec.Command(filepath.Join(krewRoot, "bin", "kubectl-landlord"), "version", "-o", "json").Output()
	if err != nil {
		t.Fatalf("kubectl-landlord version: %v", err)
	}
	var got struct{ Version, Revision, Platform string }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("kubectl-landlord version -o json: %v\n%s", err, out)
	}
	want := fmt.Sprintf("v%s %s %s/%s", meta.Version, meta.Commit, runtime.GOOS, runtime.GOARCH)
	if have := fmt.Sprintf("%s %s %s", got.Version, got.Revision, got.Platform); have != want || !strings.Contains(meta.Version, "-snapshot.") {
		t.Errorf("the %s archive's landlord version says %s, want a snapshot's %s", platform, have, want)
	}
	t.Logf("%d archives, checksums, %d SBOMs, krew manifest; installed %s: %s", len(archives), len(platforms), archive, bytes.TrimSpace(out))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readJSON(t *testing.T, path string, into any) {
	t.Helper()
	if err := json.Unmarshal([]byte(readFile(t, path)), into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func digest(t *testing.T, path string) string {
	sum := sha256.Sum256([]byte(readFile(t, path)))
	return hex.EncodeToString(sum[:])
}
