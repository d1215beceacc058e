package lint

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	securefs "github.com/fluxcd/pkg/kustomize/filesys"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// memo shares builds between repositories: a kustomize build is a function
// of its kustomization and of what the file system answers it, so a build
// whose every question another repository answers the same way (tenant
// repositories scaffolded alike, say) has the same result there.
type memo struct {
	mu     sync.Mutex
	builds map[string][]*memoized
}

// memoized is one build: the questions it asked, and its result.
type memoized struct {
	asked   []question
	objects []*object
	err     string
}

// question is one file system call of a build and its answer, paths
// relative to the repository.
type question struct {
	op, path, answer string
}

func newMemo() *memo {
	return &memo{builds: map[string][]*memoized{}}
}

// build returns the build of key in r: one memoized that r answers alike,
// else a new one run on a file system recording what it asks. Every build
// is bounded and stops when ctx ends; one that ctx stopped is not kept.
func (m *memo) build(ctx context.Context, r *repo, key string, run func(fsys filesys.FileSystem) ([]*object, error)) ([]*object, error) {
	secure, err := r.secureFS()
	if err != nil {
		return nil, err
	}
	if m == nil {
		bounded := newBoundedFS(ctx, secure, r.maxBuildReads())
		objects, err := await(ctx, func() ([]*object, error) { return run(bounded) })
		if stop := bounded.stopped(); stop != nil {
			return nil, stop
		}
		return objects, err
	}
	m.mu.Lock()
	candidates := m.builds[key]
	m.mu.Unlock()
	for _, b := range candidates {
		if b.answers(r, secure) {
			objects := make([]*object, len(b.objects))
			for i, o := range b.objects {
				c := *o
				c.repo = r
				objects[i] = &c
			}
			if b.err != "" {
				return objects, errors.New(b.err)
			}
			return objects, nil
		}
	}
	rec := &recordingFS{FileSystem: secure, r: r}
	bounded := newBoundedFS(ctx, rec, r.maxBuildReads())
	objects, err := await(ctx, func() ([]*object, error) { return run(bounded) })
	if stop := bounded.stopped(); stop != nil {
		objects, err = nil, stop
	}
	if rec.unknown || ctx.Err() != nil {
		return objects, err
	}
	b := &memoized{asked: rec.asked, objects: objects}
	if err != nil {
		b.err = r.rel(err.Error())
	}
	m.mu.Lock()
	m.builds[key] = append(m.builds[key], b)
	m.mu.Unlock()
	return objects, err
}

// answers reports whether fsys, r's file system, answers every question
// of b as b's repository did.
func (b *memoized) answers(r *repo, fsys filesys.FileSystem) bool {
	for _, q := range b.asked {
		if answer(r, fsys, q.op, r.abs(q.path)) != q.answer {
			return false
		}
	}
	return true
}

// answer asks fsys one question of a build and spells its answer with
// paths relative to the repository.
func answer(r *repo, fsys filesys.FileSystem, op, p string) string {
	switch op {
	case "read":
		data, err := fsys.ReadFile(p)
		if err != nil {
			return "error " + r.rel(err.Error())
		}
		return fmt.Sprintf("%x", sha256.Sum256(data))
	case "exists":
		return strconv.FormatBool(fsys.Exists(p))
	case "isdir":
		return strconv.FormatBool(fsys.IsDir(p))
	case "abs":
		dir, file, err := fsys.CleanedAbs(p)
		if err != nil {
			return "error " + r.rel(err.Error())
		}
		return r.relPath(string(dir)) + " " + file
	case "readdir":
		names, err := fsys.ReadDir(p)
		if err != nil {
			return "error " + r.rel(err.Error())
		}
		return strings.Join(names, "\x00")
	case "glob":
		matches, err := fsys.Glob(p)
		if err != nil {
			return "error " + r.rel(err.Error())
		}
		for i, m := range matches {
			matches[i] = r.relPath(m)
		}
		return strings.Join(matches, "\x00")
	}
	panic("lint: no question " + op)
}

// recordingFS answers a build from its file system and records what it
// asked. A build that writes or walks is not recorded (unknown): kustomize
// does neither, but a build that did could not be replayed.
type recordingFS struct {
	filesys.FileSystem
	r       *repo
	asked   []question
	unknown bool
}

// ask answers and records one question; the answer is asked again through
// the file system's own method by the caller, so that kustomize gets the
// real values.
func (f *recordingFS) ask(op, p string) {
	f.asked = append(f.asked, question{op: op, path: f.r.relPath(p), answer: answer(f.r, f.FileSystem, op, p)})
}

func (f *recordingFS) ReadFile(p string) ([]byte, error) {
	data, err := f.FileSystem.ReadFile(p)
	spelled := fmt.Sprintf("%x", sha256.Sum256(data))
	if err != nil {
		spelled = "error " + f.r.rel(err.Error())
	}
	f.asked = append(f.asked, question{op: "read", path: f.r.relPath(p), answer: spelled})
	return data, err
}

func (f *recordingFS) Exists(p string) bool {
	f.ask("exists", p)
	return f.FileSystem.Exists(p)
}

func (f *recordingFS) IsDir(p string) bool {
	f.ask("isdir", p)
	return f.FileSystem.IsDir(p)
}

func (f *recordingFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	f.ask("abs", p)
	return f.FileSystem.CleanedAbs(p)
}

func (f *recordingFS) ReadDir(p string) ([]string, error) {
	f.ask("readdir", p)
	return f.FileSystem.ReadDir(p)
}

func (f *recordingFS) Glob(pattern string) ([]string, error) {
	f.ask("glob", pattern)
	return f.FileSystem.Glob(pattern)
}

func (f *recordingFS) Create(p string) (filesys.File, error) {
	f.unknown = true
	return f.FileSystem.Create(p)
}

func (f *recordingFS) Mkdir(p string) error {
	f.unknown = true
	return f.FileSystem.Mkdir(p)
}

func (f *recordingFS) MkdirAll(p string) error {
	f.unknown = true
	return f.FileSystem.MkdirAll(p)
}

func (f *recordingFS) RemoveAll(p string) error {
	f.unknown = true
	return f.FileSystem.RemoveAll(p)
}

func (f *recordingFS) Open(p string) (filesys.File, error) {
	f.unknown = true
	return f.FileSystem.Open(p)
}

func (f *recordingFS) WriteFile(p string, data []byte) error {
	f.unknown = true
	return f.FileSystem.WriteFile(p, data)
}

func (f *recordingFS) Walk(p string, walkFn filepath.WalkFunc) error {
	f.unknown = true
	return f.FileSystem.Walk(p, walkFn)
}

// abs is the absolute path of a path relative to the repository; an
// absolute one, outside it, stays as it is.
func (r *repo) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(r.root, filepath.FromSlash(p))
}

// secureFS is fluxcd/pkg/kustomize's file system for r, which refuses any
// path outside the repository.
func (r *repo) secureFS() (filesys.FileSystem, error) {
	return securefs.MakeFsOnDiskSecure(r.root)
}
