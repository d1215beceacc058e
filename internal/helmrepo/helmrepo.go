// Package helmrepo serves a Helm chart repository over HTTP: charts packaged
// from their directories at run time, listed in an index.yaml.
package helmrepo

import (
	"embed"
	"fmt"
	"io/fs"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"sync"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/repo"

	"github.com/landlord-dev/landlord/internal/loopback"
)

// Server serves the chart archives in its directory and their index.
type Server struct {
	dir string

	// mu keeps index writes apart.
	mu   sync.Mutex
	http loopback.Server
}

// New returns a server for the repository in dir, created if missing.
func New(dir string) (*Server, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create chart repository directory: %w", err)
	}
	return &Server{dir: dir}, nil
}

// AddChart packages the chart in chartDir into the repository and rewrites
// the index, returning the chart's name and version. Charts can be added
// before or while serving.
func (s *Server) AddChart(chartDir string) (name, version string, err error) {
	chart, err := loader.LoadDir(chartDir)
	if err != nil {
		return "", "", fmt.Errorf("load chart %s: %w", chartDir, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := chartutil.Save(chart, s.dir); err != nil {
		return "", "", fmt.Errorf("package chart %s: %w", chartDir, err)
	}
	// Relative URLs: clients resolve them against the repository's URL,
	// whichever address they reach it by.
	index, err := repo.IndexDirectory(s.dir, "")
	if err != nil {
		return "", "", fmt.Errorf("index %s: %w", s.dir, err)
	}
	index.SortEntries()
	// Written aside and renamed, so a client never reads half an index.
	tmp := filepath.Join(s.dir, ".index.yaml")
	if err := index.WriteFile(tmp, 0o644); err != nil {
		return "", "", fmt.Errorf("write index: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(s.dir, "index.yaml")); err != nil {
		return "", "", fmt.Errorf("write index: %w", err)
	}
	return chart.Name(), chart.Metadata.Version, nil
}

// Serve listens on a free loopback port and returns the repository's URL.
func (s *Server) Serve() (string, error) {
	return s.http.Start(http.FileServer(http.Dir(s.dir)), log.New(os.Stderr, "helmrepo: ", 0))
}

// URL returns the repository's URL given by Serve.
func (s *Server) URL() string { return s.http.URL() }

// Close stops serving; the archives and index stay in the directory.
func (s *Server) Close() error { return s.http.Close() }

// example is a one-ConfigMap chart whose greeting comes from a value.
//
//go:embed all:testdata/hello
var example embed.FS

// AddExampleChart adds the chart "hello": a ConfigMap RELEASE-hello whose
// data.greeting is the value greeting.
func (s *Server) AddExampleChart() (name, version string, err error) {
	tmp, err := os.MkdirTemp("", "helmrepo-example-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(tmp)
	chart, err := fs.Sub(example, "testdata")
	if err != nil {
		return "", "", err
	}
	if err := os.CopyFS(tmp, chart); err != nil {
		return "", "", fmt.Errorf("write the example chart: %w", err)
	}
	return s.AddChart(filepath.Join(tmp, "hello"))
}
