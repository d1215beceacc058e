package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"
	"github.com/getsops/sops/v3/decrypt"
	"golang.org/x/crypto/ssh"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/internal/cli"
	"github.com/landlord-dev/landlord/internal/secret"
)

const secretKnownHosts = "git.example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n"

// secretGit runs `landlord secret git` with stdin, stdout and stderr apart.
func secretGit(stdin string, args ...string) (stdout, stderr string, err error) {
	cmd := cli.NewRootCommand()
	var out, errOut bytes.Buffer
	cmd.SetArgs(append([]string{"secret", "git"}, args...))
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// decryptSecret decrypts sops output with an age identity through sops's
// own decrypt API, as kustomize-controller does.
func decryptSecret(t *testing.T, id *age.X25519Identity, encrypted string) *corev1.Secret {
	t.Helper()
	t.Setenv("SOPS_AGE_KEY", id.String())
	plain, err := decrypt.Data([]byte(encrypted), "yaml")
	if err != nil {
		t.Fatalf("decrypting:\n%s\n%v", encrypted, err)
	}
	s := &corev1.Secret{}
	if err := yaml.UnmarshalStrict(plain, s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSecretGitGenerateSSHExport generates a deploy key: the encrypted
// Secret decrypts to Flux's SSH keys, the private key appears nowhere in
// the output, and stderr carries the public key to register.
func TestSecretGitGenerateSSHExport(t *testing.T) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := secretGit("", "team-a-git", "--namespace", "team-a",
		"--url", "ssh://git@git.example.com/org/team-a", "--generate-ssh",
		"--known-hosts-file", writeTemp(t, "known_hosts", secretKnownHosts),
		"--age-recipient", id.Recipient().String(), "--export")
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr)
	}
	s := decryptSecret(t, id, stdout)
	if s.Name != "team-a-git" || s.Namespace != "team-a" {
		t.Errorf("Secret %s/%s, want team-a/team-a-git", s.Namespace, s.Name)
	}
	signer, err := ssh.ParsePrivateKey([]byte(s.StringData[secret.IdentityKey]))
	if err != nil {
		t.Fatalf("identity: %v", err)
	}
	public := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
	if signer.PublicKey().Type() != ssh.KeyAlgoED25519 {
		t.Errorf("generated a %s key, want ed25519", signer.PublicKey().Type())
	}
	if got := strings.TrimSpace(s.StringData[secret.IdentityPubKey]); got != public {
		t.Errorf("identity.pub %q does not match the identity's %q", got, public)
	}
	if s.StringData[secret.KnownHostsKey] != secretKnownHosts {
		t.Errorf("known_hosts %q", s.StringData[secret.KnownHostsKey])
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 2 || lines[0] != public || !strings.Contains(lines[1], "read-only deploy key of ssh://git@git.example.com/org/team-a") {
		t.Errorf("stderr should be the public key and a line to register it as a read-only deploy key:\n%s", stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(s.StringData[secret.IdentityKey]), "\n") {
		if len(line) > 8 && (strings.Contains(stdout, line) || strings.Contains(stderr, line)) {
			t.Errorf("private key line %q in the output", line)
		}
	}
}

// TestSecretGitPrivateKeyExport takes an existing key.
func TestSecretGitPrivateKeyExport(t *testing.T) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	private, public, err := secret.GenerateSSHKey("test")
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := secretGit("", "team-a-git", "--namespace", "team-a",
		"--url", "ssh://git@git.example.com/org/team-a", "--private-key-file", writeTemp(t, "id", string(private)),
		"--known-hosts-file", writeTemp(t, "known_hosts", secretKnownHosts),
		"--age-recipient", id.Recipient().String(), "--export")
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr)
	}
	if stderr != "" {
		t.Errorf("stderr for a key the admin brought: %q", stderr)
	}
	s := decryptSecret(t, id, stdout)
	if s.StringData[secret.IdentityKey] != string(private) || s.StringData[secret.IdentityPubKey] != string(public) {
		t.Errorf("decrypted keys differ from the key file:\n%v", s.StringData)
	}
}

