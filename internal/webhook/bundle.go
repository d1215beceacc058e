package webhook

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"time"

	certutil "k8s.io/client-go/util/cert"

	"github.com/landlord-dev/landlord/internal/pki"
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
	notAfter := now.Add(validity)
	ca, err := pki.NewCA(certutil.Config{CommonName: "landlord-webhook-ca", NotBefore: now}, notAfter)
	if err != nil {
		return nil, err
	}
	serving, err := ca.Issue(certutil.Config{
		CommonName: hosts[0],
		AltNames:   pki.AltNames(hosts...),
		Usages:     []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		NotBefore:  now,
	}, notAfter)
	if err != nil {
		return nil, err
	}
	caPEM, caKeyPEM, err := ca.PEM()
	if err != nil {
		return nil, err
	}
	certPEM, keyPEM, err := serving.PEM()
	if err != nil {
		return nil, err
	}
	// An unreadable previous bundle holds nothing a replica could still serve under.
	previous, _ := certutil.ParseCertsPEM(previousCA)
	var kept []*x509.Certificate
	for _, old := range previous {
		if now.Before(old.NotAfter) {
			kept = append(kept, old)
		}
	}
	keptPEM, err := certutil.EncodeCertificates(kept...)
	if err != nil {
		return nil, err
	}
	return bundle{
		certKey:   certPEM,
		keyKey:    keyPEM,
		caKey:     append(caPEM, keptPEM...),
		caPrivKey: caKeyPEM,
	}, nil
}

// check says why b must be replaced at now for hosts, nil if it serves:
// parseable, signed by its CA, naming every host and with more than a third
// of its lifetime left, the CA too.
func (b bundle) check(now time.Time, hosts []string) error {
	cas, err := certutil.ParseCertsPEM(b[caKey])
	if err != nil {
		return fmt.Errorf("CA bundle: %w", err)
	}
	leaves, err := certutil.ParseCertsPEM(b[certKey])
	if err != nil {
		return fmt.Errorf("serving certificate: %w", err)
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
