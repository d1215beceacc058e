package gitserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The identity of the commits PushDir makes.
const (
	AuthorName  = "Landlord Dev"
	AuthorEmail = "dev@landlord.invalid"
)

// PushDir makes the files under dir the next commit of the repository's
// Branch, pushes it with the server's credentials and returns the commit's
// hash. Files of the branch that dir lacks are deleted by that commit.
func (s *Server) PushDir(ctx context.Context, name, dir, message string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	work, err := os.MkdirTemp("", "gitserver-push-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)

	env := s.credentialEnv()
	// No checkout: the index starts empty, so the commit holds exactly dir.
	if _, err := runGit(ctx, "", env, "clone", "--quiet", "--no-checkout", s.RepoURL(name), work); err != nil {
		return "", err
	}
	git := func(args ...string) (string, error) {
		return runGit(ctx, "", env, append([]string{"--git-dir=" + filepath.Join(work, ".git"), "--work-tree=" + dir}, args...)...)
	}
	if _, err := git("add", "--all", "--force"); err != nil {
		return "", err
	}
	if _, err := git("commit", "--quiet", "--allow-empty", "--no-verify", "--message="+message); err != nil {
		return "", err
	}
	if _, err := git("push", "--quiet", "origin", "HEAD:refs/heads/"+Branch); err != nil {
		return "", err
	}
	return git("rev-parse", "HEAD")
}

// credentialEnv passes the basic-auth header through the environment,
// keeping the password off git's command line.
func (s *Server) credentialEnv() []string {
	if s.username == "" {
		return nil
	}
	token := base64.StdEncoding.EncodeToString([]byte(s.username + ":" + s.password))
	return []string{
		"GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=http.extraHeader",
		"GIT_CONFIG_VALUE_0=Authorization: Basic " + token,
	}
}

// runGit runs git in dir with a clean environment plus extra and returns its
// trimmed standard output.
func runGit(ctx context.Context, dir string, extra []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(gitEnv(), extra...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// gitEnv is the process environment without GIT_* variables, which could
// point git elsewhere, plus a fixed identity and no config but the
// repository's own.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		// Fail instead of asking for a password on the terminal.
		"GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME="+AuthorName,
		"GIT_AUTHOR_EMAIL="+AuthorEmail,
		"GIT_COMMITTER_NAME="+AuthorName,
		"GIT_COMMITTER_EMAIL="+AuthorEmail,
	)
}
