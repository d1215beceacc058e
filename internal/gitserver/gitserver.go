// Package gitserver serves bare Git repositories over HTTP with the machine's
// git http-backend behind net/http/cgi, for tests and the local environment.
package gitserver

import (
	"context"
	"crypto/subtle"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/landlord-dev/landlord/internal/loopback"
)

// Branch is the default branch of every repository the server creates.
const Branch = "main"

// repoName is one or more path segments, none of them "." or "..".
var repoName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*$`)

// Server serves the bare repositories under its root directory, pushes
// included.
type Server struct {
	root     string
	backend  string
	username string
	password string
	errorLog io.Writer
	http     loopback.Server
}

// Option configures a Server.
type Option func(*Server)

// WithBasicAuth makes every request, fetches included, need these
// credentials.
func WithBasicAuth(username, password string) Option {
	return func(s *Server) { s.username, s.password = username, password }
}

// WithErrorLog sends git http-backend's stderr and the server's errors to w
// instead of the process's stderr.
func WithErrorLog(w io.Writer) Option {
	return func(s *Server) { s.errorLog = w }
}

// New returns a server for the repositories under root, created if missing.
// It needs git and its http-backend.
func New(root string, opts ...Option) (*Server, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("create repository root: %w", err)
	}
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		return nil, fmt.Errorf("find git's exec path (is git installed?): %w", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		return nil, fmt.Errorf("git http-backend: %w", err)
	}
	s := &Server{root: root, backend: backend, errorLog: os.Stderr}
	for _, opt := range opts {
		opt(s)
	}
	return s, nil
}

// Serve listens on a free loopback port and returns the server's base URL;
// a repository is at URL/name.git.
func (s *Server) Serve() (string, error) {
	return s.http.Start(s.handler(), log.New(s.errorLog, "gitserver: ", 0))
}

// URL returns the base URL given by Serve.
func (s *Server) URL() string { return s.http.URL() }

// Close stops serving; the repositories stay on disk.
func (s *Server) Close() error { return s.http.Close() }

func (s *Server) handler() http.Handler {
	backend := &cgi.Handler{
		Path: s.backend,
		Dir:  s.root,
		Env: []string{
			"GIT_PROJECT_ROOT=" + s.root,
			// Serve every repository under root, without a git-daemon-export-ok file each.
			"GIT_HTTP_EXPORT_ALL=1",
			// Only the repositories' own config counts, not the machine's or the user's.
			"GIT_CONFIG_NOSYSTEM=1",
			"GIT_CONFIG_GLOBAL=" + os.DevNull,
		},
		Logger: log.New(s.errorLog, "gitserver: ", 0),
		Stderr: s.errorLog,
	}
	if s.username == "" {
		return backend
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, password, ok := r.BasicAuth()
		if !ok || !equal(user, s.username) || !equal(password, s.password) {
			w.Header().Set("WWW-Authenticate", `Basic realm="landlord git"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, r)
	})
}

func equal(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// CreateRepo creates the bare repository name.git under root, accepting
// pushes, and returns its URL. Creating an existing repository is an error.
func (s *Server) CreateRepo(name string) (string, error) {
	if !repoName.MatchString(name) {
		return "", fmt.Errorf("repository name %q: want path segments of letters, digits, '.', '_' and '-'", name)
	}
	dir := filepath.Join(s.root, name+".git")
	if _, err := os.Stat(dir); err == nil {
		return "", fmt.Errorf("repository %s already exists", name)
	}
	if _, err := runGit(context.Background(), "", nil, "init", "--quiet", "--bare", "--initial-branch="+Branch, dir); err != nil {
		return "", err
	}
	// http-backend refuses pushes from unauthenticated users unless told otherwise.
	if _, err := runGit(context.Background(), "", nil, "--git-dir="+dir, "config", "http.receivepack", "true"); err != nil {
		return "", err
	}
	return s.RepoURL(name), nil
}

// RepoURL returns the URL of repository name, without credentials.
func (s *Server) RepoURL(name string) string {
	return s.URL() + "/" + name + ".git"
}
