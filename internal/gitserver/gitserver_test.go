package gitserver

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func serve(t *testing.T, opts ...Option) *Server {
	t.Helper()
	s, err := New(t.TempDir(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Serve(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// writeTree writes files, keyed by slash-separated path, under a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// readTree reads every file under dir except .git, keyed by slash-separated path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// clone clones url's Branch with the test process's own git, extra being
// environment variables such as credentials.
func clone(t *testing.T, url string, extra ...string) (string, error) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	_, err := runGit(t.Context(), "", extra, "clone", "--quiet", "--branch="+Branch, url, dir)
	return dir, err
}

func TestPushAndCloneRoundTrip(t *testing.T) {
	s := serve(t)
	url, err := s.CreateRepo("tenants/blue")
	if err != nil {
		t.Fatal(err)
	}
	if want := s.URL() + "/tenants/blue.git"; url != want {
		t.Errorf("CreateRepo URL = %s, want %s", url, want)
	}

	first := map[string]string{"apps/configmap.yaml": "kind: ConfigMap\n", "README.md": "blue\n"}
	rev1, err := s.PushDir(t.Context(), "tenants/blue", writeTree(t, first), "first")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := clone(t, url)
	if err != nil {
		t.Fatal(err)
	}
	assertTree(t, dir, first)

	// The second push replaces the tree: the removed file is gone.
	second := map[string]string{"apps/configmap.yaml": "kind: ConfigMap\ndata: {}\n"}
	rev2, err := s.PushDir(t.Context(), "tenants/blue", writeTree(t, second), "second")
	if err != nil {
		t.Fatal(err)
	}
	if rev2 == rev1 {
		t.Fatalf("second push kept revision %s", rev1)
	}
	dir, err = clone(t, url)
	if err != nil {
		t.Fatal(err)
	}
	assertTree(t, dir, second)
	head, err := runGit(t.Context(), dir, nil, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if head != rev2 {
		t.Errorf("cloned HEAD = %s, want the pushed %s", head, rev2)
	}
	parent, err := runGit(t.Context(), dir, nil, "rev-parse", "HEAD^")
	if err != nil {
		t.Fatal(err)
	}
	if parent != rev1 {
		t.Errorf("parent of the second commit = %s, want %s", parent, rev1)
	}
}

func assertTree(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	got := readTree(t, dir)
	if len(got) != len(want) {
		t.Errorf("clone has files %v, want %v", keys(got), keys(want))
	}
	for name, content := range want {
		if got[name] != content {
			t.Errorf("%s = %q, want %q", name, got[name], content)
		}
	}
}

func keys(m map[string]string) []string {
	var names []string
	for k := range m {
		names = append(names, k)
	}
	return names
}

func TestCreateRepoRefusesBadNames(t *testing.T) {
	s := serve(t)
	for _, name := range []string{"", "../escape", "a/../b", "/abs", "a//b", ".hidden", "a b"} {
		if _, err := s.CreateRepo(name); err == nil {
			t.Errorf("CreateRepo(%q) succeeded, want an error", name)
		}
	}
	if _, err := s.CreateRepo("fleet"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateRepo("fleet"); err == nil {
		t.Error("creating fleet twice succeeded, want an error")
	}
}

func TestBasicAuth(t *testing.T) {
	s := serve(t, WithBasicAuth("blue", "s3cret"))
	url, err := s.CreateRepo("private")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"app.yaml": "kind: ConfigMap\n"}
	if _, err := s.PushDir(t.Context(), "private", writeTree(t, files), "first"); err != nil {
		t.Fatalf("push with the server's credentials: %v", err)
	}

	infoRefs := url + "/info/refs?service=git-upload-pack"
	for name, tc := range map[string]struct {
		user, password string
		want           int
	}{
		"no credentials": {want: http.StatusUnauthorized},
		"wrong password": {user: "blue", password: "guess", want: http.StatusUnauthorized},
		"wrong user":     {user: "red", password: "s3cret", want: http.StatusUnauthorized},
		"right":          {user: "blue", password: "s3cret", want: http.StatusOK},
	} {
		t.Run(name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, infoRefs, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.user != "" {
				req.SetBasicAuth(tc.user, tc.password)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("GET info/refs: %s, want %d", resp.Status, tc.want)
			}
		})
	}

	// git itself: asked for credentials (and, with prompts off, failing)
	// without them, served with them in the URL.
	if _, err := clone(t, url); err == nil || !strings.Contains(err.Error(), "could not read Username") {
		t.Errorf("clone without credentials: got %v, want git to need a username", err)
	}
	dir, err := clone(t, strings.Replace(url, "http://", "http://blue:s3cret@", 1))
	if err != nil {
		t.Fatalf("clone with credentials: %v", err)
	}
	assertTree(t, dir, files)
}
