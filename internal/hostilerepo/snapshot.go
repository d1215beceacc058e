package hostilerepo

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Snapshot describes every entry below dir, symlinks not followed: its
// type and mode, size, modification time and link target, by path
// relative to dir. An entry that cannot be read (a path past PATH_MAX) is
// described by its error.
func Snapshot(dir string) map[string]string {
	entries := map[string]string{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		if err != nil {
			entries[rel] = "error: " + err.Error()
			return nil
		}
		info, err := d.Info()
		if err != nil {
			entries[rel] = "error: " + err.Error()
			return nil
		}
		desc := fmt.Sprintf("%v %d %d", info.Mode(), info.Size(), info.ModTime().UnixNano())
		if info.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			desc += " -> " + target
		}
		entries[rel] = desc
		return nil
	})
	return entries
}

// Changes lists the entries added, removed or changed between two
// snapshots, but those below one of allowed (paths relative to the
// snapshots' directory), sorted.
func Changes(before, after map[string]string, allowed ...string) []string {
	below := func(p string) bool {
		return slices.ContainsFunc(allowed, func(a string) bool { return p == a || strings.HasPrefix(p, a+string(filepath.Separator)) })
	}
	var changes []string
	for p, was := range before {
		if now, ok := after[p]; !below(p) && (!ok || now != was) {
			changes = append(changes, fmt.Sprintf("%s: %q, was %q", p, now, was))
		}
	}
	for p, now := range after {
		if _, ok := before[p]; !ok && !below(p) {
			changes = append(changes, fmt.Sprintf("%s: %q, new", p, now))
		}
	}
	slices.Sort(changes)
	return changes
}
