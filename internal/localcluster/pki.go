package localcluster

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"

	issuer "github.com/landlord-dev/landlord/internal/pki"
)

// Identities of the control plane's clients.
const (
	adminUser      = "landlord-admin"
	controllerUser = "system:kube-controller-manager"
)

// serviceIP is the first address of serviceCIDR, the in-cluster kubernetes
// Service the serving certificate must also name.
const (
	serviceCIDR = "10.0.0.0/24"
	serviceIP   = "10.0.0.1"
)

const certValidity = 365 * 24 * time.Hour

// pki is the directory of the certificates and keys the control plane reads,
// with the PEM data the admin kubeconfig embeds.
type pki struct {
	dir                        string
	caPEM, adminCert, adminKey []byte
}

func (p *pki) path(name string) string { return filepath.Join(p.dir, name) }

// ensurePKI reuses the certificates of a previous run in dir, so a persistent
// environment keeps its kubeconfigs and tokens valid, or creates them all.
func ensurePKI(dir string) (*pki, error) {
	p := &pki{dir: dir}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create pki directory: %w", err)
	}
	complete := true
	for _, name := range []string{
		"ca.crt", "ca.key", "apiserver.crt", "apiserver.key", "admin.crt", "admin.key",
		"kube-controller-manager.crt", "kube-controller-manager.key", "service-account.key", "service-account.pub",
	} {
		if _, err := os.Stat(p.path(name)); errors.Is(err, os.ErrNotExist) {
			complete = false
		}
	}
	if !complete {
		if err := p.generate(); err != nil {
			return nil, err
		}
	}
	for dst, name := range map[*[]byte]string{&p.caPEM: "ca.crt", &p.adminCert: "admin.crt", &p.adminKey: "admin.key"} {
		data, err := os.ReadFile(p.path(name))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		*dst = data
	}
	return p, nil
}

func (p *pki) generate() error {
	notBefore := time.Now().Add(-time.Minute) // valid at once despite second-rounded timestamps
	notAfter := notBefore.Add(certValidity)
	ca, err := issuer.NewCA(certutil.Config{CommonName: "landlord-testenv-ca", NotBefore: notBefore}, notAfter)
	if err != nil {
		return err
	}
	if err := p.write("ca", ca); err != nil {
		return err
	}
	serverAuth := []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	clientAuth := []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	for name, cfg := range map[string]certutil.Config{
		"apiserver": {CommonName: "kube-apiserver", Usages: serverAuth, AltNames: issuer.AltNames(
			"127.0.0.1", "::1", serviceIP,
			"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local")},
		"admin":                   {CommonName: adminUser, Organization: []string{"system:masters"}, Usages: clientAuth},
		"kube-controller-manager": {CommonName: controllerUser, Usages: clientAuth},
	} {
		cfg.NotBefore = notBefore
		leaf, err := ca.Issue(cfg, notAfter)
		if err != nil {
			return err
		}
		if err := p.write(name, leaf); err != nil {
			return err
		}
	}
	return p.writeServiceAccountKey()
}

// write stores name.crt and name.key.
func (p *pki) write(name string, pair *issuer.KeyPair) error {
	certPEM, keyPEM, err := pair.PEM()
	if err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	if err := keyutil.WriteKey(p.path(name+".key"), keyPEM); err != nil {
		return fmt.Errorf("write %s key: %w", name, err)
	}
	if err := certutil.WriteCert(p.path(name+".crt"), certPEM); err != nil {
		return fmt.Errorf("write %s certificate: %w", name, err)
	}
	return nil
}

// writeServiceAccountKey stores the key tokens are signed with and its
// public half, PKIX-encoded as --service-account-key-file reads it.
func (p *pki) writeServiceAccountKey() error {
	keyPEM, err := keyutil.MakeEllipticPrivateKeyPEM()
	if err != nil {
		return fmt.Errorf("generate service-account key: %w", err)
	}
	key, err := keyutil.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return fmt.Errorf("parse service-account key: %w", err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(key.(crypto.Signer).Public())
	if err != nil {
		return fmt.Errorf("marshal service-account public key: %w", err)
	}
	if err := keyutil.WriteKey(p.path("service-account.key"), keyPEM); err != nil {
		return fmt.Errorf("write service-account key: %w", err)
	}
	if err := os.WriteFile(p.path("service-account.pub"), pem.EncodeToMemory(&pem.Block{Type: keyutil.PublicKeyBlockType, Bytes: pubDER}), 0o600); err != nil {
		return fmt.Errorf("write service-account public key: %w", err)
	}
	return nil
}
