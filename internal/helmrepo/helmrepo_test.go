package helmrepo

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/repo"
	"sigs.k8s.io/yaml"
)

func get(t *testing.T, u string) []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	return body
}

func TestServesPackagedChart(t *testing.T) {
	s, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	base, err := s.Serve()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	name, version, err := s.AddExampleChart()
	if err != nil {
		t.Fatal(err)
	}
	if name != "hello" || version != "0.1.0" {
		t.Errorf("AddExampleChart = %s %s, want hello 0.1.0", name, version)
	}

	index := &repo.IndexFile{}
	if err := yaml.Unmarshal(get(t, base+"/index.yaml"), index); err != nil {
		t.Fatalf("parse index.yaml: %v", err)
	}
	entry, err := index.Get("hello", "0.1.0")
	if err != nil {
		t.Fatalf("index lists no hello 0.1.0: %v", err)
	}
	if entry.Digest == "" || len(entry.URLs) != 1 {
		t.Fatalf("index entry: digest %q, urls %v; want a digest and one URL", entry.Digest, entry.URLs)
	}

	// The URL is relative to the repository, as Helm and Flux resolve it.
	ref, err := url.Parse(entry.URLs[0])
	if err != nil {
		t.Fatal(err)
	}
	repoURL, err := url.Parse(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	archive := get(t, repoURL.ResolveReference(ref).String())
	sum := sha256.Sum256(archive)
	if got := hex.EncodeToString(sum[:]); got != entry.Digest {
		t.Errorf("archive sha256 = %s, index digest %s", got, entry.Digest)
	}
	chart, err := loader.LoadArchive(bytes.NewReader(archive))
	if err != nil {
		t.Fatalf("load downloaded archive: %v", err)
	}
	if chart.Values["greeting"] != "hello" || len(chart.Templates) != 1 {
		t.Errorf("downloaded chart: values %v, %d templates; want greeting=hello and the ConfigMap template", chart.Values, len(chart.Templates))
	}
}

func TestAddChartRefusesNonChart(t *testing.T) {
	s, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddChart(t.TempDir()); err == nil {
		t.Error("AddChart of an empty directory succeeded, want an error")
	}
}
