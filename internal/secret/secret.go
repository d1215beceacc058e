// Package secret makes the Git credential Secrets Flux reads and encrypts
// them with SOPS for age recipients, the way Flux's kustomize-controller
// decrypts them.
package secret

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/getsops/sops/v3"
	"github.com/getsops/sops/v3/aes"
	"github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/config"
	"github.com/getsops/sops/v3/keys"
	sopsyaml "github.com/getsops/sops/v3/stores/yaml"
	"github.com/getsops/sops/v3/version"
	"golang.org/x/crypto/ssh"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// EncryptedRegex limits encryption to a Secret's values: apiVersion, kind
// and metadata stay readable for kustomize, reviews and `landlord lint`.
const EncryptedRegex = "^(data|stringData)$"

// Keys of a Flux Git credential Secret.
const (
	IdentityKey    = "identity"
	IdentityPubKey = "identity.pub"
	KnownHostsKey  = "known_hosts"
	UsernameKey    = "username"
	PasswordKey    = "password"
)

// GitAuth is how Flux's source-controller authenticates to a Git server:
// an SSH key with the server's known hosts, or a username and password.
type GitAuth struct {
	// Identity is an unencrypted private key in PEM.
	Identity   []byte
	KnownHosts []byte
	Username   string
	Password   string
}

// GitSecret is the Secret a GitRepository's secretRef names, values in
// stringData as `flux create secret git --export` writes them.
func GitSecret(name, namespace string, auth GitAuth) (*corev1.Secret, error) {
	s := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		StringData: map[string]string{},
	}
	switch {
	case len(auth.Identity) > 0 && auth.Username == "":
		pub, err := PublicKey(auth.Identity)
		if err != nil {
			return nil, err
		}
		if _, _, _, _, _, err := ssh.ParseKnownHosts(auth.KnownHosts); err != nil {
			return nil, fmt.Errorf("known hosts: %w", err)
		}
		s.StringData[IdentityKey] = string(auth.Identity)
		s.StringData[IdentityPubKey] = string(pub)
		s.StringData[KnownHostsKey] = string(auth.KnownHosts)
	case len(auth.Identity) == 0 && auth.Username != "":
		if auth.Password == "" {
			return nil, errors.New("the password is empty")
		}
		s.StringData[UsernameKey] = auth.Username
		s.StringData[PasswordKey] = auth.Password
	default:
		return nil, errors.New("want either an SSH identity or a username and password")
	}
	return s, nil
}

// GenerateSSHKey makes an ed25519 key: the private key in OpenSSH PEM and
// the public key in authorized_keys form, as Git servers take deploy keys.
func GenerateSSHKey(comment string) (private, public []byte, err error) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	block, err := ssh.MarshalPrivateKey(key, comment)
	if err != nil {
		return nil, nil, err
	}
	private = pem.EncodeToMemory(block)
	public, err = PublicKey(private)
	return private, public, err
}

// PublicKey is the authorized_keys line of an unencrypted private key.
func PublicKey(private []byte) ([]byte, error) {
	signer, err := ssh.ParsePrivateKey(private)
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		return nil, errors.New("the private key is protected by a passphrase: Flux needs it unencrypted, decrypt a copy with ssh-keygen -p")
	}
	if err != nil {
		return nil, fmt.Errorf("parsing the private key: %w", err)
	}
	return ssh.MarshalAuthorizedKey(signer.PublicKey()), nil
}

// ParseRecipients checks age recipients (age1… X25519 keys or SSH public
// keys), naming the first bad one.
func ParseRecipients(recipients []string) ([]keys.MasterKey, error) {
	if len(recipients) == 0 {
		return nil, errors.New("no age recipient")
	}
	var masters []keys.MasterKey
	for _, r := range recipients {
		key, err := age.MasterKeyFromRecipient(r)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", r, err)
		}
		masters = append(masters, key)
	}
	return masters, nil
}

// Encrypt returns the object, marshalled to YAML, encrypted with SOPS for
// every age recipient, only its data and stringData encrypted.
func Encrypt(obj any, recipients []string) ([]byte, error) {
	masters, err := ParseRecipients(recipients)
	if err != nil {
		return nil, fmt.Errorf("age recipient %w", err)
	}
	plain, err := yaml.Marshal(obj)
	if err != nil {
		return nil, err
	}
	store := sopsyaml.NewStore(&config.YAMLStoreConfig{Indent: 2})
	branches, err := store.LoadPlainFile(plain)
	if err != nil {
		return nil, err
	}
	tree := sops.Tree{
		Branches: branches,
		Metadata: sops.Metadata{
			KeyGroups:      []sops.KeyGroup{masters},
			EncryptedRegex: EncryptedRegex,
			Version:        version.Version,
		},
	}
	dataKey, errs := tree.GenerateDataKey()
	if len(errs) > 0 {
		return nil, fmt.Errorf("encrypting the data key: %w", errors.Join(errs...))
	}
	// What sops encrypt does after the data key: the values, then the MAC
	// over them, bound to the modification time.
	cipher := aes.NewCipher()
	mac, err := tree.Encrypt(dataKey, cipher)
	if err != nil {
		return nil, fmt.Errorf("encrypting: %w", err)
	}
	tree.Metadata.LastModified = time.Now().UTC()
	tree.Metadata.MessageAuthenticationCode, err = cipher.Encrypt(mac, dataKey, tree.Metadata.LastModified.Format(time.RFC3339))
	if err != nil {
		return nil, fmt.Errorf("encrypting the MAC: %w", err)
	}
	out, err := store.EmitEncryptedFile(tree)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(string(out), "\n") {
		out = append(out, '\n')
	}
	return out, nil
}