// TestSecretGitBasicExport reads the password from stdin, for two
// recipients.
func TestSecretGitBasicExport(t *testing.T) {
	alice, _ := age.GenerateX25519Identity()
	bob, _ := age.GenerateX25519Identity()
	const password = "glpat-Zx81-very-secret"
	stdout, stderr, err := secretGit(password+"\n", "team-a-git", "--namespace", "team-a",
		"--url", "https://git.example.com/org/team-a", "--username", "flux", "--password-stdin",
		"--age-recipient", alice.Recipient().String(), "--age-recipient", bob.Recipient().String(), "--export")
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr)
	}
	if strings.Contains(stdout, password) || strings.Contains(stdout, "flux") {
		t.Errorf("a credential in the clear:\n%s", stdout)
	}
	if !strings.Contains(stdout, "encrypted_regex: ^(data|stringData)$") {
		t.Errorf("not limited to data and stringData:\n%s", stdout)
	}
	for _, id := range []*age.X25519Identity{alice, bob} {
		s := decryptSecret(t, id, stdout)
		want := map[string]string{"username": "flux", "password": password}
		if len(s.StringData) != 2 || s.StringData["username"] != want["username"] || s.StringData["password"] != want["password"] {
			t.Errorf("decrypted %v, want %v", s.StringData, want)
		}
	}
}

// TestSecretGitFlagErrors names the flag at fault in each error.
func TestSecretGitFlagErrors(t *testing.T) {
	id, _ := age.GenerateX25519Identity()
	recipient := id.Recipient().String()
	knownHosts := writeTemp(t, "known_hosts", secretKnownHosts)
	encrypted := writeTemp(t, "id", "-----BEGIN OPENSSH PRIVATE KEY-----\nnot really\n-----END OPENSSH PRIVATE KEY-----\n")
	sshURL, httpsURL := "ssh://git@git.example.com/org/a", "https://git.example.com/org/a"
	for name, tc := range map[string]struct {
		args []string
		want string
		// noNamespace leaves --namespace out.
		noNamespace bool
	}{
		"no auth":            {args: []string{"--url", sshURL}, want: "set how Flux authenticates: --private-key-file F, --generate-ssh, or --username U --password-stdin"},
		"two ways":           {args: []string{"--url", sshURL, "--generate-ssh", "--private-key-file", encrypted}, want: "set only one of --private-key-file, --generate-ssh or --username"},
		"ssh and password":   {args: []string{"--url", sshURL, "--generate-ssh", "--username", "u", "--password-stdin"}, want: "set only one of"},
		"username alone":     {args: []string{"--url", httpsURL, "--username", "u"}, want: "--username needs --password-stdin"},
		"password alone":     {args: []string{"--url", httpsURL, "--password-stdin"}, want: "--password-stdin needs --username"},
		"empty stdin":        {args: []string{"--url", httpsURL, "--username", "u", "--password-stdin", "--age-recipient", recipient, "--export"}, want: "--password-stdin: stdin is empty"},
		"no namespace":       {args: []string{"--url", sshURL, "--generate-ssh"}, want: "--namespace is required", noNamespace: true},
		"no url":             {args: []string{"--generate-ssh"}, want: "--url is required"},
		"scp url":            {args: []string{"--url", "git@git.example.com:org/a", "--generate-ssh"}, want: `--url "git@git.example.com:org/a": want an ssh://, https:// or http:// URL`},
		"ssh key, https url": {args: []string{"--url", httpsURL, "--generate-ssh"}, want: "an SSH key needs an ssh:// URL, such as ssh://git@git.example.com/org/a"},
		"password, ssh url":  {args: []string{"--url", sshURL, "--username", "u", "--password-stdin"}, want: "--username and --password-stdin need an https:// or http:// URL"},
		"no known hosts":     {args: []string{"--url", sshURL, "--generate-ssh", "--age-recipient", recipient, "--export"}, want: "--known-hosts-file is required with SSH"},
		"known hosts, https": {args: []string{"--url", httpsURL, "--username", "u", "--password-stdin", "--known-hosts-file", knownHosts}, want: "--known-hosts-file applies to SSH only"},
		"export, no age":     {args: []string{"--url", sshURL, "--generate-ssh", "--known-hosts-file", knownHosts, "--export"}, want: "--export needs --age-recipient"},
		"age, no export":     {args: []string{"--url", sshURL, "--generate-ssh", "--known-hosts-file", knownHosts, "--age-recipient", recipient}, want: "--age-recipient needs --export"},
		"bad recipient":      {args: []string{"--url", sshURL, "--generate-ssh", "--known-hosts-file", knownHosts, "--age-recipient", "age1bogus", "--export"}, want: `--age-recipient "age1bogus": failed to parse`},
		"not a recipient":    {args: []string{"--url", sshURL, "--generate-ssh", "--known-hosts-file", knownHosts, "--age-recipient", id.String(), "--export"}, want: "--age-recipient \"AGE-SECRET-KEY-"},
		"bad key file":       {args: []string{"--url", sshURL, "--private-key-file", encrypted, "--known-hosts-file", knownHosts, "--age-recipient", recipient, "--export"}, want: "--private-key-file " + encrypted + ": parsing the private key"},
		"missing key file":   {args: []string{"--url", sshURL, "--private-key-file", "/nonexistent/id", "--known-hosts-file", knownHosts, "--age-recipient", recipient, "--export"}, want: "--private-key-file: open /nonexistent/id"},
		"bad known hosts":    {args: []string{"--url", sshURL, "--generate-ssh", "--known-hosts-file", encrypted, "--age-recipient", recipient, "--export"}, want: "known hosts"},
	} {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"team-a-git", "--namespace", "team-a"}, tc.args...)
			if tc.noNamespace {
				args = append([]string{"team-a-git"}, tc.args...)
			}
			stdout, _, err := secretGit("", args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant one containing %q", err, tc.want)
			}
			if stdout != "" {
				t.Errorf("output despite the error:\n%s", stdout)
			}
		})
	}
}

