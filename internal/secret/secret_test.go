package secret_test

import (
	"bytes"
	"encoding/base64"
	"reflect"
	"strings"
	"testing"

	"filippo.io/age"
	"github.com/getsops/sops/v3/decrypt"
	"golang.org/x/crypto/ssh"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/internal/secret"
)

const knownHosts = "git.example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n"

func identity(t *testing.T) *age.X25519Identity {
	t.Helper()
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestSecretRoundTrip encrypts both kinds of Git credentials for two
// recipients: each identity decrypts the file through sops's own decrypt
// API, no credential shows in the file, and only data and stringData are
// encrypted.
func TestSecretRoundTrip(t *testing.T) {
	private, _, err := secret.GenerateSSHKey("flux")
	if err != nil {
		t.Fatal(err)
	}
	for name, auth := range map[string]secret.GitAuth{
		"ssh":   {Identity: private, KnownHosts: []byte(knownHosts)},
		"basic": {Username: "flux-bot", Password: "s3cr3t-token-4f9a"},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := secret.GitSecret("git-auth", "team-a", auth)
			if err != nil {
				t.Fatal(err)
			}
			alice, bob := identity(t), identity(t)
			out, err := secret.Encrypt(s, []string{alice.Recipient().String(), bob.Recipient().String()})
			if err != nil {
				t.Fatal(err)
			}

			for key, value := range s.StringData {
				for _, line := range strings.Split(strings.TrimSpace(value), "\n") {
					if len(line) >= 6 && bytes.Contains(out, []byte(line)) {
						t.Errorf("plaintext of %s in the encrypted file: %q", key, line)
					}
				}
				if bytes.Contains(out, []byte(base64.StdEncoding.EncodeToString([]byte(value)))) {
					t.Errorf("base64 of %s in the encrypted file", key)
				}
			}
			encrypted := struct {
				Metadata   map[string]any    `json:"metadata"`
				StringData map[string]string `json:"stringData"`
				Sops       struct {
					EncryptedRegex string           `json:"encrypted_regex"`
					Age            []map[string]any `json:"age"`
				} `json:"sops"`
			}{}
			if err := yaml.Unmarshal(out, &encrypted); err != nil {
				t.Fatal(err)
			}
			if encrypted.Metadata["name"] != "git-auth" || encrypted.Metadata["namespace"] != "team-a" {
				t.Errorf("metadata is not left in the clear: %v", encrypted.Metadata)
			}
			for key, value := range encrypted.StringData {
				if !strings.HasPrefix(value, "ENC[AES256_GCM,") {
					t.Errorf("stringData.%s is not encrypted: %q", key, value)
				}
			}
			if encrypted.Sops.EncryptedRegex != secret.EncryptedRegex || len(encrypted.Sops.Age) != 2 {
				t.Errorf("sops metadata: encrypted_regex %q, %d age recipients", encrypted.Sops.EncryptedRegex, len(encrypted.Sops.Age))
			}

			for who, id := range map[string]*age.X25519Identity{"alice": alice, "bob": bob} {
				t.Setenv("SOPS_AGE_KEY", id.String())
				plain, err := decrypt.Data(out, "yaml")
				if err != nil {
					t.Fatalf("%s decrypting: %v", who, err)
				}
				got := &corev1.Secret{}
				if err := yaml.UnmarshalStrict(plain, got); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, s) {
					t.Errorf("%s decrypted\n%s\nwant %+v", who, plain, s)
				}
			}
			t.Setenv("SOPS_AGE_KEY", identity(t).String())
			if _, err := decrypt.Data(out, "yaml"); err == nil {
				t.Error("a stranger's identity decrypted the file")
			}
		})
	}
}

// TestSecretFluxKeys checks the keys source-controller reads.
func TestSecretFluxKeys(t *testing.T) {
	private, public, err := secret.GenerateSSHKey("flux")
	if err != nil {
		t.Fatal(err)
	}
	s, err := secret.GitSecret("git-auth", "team-a", secret.GitAuth{Identity: private, KnownHosts: []byte(knownHosts)})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"identity": string(private), "identity.pub": string(public), "known_hosts": knownHosts}
	if !reflect.DeepEqual(s.StringData, want) {
		t.Errorf("ssh Secret keys %v", s.StringData)
	}
	key, _, _, _, err := ssh.ParseAuthorizedKey(public)
	if err != nil || key.Type() != ssh.KeyAlgoED25519 {
		t.Errorf("public key %q: type %v, %v", public, key, err)
	}
}

func TestSecretRejects(t *testing.T) {
	private, _, err := secret.GenerateSSHKey("flux")
	if err != nil {
		t.Fatal(err)
	}
	recipient := identity(t).Recipient().String()
	for name, tc := range map[string]struct {
		auth       secret.GitAuth
		recipients []string
		want       string
	}{
		"no auth":           {recipients: []string{recipient}, want: "want either an SSH identity or a username and password"},
		"both":              {auth: secret.GitAuth{Identity: private, KnownHosts: []byte(knownHosts), Username: "u", Password: "p"}, recipients: []string{recipient}, want: "want either"},
		"empty password":    {auth: secret.GitAuth{Username: "u"}, recipients: []string{recipient}, want: "the password is empty"},
		"not a key":         {auth: secret.GitAuth{Identity: []byte("hello"), KnownHosts: []byte(knownHosts)}, recipients: []string{recipient}, want: "parsing the private key"},
		"bad known hosts":   {auth: secret.GitAuth{Identity: private, KnownHosts: []byte("git.example.com not-a-key\n")}, recipients: []string{recipient}, want: "known hosts"},
		"no recipient":      {auth: secret.GitAuth{Username: "u", Password: "p"}, want: "no age recipient"},
		"bad recipient":     {auth: secret.GitAuth{Username: "u", Password: "p"}, recipients: []string{recipient, "age1nope"}, want: `age recipient "age1nope"`},
		"unknown recipient": {auth: secret.GitAuth{Username: "u", Password: "p"}, recipients: []string{"AGE-SECRET-KEY-1XYZ"}, want: "unknown recipient type"},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := secret.GitSecret("git-auth", "team-a", tc.auth)
			if err == nil {
				_, err = secret.Encrypt(s, tc.recipients)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
