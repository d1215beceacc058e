package cli

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/apply"
	"github.com/landlord-dev/landlord/internal/secret"
)

type secretGitOptions struct {
	kube           kubeFlags
	name           string
	namespace      string
	url            string
	privateKeyFile string
	generateSSH    bool
	knownHostsFile string
	username       string
	passwordStdin  bool
	ageRecipients  []string
	export         bool
	dryRun         string
}

func newSecretGitCommand(kube kubeFlags) *cobra.Command {
	opts := secretGitOptions{kube: kube}
	cmd := &cobra.Command{
		Use:   "git NAME",
		Short: "Create a tenant's Git credential Secret, SOPS-encrypted with --export",
		Long: `Create the Secret a tenant's GitRepository names in secretRef, in Flux's
format: for SSH the keys identity, identity.pub and known_hosts, for HTTPS
username and password.

Authenticate with exactly one of:
  --private-key-file F         an unencrypted SSH private key
  --generate-ssh               a new ed25519 key; its public key is printed
                               on stderr to register as a read-only deploy key
  --username U --password-stdin  a username and a password or token, read
                               from stdin so it stays out of shell history

SSH needs --known-hosts-file: Flux refuses to connect without the Git host's
key (ssh-keyscan HOST > known_hosts writes it; check it against the host's
published fingerprints).

--export prints the Secret encrypted with SOPS for each --age-recipient,
only data and stringData encrypted (encrypted_regex ` + secret.EncryptedRegex + `),
for the fleet repository; Flux decrypts it with the matching age identity.
Without --export the Secret is applied to the cluster, unencrypted.`,
		Example: `  landlord secret git team-a-git --namespace team-a \
    --url ssh://git@git.example.com/org/team-a --generate-ssh \
    --known-hosts-file known_hosts --age-recipient age1… --export > team-a-git.sops.yaml

  printf %s "$TOKEN" | landlord secret git team-a-git --namespace team-a \
    --url https://git.example.com/org/team-a --username flux --password-stdin`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			return runSecretGit(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.namespace, "namespace", "", "namespace of the Secret: the tenant's namespace holding its GitRepository")
	f.StringVar(&opts.url, "url", "", "the Git repository: ssh:// for SSH keys, https:// or http:// for a username and password")
	f.StringVar(&opts.privateKeyFile, "private-key-file", "", "unencrypted SSH private key file")
	f.BoolVar(&opts.generateSSH, "generate-ssh", false, "generate an ed25519 key and print its public key on stderr")
	f.StringVar(&opts.knownHostsFile, "known-hosts-file", "", "known_hosts file holding the Git host's keys (required with SSH)")
	f.StringVar(&opts.username, "username", "", "username for HTTPS, with --password-stdin")
	f.BoolVar(&opts.passwordStdin, "password-stdin", false, "read the password or token for HTTPS from stdin")
	f.StringSliceVar(&opts.ageRecipients, "age-recipient", nil, "age public key (age1…) to encrypt for with --export; repeatable")
	f.BoolVar(&opts.export, "export", false, "print the Secret encrypted with SOPS instead of applying it")
	addDryRunFlag(cmd, &opts.dryRun)
	_ = cmd.MarkFlagFilename("private-key-file")
	_ = cmd.MarkFlagFilename("known-hosts-file")
	return cmd
}

// validate checks the flags against each other, naming the wrong one.
func (o secretGitOptions) validate() error {
	if err := checkDryRun(o.dryRun); err != nil {
		return err
	}
	if errs := validation.IsDNS1123Subdomain(o.name); len(errs) > 0 {
		return fmt.Errorf("secret name %q: %s", o.name, strings.Join(errs, "; "))
	}
	if o.namespace == "" {
		return errors.New("--namespace is required: the tenant's namespace holding its GitRepository")
	}
	if errs := validation.IsDNS1123Label(o.namespace); len(errs) > 0 {
		return fmt.Errorf("--namespace %q: %s", o.namespace, strings.Join(errs, "; "))
	}
	methods := 0
	for _, set := range []bool{o.privateKeyFile != "", o.generateSSH, o.username != "" || o.passwordStdin} {
		if set {
			methods++
		}
	}
	switch {
	case methods == 0:
		return errors.New("set how Flux authenticates: --private-key-file F, --generate-ssh, or --username U --password-stdin")
	case methods > 1:
		return errors.New("set only one of --private-key-file, --generate-ssh or --username with --password-stdin")
	case o.username != "" && !o.passwordStdin:
		return errors.New("--username needs --password-stdin: the password or token is read from stdin")
	case o.passwordStdin && o.username == "":
		return errors.New("--password-stdin needs --username")
	}
	useSSH := o.username == ""
	u, err := url.Parse(o.url)
	switch {
	case o.url == "":
		return errors.New("--url is required: the tenant's Git repository")
	case err != nil || u.Host == "":
		return fmt.Errorf("--url %q: want an ssh://, https:// or http:// URL with a host", o.url)
	case useSSH && u.Scheme != "ssh":
		return fmt.Errorf("--url %q: an SSH key needs an ssh:// URL, such as ssh://git@%s%s", o.url, u.Host, u.Path)
	case !useSSH && u.Scheme != "https" && u.Scheme != "http":
		return fmt.Errorf("--url %q: --username and --password-stdin need an https:// or http:// URL", o.url)
	case useSSH && o.knownHostsFile == "":
		return fmt.Errorf("--known-hosts-file is required with SSH: Flux verifies the Git host's key; write it with ssh-keyscan %s > known_hosts and check it against the host's published fingerprints", u.Hostname())
	case !useSSH && o.knownHostsFile != "":
		return errors.New("--known-hosts-file applies to SSH only, not to --username")
	case o.export && len(o.ageRecipients) == 0:
		return errors.New("--export needs --age-recipient: the exported Secret is encrypted with SOPS for those age public keys")
	case !o.export && len(o.ageRecipients) > 0:
		return errors.New("--age-recipient needs --export: without it the Secret is applied to the cluster, not encrypted")
	case o.dryRun != dryRunNone && o.export:
		return errors.New("--dry-run=server asks the cluster; --export does not: use one or the other")
	case o.dryRun != dryRunNone && o.generateSSH:
		return errors.New("--generate-ssh with --dry-run=server would print a deploy key that no Secret holds: use --private-key-file")
	}
	_, err = dryRun(o.dryRun, false)
	return err
}

func runSecretGit(cmd *cobra.Command, opts secretGitOptions) error {
	if err := opts.validate(); err != nil {
		return err
	}
	if opts.export {
		// Bad recipients fail before a key is generated and thrown away.
		if _, err := secret.ParseRecipients(opts.ageRecipients); err != nil {
			return fmt.Errorf("--age-recipient %w", err)
		}
	}
	auth, public, err := opts.gitAuth(cmd.InOrStdin())
	if err != nil {
		return err
	}
	s, err := secret.GitSecret(opts.name, opts.namespace, auth)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if opts.export {
		data, err := secret.Encrypt(s, opts.ageRecipients)
		if err != nil {
			return fmt.Errorf("encrypting Secret %s/%s: %w", s.Namespace, s.Name, err)
		}
		if _, err := out.Write(data); err != nil {
			return err
		}
	} else if err := applySecret(cmd, opts.kube, s, opts.dryRun == dryRunServer); err != nil {
		return err
	}
	if public != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "%s\nRegister this public key as a read-only deploy key of %s: Flux only reads the repository.\n",
			strings.TrimSpace(string(public)), opts.url)
	}
	return nil
}

