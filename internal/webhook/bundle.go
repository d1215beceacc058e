package webhook

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"
)

// Keys of the serving certificate Secret, as cert-manager writes them, plus
// the CA key so that any replica can rotate.
const (
	certKey   = "tls.crt"
	keyKey    = "tls.key"
	caKey     = "ca.crt"
	caPrivKey = "ca.key"
)

// bundle is the serving material: the CA bundle holds the current CA first,
// then the previous one while it is valid, so that a rotation never leaves
// the apiserver distrusting a replica still serving the old certificate.
type bundle map[string][]byte

// issue makes a new CA and a serving certificate for hosts, valid from now
// for validity, keeping previousCA in the bundle while it is valid.
func issue(now time.Time, validity time.Duration, hosts []string, previousCA []byte) (bundle, error) {
	caPriv, caDER, err := newCert(now, validity, &x509.Certificate{
		Subject:               pkix.Name{CommonName: "landlord-webhook-ca"},
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}, nil, nil)
	if err != nil {
		return nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	leaf := &x509.Certificate{
		Subject:     pkix.Name{CommonName: hosts[0]},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			leaf.IPAddresses = append(leaf.IPAddresses, ip)
		} else {
			leaf.DNSNames = append(leaf.DNSNames, h)
		}
	}
	priv, der, err := newCert(now, validity, leaf, ca, caPriv)
	if err != nil {
		return nil, err
	}
	caKeyDER, err := x509.MarshalECPrivateKey(caPriv)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		return nil, err
	}
	caPEM := pemBlock("CERTIFICATE", caDER)
	for _, old := range parseCerts(previousCA) {
		if now.Before(old.NotAfter) {
			caPEM = append(caPEM, pemBlock("CERTIFICATE", old.Raw)...)
		}
	}
	return bundle{
		certKey:   pemBlock("CERTIFICATE", der),
		keyKey:    pemBlock("EC PRIVATE KEY", keyDER),
		caKey:     caPEM,
		caPrivKey: pemBlock("EC PRIVATE KEY", caKeyDER),
	}, nil
}

// newCert signs template with parent's key, or self-signs it when parent
// is nil, on a new P-256 key.
func newCert(now time.Time, validity time.Duration, template, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*ecdsa.PrivateKey, []byte, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generating a key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, fmt.Errorf("generating a serial number: %w", err)
	}
	template.SerialNumber = serial
	template.NotBefore = now
	template.NotAfter = now.Add(validity)
	if parent == nil {
		parent, parentKey = template, priv
	}
	der, err := x509.CreateCertificate(rand.Reader, template, parent, &priv.PublicKey, parentKey)
	if err != nil {
		return nil, nil, fmt.Errorf("signing %s: %w", template.Subject.CommonName, err)
	}
	return priv, der, nil
}

// check says why b must be replaced at now for hosts, nil if it serves:
// parseable, signed by its CA, naming every host and with more than a third
// of its lifetime left, the CA too.
func (b bundle) check(now time.Time, hosts []string) error {
	cas := parseCerts(b[caKey])
	leaves := parseCerts(b[certKey])
	if len(cas) == 0 || len(leaves) == 0 {
		return errors.New("no certificate")
	}
	if _, err := tls.X509KeyPair(b[certKey], b[keyKey]); err != nil {
		return fmt.Errorf("serving key pair: %w", err)
	}
	ca, leaf := cas[0], leaves[0]
	if err := leaf.CheckSignatureFrom(ca); err != nil {
		return fmt.Errorf("serving certificate not signed by the CA: %w", err)
	}
	for _, h := range hosts {
		if err := leaf.VerifyHostname(h); err != nil {
			return err
		}
	}
	for _, c := range []*x509.Certificate{ca, leaf} {
		if now.After(c.NotAfter.Add(-c.NotAfter.Sub(c.NotBefore) / 3)) {
			return fmt.Errorf("%s expires at %s", c.Subject.CommonName, c.NotAfter.Format(time.RFC3339))
		}
	}
	return nil
}

// parseCerts returns the certificates PEM-encoded in data, skipping the rest.
func parseCerts(data []byte) []*x509.Certificate {
	var certs []*x509.Certificate
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		if c, err := x509.ParseCertificate(block.Bytes); err == nil && block.Type == "CERTIFICATE" {
			certs = append(certs, c)
		}
	}
	return certs
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
