package lint

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sync"

	yaml "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Each build may read a repository's files a number of times: a fleet of
// 1,000 tenants builds in about 20 reads per file of it, while
// kustomizations taking one another in twice per level read 2^depth times.
const (
	readsPerFile = 50
	minReads     = 10_000
)

// A build loads each kustomization once for every path to it, about once
// in a fleet; blockMultiplied refuses the repositories where paths
// multiply.
const (
	loadsPerKustomization = 10
	minLoads              = 1_000
)

// maxReads bounds the file system calls of one build in r.
func (r *repo) maxBuildReads() int {
	if r.maxReads > 0 {
		return r.maxReads
	}
	return minReads + readsPerFile*r.files
}

// await returns build's result, or ctx's error as soon as ctx ends:
// kustomize computes between reads for as long as the objects it holds
// take, so a build ctx stopped is left to end at its next read.
func await(ctx context.Context, build func() ([]*object, error)) ([]*object, error) {
	type result struct {
		objects []*object
		err     error
	}
	done := make(chan result, 1)
	go func() {
		objects, err := build()
		done <- result{objects, err}
	}()
	select {
	case res := <-done:
		return res.objects, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// boundedFS answers a build until its lint is cancelled or the build has
// asked max questions; kustomize cannot be cancelled, so each answer is
// where a build stops.
type boundedFS struct {
	filesys.FileSystem
	ctx  context.Context
	max  int
	mu   sync.Mutex
	used int
	err  error
}

func newBoundedFS(ctx context.Context, fsys filesys.FileSystem, max int) *boundedFS {
	return &boundedFS{FileSystem: fsys, ctx: ctx, max: max}
}

// spend counts one question and says why the build must stop, if it must.
func (f *boundedFS) spend() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.err != nil:
	case f.ctx.Err() != nil:
		f.err = f.ctx.Err()
	case f.used >= f.max:
		f.err = fmt.Errorf("the build stopped after %d file reads: kustomizations that take one another in more than once multiply the reads with every level (--max-build-reads raises the bound)", f.max)
	default:
		f.used++
	}
	return f.err
}

// stopped is why the build stopped early, nil if it did not; it replaces
// whatever kustomize made of the refused answer.
func (f *boundedFS) stopped() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *boundedFS) ReadFile(p string) ([]byte, error) {
	if err := f.spend(); err != nil {
		return nil, err
	}
	data, err := f.FileSystem.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if err := checkAliases(data); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return data, nil
}

func (f *boundedFS) Open(p string) (filesys.File, error) {
	if err := f.spend(); err != nil {
		return nil, err
	}
	return f.FileSystem.Open(p)
}

func (f *boundedFS) Exists(p string) bool {
	return f.spend() == nil && f.FileSystem.Exists(p)
}

func (f *boundedFS) IsDir(p string) bool {
	return f.spend() == nil && f.FileSystem.IsDir(p)
}

func (f *boundedFS) ReadDir(p string) ([]string, error) {
	if err := f.spend(); err != nil {
		return nil, err
	}
	return f.FileSystem.ReadDir(p)
}

func (f *boundedFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	if err := f.spend(); err != nil {
		return "", "", err
	}
	return f.FileSystem.CleanedAbs(p)
}

func (f *boundedFS) Glob(pattern string) ([]string, error) {
	if err := f.spend(); err != nil {
		return nil, err
	}
	return f.FileSystem.Glob(pattern)
}

func (f *boundedFS) Walk(p string, walk filepath.WalkFunc) error {
	if err := f.spend(); err != nil {
		return err
	}
	return f.FileSystem.Walk(p, walk)
}

// maxIgnoreFile bounds a .sourceignore lint lets Flux's generator read.
const maxIgnoreFile = 64 << 10

// maxExpandedNodes bounds the YAML nodes one file may expand to through
// its aliases: a few lines of anchors each aliasing the one before nine
// times expand to billions, which kustomize would build with no file read
// to stop it.
const maxExpandedNodes = 1_000_000

// checkAliases refuses data whose YAML documents, aliases expanded, hold
// more than maxExpandedNodes nodes; data that is not YAML is the build's
// to report. It counts without expanding: each node once, an alias as
// the size of what it names.
func checkAliases(data []byte) error {
	if !bytes.Contains(data, []byte("&")) || !bytes.Contains(data, []byte("*")) {
		return nil // no anchor or no alias
	}
	sizes := map[*yaml.Node]int{}
	var size func(n *yaml.Node) int
	size = func(n *yaml.Node) int {
		if n == nil {
			return 0
		}
		if s, ok := sizes[n]; ok {
			return s
		}
		sizes[n] = maxExpandedNodes + 1 // an alias to itself expands forever
		s := 1
		if n.Kind == yaml.AliasNode {
			s = size(n.Alias)
		}
		for _, c := range n.Content {
			s = min(s+size(c), maxExpandedNodes+1)
		}
		sizes[n] = s
		return s
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	total := 0
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			return nil // the end, or not YAML
		}
		if total += size(&doc); total > maxExpandedNodes {
			return fmt.Errorf("its YAML aliases expand to more than %d nodes; allowed: %d", maxExpandedNodes, maxExpandedNodes)
		}
	}
}
