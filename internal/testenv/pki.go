package testenv

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
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
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generate ca key: %w", err)
	}
	caTmpl, err := template(pkix.Name{CommonName: "landlord-testenv-ca"})
	if err != nil {
		return err
	}
	caTmpl.IsCA = true
	caTmpl.BasicConstraintsValid = true
	caTmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		return fmt.Errorf("create ca certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return fmt.Errorf("parse ca certificate: %w", err)
	}
	if err := p.write("ca", caDER, caKey); err != nil {
		return err
	}

	serving, err := template(pkix.Name{CommonName: "kube-apiserver"})
	if err != nil {
		return err
	}
	serving.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	serving.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback, net.ParseIP(serviceIP)}
	serving.DNSNames = []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"}

	admin, err := template(pkix.Name{CommonName: adminUser, Organization: []string{"system:masters"}})
	if err != nil {
		return err
	}
	admin.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}

	controller, err := template(pkix.Name{CommonName: controllerUser})
	if err != nil {
		return err
	}
	controller.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}

	for name, tmpl := range map[string]*x509.Certificate{"apiserver": serving, "admin": admin, "kube-controller-manager": controller} {
		if err := p.issue(name, tmpl, ca, caKey); err != nil {
			return err
		}
	}

	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generate service-account key: %w", err)
	}
	if err := p.write("service-account", nil, saKey); err != nil {
		return err
	}
	// --service-account-key-file reads PKIX public keys, not PKCS #8 private ones.
	pubDER, err := x509.MarshalPKIXPublicKey(saKey.Public())
	if err != nil {
		return fmt.Errorf("marshal service-account public key: %w", err)
	}
	if err := os.WriteFile(p.path("service-account.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o600); err != nil {
		return fmt.Errorf("write service-account public key: %w", err)
	}
	return nil
}

func (p *pki) issue(name string, tmpl, ca *x509.Certificate, caKey crypto.Signer) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generate %s key: %w", name, err)
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		return fmt.Errorf("create %s certificate: %w", name, err)
	}
	return p.write(name, der, key)
}

// write stores name.key and, when der is set, name.crt.
func (p *pki) write(name string, der []byte, key *ecdsa.PrivateKey) error {
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("marshal %s key: %w", name, err)
	}
	if err := os.WriteFile(p.path(name+".key"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return fmt.Errorf("write %s key: %w", name, err)
	}
	if der == nil {
		return nil
	}
	if err := os.WriteFile(p.path(name+".crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("write %s certificate: %w", name, err)
	}
	return nil
}

func template(subject pkix.Name) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("generate serial number: %w", err)
	}
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      subject,
		NotBefore:    now.Add(-time.Minute), // valid at once despite second-rounded timestamps
		NotAfter:     now.Add(certValidity),
	}, nil
}
