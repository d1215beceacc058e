// Package pki issues the X.509 certificates Landlord needs: a CA and the
// leaves it signs, on P-256 keys, described and PEM-encoded with client-go's
// util/cert and util/keyutil. client-go exports no helper that signs a leaf
// with a given CA, and its NewSelfSignedCACert fixes a ten-year lifetime, so
// the signing itself is the few lines of crypto/x509 below.
package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// KeyPair is a certificate and its private key.
type KeyPair struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
}

// NewCA makes a self-signed CA for cfg, valid from cfg.NotBefore to notAfter.
func NewCA(cfg certutil.Config, notAfter time.Time) (*KeyPair, error) {
	return sign(&x509.Certificate{
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}, cfg, notAfter, nil)
}

// Issue signs a certificate for cfg with ca, valid from cfg.NotBefore to
// notAfter.
func (ca *KeyPair) Issue(cfg certutil.Config, notAfter time.Time) (*KeyPair, error) {
	return sign(&x509.Certificate{KeyUsage: x509.KeyUsageDigitalSignature}, cfg, notAfter, ca)
}

// PEM encodes the certificate and the key.
func (p *KeyPair) PEM() (certPEM, keyPEM []byte, err error) {
	if certPEM, err = certutil.EncodeCertificates(p.Cert); err != nil {
		return nil, nil, err
	}
	if keyPEM, err = keyutil.MarshalPrivateKeyToPEM(p.Key); err != nil {
		return nil, nil, err
	}
	return certPEM, keyPEM, nil
}

// AltNames sorts hosts into the IP addresses and DNS names a certificate
// names.
func AltNames(hosts ...string) certutil.AltNames {
	var names certutil.AltNames
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			names.IPs = append(names.IPs, ip)
		} else {
			names.DNSNames = append(names.DNSNames, h)
		}
	}
	return names
}

// sign completes tmpl from cfg on a new key and signs it with parent, or
// self-signs it when parent is nil.
func sign(tmpl *x509.Certificate, cfg certutil.Config, notAfter time.Time, parent *KeyPair) (*KeyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating a key for %s: %w", cfg.CommonName, err)
	}
	if tmpl.SerialNumber, err = rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127)); err != nil {
		return nil, fmt.Errorf("generating a serial number: %w", err)
	}
	tmpl.Subject = pkix.Name{CommonName: cfg.CommonName, Organization: cfg.Organization}
	tmpl.DNSNames, tmpl.IPAddresses = cfg.AltNames.DNSNames, cfg.AltNames.IPs
	tmpl.ExtKeyUsage = cfg.Usages
	tmpl.NotBefore, tmpl.NotAfter = cfg.NotBefore, notAfter
	if parent == nil {
		parent = &KeyPair{Cert: tmpl, Key: key}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent.Cert, &key.PublicKey, parent.Key)
	if err != nil {
		return nil, fmt.Errorf("signing %s: %w", cfg.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", cfg.CommonName, err)
	}
	return &KeyPair{Cert: cert, Key: key}, nil
}