// TestSecretGitApply applies the unencrypted Secret to the cluster; a
// second run with a new password updates it in place.
func TestSecretGitApply(t *testing.T) {
	startCluster(t)
	mustCreate(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "secret-apply"}})
	kubeconfig := "--kubeconfig=" + env.KubeconfigPath
	for _, password := range []string{"first-token", "second-token"} {
		stdout, stderr, err := secretGit(password, "git-auth", "--namespace", "secret-apply",
			"--url", "https://git.example.com/org/a", "--username", "flux", "--password-stdin", kubeconfig)
		if err != nil {
			t.Fatalf("%v\nstderr:\n%s", err, stderr)
		}
		if stdout != "Secret secret-apply/git-auth applied\n" {
			t.Errorf("stdout %q", stdout)
		}
		s := &corev1.Secret{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: "secret-apply", Name: "git-auth"}, s); err != nil {
			t.Fatal(err)
		}
		if string(s.Data["username"]) != "flux" || string(s.Data["password"]) != password || len(s.Data) != 2 {
			t.Errorf("Secret data %q, want username flux and password %s", s.Data, password)
		}
	}

	// A server dry run is judged and answered, and changes nothing.
	stdout, stderr, err := secretGit("third-token", "git-auth", "--namespace", "secret-apply",
		"--url", "https://git.example.com/org/a", "--username", "flux", "--password-stdin", "--dry-run=server", kubeconfig)
	if err != nil || stdout != "Secret secret-apply/git-auth applied (server dry run)\n" {
		t.Errorf("--dry-run=server: %q, %v\n%s", stdout, err, stderr)
	}
	kept := &corev1.Secret{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "secret-apply", Name: "git-auth"}, kept); err != nil || string(kept.Data["password"]) != "second-token" {
		t.Errorf("after a dry run the password is %q (%v), want second-token", kept.Data["password"], err)
	}
	if _, _, err := secretGit("", "deploy-key", "--namespace", "secret-apply", "--url", "ssh://git@git.example.com/org/a", "--generate-ssh",
		"--known-hosts-file", writeTemp(t, "known_hosts", secretKnownHosts), "--dry-run=server", kubeconfig); err == nil || !strings.Contains(err.Error(), "deploy key that no Secret holds") {
		t.Errorf("--generate-ssh --dry-run=server: %v", err)
	}

	stdout, stderr, err = secretGit("", "deploy-key", "--namespace", "secret-apply",
		"--url", "ssh://git@git.example.com/org/a", "--generate-ssh",
		"--known-hosts-file", writeTemp(t, "known_hosts", secretKnownHosts), kubeconfig)
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr)
	}
	s := &corev1.Secret{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "secret-apply", Name: "deploy-key"}, s); err != nil {
		t.Fatal(err)
	}
	if pub := strings.TrimSpace(string(s.Data[secret.IdentityPubKey])); pub == "" || !strings.HasPrefix(stderr, pub+"\n") {
		t.Errorf("stderr %q does not start with the applied identity.pub %q", stderr, pub)
	}
	if strings.Contains(stdout, "PRIVATE KEY") || strings.Contains(stderr, "PRIVATE KEY") {
		t.Errorf("the private key was printed")
	}
}
