// Command modulefile prints one file of a Go module as the module proxy
// serves it, after checking the module's zip against a pinned h1: sum. It
// reads what cannot be built here: a module whose go.mod asks for a newer Go
// (the go command downloads the zip, then refuses to use it).
//
//	go run ./modulefile MODULE@VERSION h1:SUM PATH > FILE
package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"

	"golang.org/x/mod/sumdb/dirhash"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: modulefile MODULE@VERSION h1:SUM PATH")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "modulefile:", err)
		os.Exit(1)
	}
}

func run(module, sum, name string, out io.Writer) error {
	zipPath, err := download(module)
	if err != nil {
		return err
	}
	got, err := dirhash.HashZip(zipPath, dirhash.Hash1)
	if err != nil {
		return err
	}
	if got != sum {
		return fmt.Errorf("%s: zip hashes to %s, pinned %s", module, got, sum)
	}
	r, err := zip.OpenReader(zipPath)
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := r.Open(module + "/" + name)
	if err != nil {
		return fmt.Errorf("%s: %w", module, err)
	}
	defer f.Close()
	_, err = io.Copy(out, f)
	return err
}

// download fetches the module's zip into the module cache and returns its
// path. The go command reports a module needing a newer Go as an error
// after the zip is in place, so the zip's presence decides.
func download(module string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var info struct{ Zip, Error string }
	if err := json.Unmarshal(stdout.Bytes(), &info); err != nil {
		return "", fmt.Errorf("go mod download %s: %v: %s", module, runErr, stderr.String())
	}
	if _, err := os.Stat(info.Zip); info.Zip == "" || err != nil {
		return "", fmt.Errorf("go mod download %s: no zip: %s", module, info.Error)
	}
	return info.Zip, nil
}
