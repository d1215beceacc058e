// Package site holds the documentation site's build check: docs/ published
// by Hugo, every page reachable from the index, every link and anchor
// leading somewhere.
package site

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// base is the path the site is served under (baseURL in hugo.toml).
const base = "/landlord/"

// TestBuild builds the site with the pinned Hugo, failing on any warning,
// then checks what it wrote.
func TestBuild(t *testing.T) {
	hugo, err := filepath.Abs(filepath.Join("..", "bin", "hugo"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(hugo); err != nil {
		t.Fatalf("%v: run make docs-tools", err)
	}
	out := t.TempDir()
	cmd := exec.Command(hugo, "--source", ".", "--destination", out, "--panicOnWarning", "--noBuildLock")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("hugo: %v\n%s", err, stderr.String())
	}

	pages, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		name := strings.TrimSuffix(filepath.Base(page), ".md")
		if name == "README" {
			continue
		}
		if _, err := os.Stat(filepath.Join(out, name, "index.html")); err != nil {
			t.Errorf("docs/%s.md was not published: %v", name, err)
		}
		if !bytes.Contains(index, []byte(`<li><a href="`+base+name+`/"`)) {
			t.Errorf("docs/%s.md is not in the navigation: link it from docs/README.md", name)
		}
	}
	checkLinks(t, out)
}

var (
	hrefs = regexp.MustCompile(`(?:href|src)="(` + regexp.QuoteMeta(base) + `[^"]*)"`)
	ids   = regexp.MustCompile(`id="([^"]+)"`)
)

// checkLinks follows every link within the site to a file and, for a
// fragment, to an element of that id.
func checkLinks(t *testing.T, out string) {
	t.Helper()
	anchors := map[string]map[string]bool{}
	read := func(file string) (string, bool) {
		data, err := os.ReadFile(file)
		if err != nil {
			return "", false
		}
		if anchors[file] == nil {
			anchors[file] = map[string]bool{}
			for _, m := range ids.FindAllStringSubmatch(string(data), -1) {
				anchors[file][m[1]] = true
			}
		}
		return string(data), true
	}
	links := 0
	err := filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(path, ".html") {
			return err
		}
		html, _ := read(path)
		for _, m := range hrefs.FindAllStringSubmatch(html, -1) {
			links++
			target, fragment, _ := strings.Cut(strings.TrimPrefix(m[1], base), "#")
			file := filepath.Join(out, filepath.FromSlash(target))
			if target == "" || strings.HasSuffix(target, "/") {
				file = filepath.Join(file, "index.html")
			}
			if _, ok := read(file); !ok {
				t.Errorf("%s: %s leads to no file", strings.TrimPrefix(path, out), m[1])
				continue
			}
			if fragment != "" && !anchors[file][fragment] {
				t.Errorf("%s: %s leads to no heading of that id", strings.TrimPrefix(path, out), m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d links within the site lead somewhere", links)
}