// gitAuth reads the credentials the flags name, and returns the public key
// of a generated SSH key.
func (o secretGitOptions) gitAuth(stdin io.Reader) (secret.GitAuth, []byte, error) {
	var auth secret.GitAuth
	if o.username != "" {
		password, err := io.ReadAll(stdin)
		if err != nil {
			return auth, nil, fmt.Errorf("--password-stdin: %w", err)
		}
		auth.Username = o.username
		auth.Password = strings.TrimRight(string(password), "\r\n")
		if auth.Password == "" {
			return auth, nil, errors.New("--password-stdin: stdin is empty, pipe the password or token in")
		}
		return auth, nil, nil
	}
	knownHosts, err := os.ReadFile(o.knownHostsFile)
	if err != nil {
		return auth, nil, fmt.Errorf("--known-hosts-file: %w", err)
	}
	auth.KnownHosts = knownHosts
	if o.generateSSH {
		private, public, err := secret.GenerateSSHKey("flux-" + o.namespace + "-" + o.name)
		auth.Identity = private
		return auth, public, err
	}
	if auth.Identity, err = os.ReadFile(o.privateKeyFile); err != nil {
		return auth, nil, fmt.Errorf("--private-key-file: %w", err)
	}
	if _, err := secret.PublicKey(auth.Identity); err != nil {
		return auth, nil, fmt.Errorf("--private-key-file %s: %w", o.privateKeyFile, err)
	}
	return auth, nil, nil
}

// applySecret server-side applies the Secret; apply's normalization moves
// its stringData into data, as the API server stores it.
func applySecret(cmd *cobra.Command, kube kubeFlags, s *corev1.Secret, dry bool) error {
	c, err := kube.client()
	if err != nil {
		return err
	}
	verb := "applied"
	if dry {
		c, verb = client.NewDryRunClient(c), "applied (server dry run)"
	}
	if err := apply.Objects(cmd.Context(), c, cliFieldOwner, s); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "Secret %s/%s %s\n", s.Namespace, s.Name, verb)
	return nil
}
