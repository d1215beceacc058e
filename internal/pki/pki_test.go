package pki_test

import (
	"crypto/tls"
	"crypto/x509"
	"testing"
	"time"

	certutil "k8s.io/client-go/util/cert"

	"github.com/landlord-dev/landlord/internal/pki"
)

// TestIssue: a leaf verifies under its CA for the hosts it names, for its
// usage and within its lifetime, and nowhere else.
func TestIssue(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	notAfter := now.Add(time.Hour)
	ca, err := pki.NewCA(certutil.Config{CommonName: "test-ca", NotBefore: now}, notAfter)
	if err != nil {
		t.Fatal(err)
	}
	serverAuth := []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	leaf, err := ca.Issue(certutil.Config{
		CommonName: "hook.ns.svc",
		AltNames:   pki.AltNames("hook.ns.svc", "127.0.0.1"),
		Usages:     serverAuth,
		NotBefore:  now,
	}, notAfter)
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := leaf.PEM()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
		t.Errorf("PEM pair does not load: %v", err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.Cert)
	for name, tc := range map[string]struct {
		host  string
		at    time.Time
		usage x509.ExtKeyUsage
		ok    bool
	}{
		"dns name":        {host: "hook.ns.svc", at: now, usage: x509.ExtKeyUsageServerAuth, ok: true},
		"ip address":      {host: "127.0.0.1", at: notAfter, usage: x509.ExtKeyUsageServerAuth, ok: true},
		"unnamed host":    {host: "other.ns.svc", at: now, usage: x509.ExtKeyUsageServerAuth},
		"before lifetime": {host: "hook.ns.svc", at: now.Add(-time.Second), usage: x509.ExtKeyUsageServerAuth},
		"after lifetime":  {host: "hook.ns.svc", at: notAfter.Add(time.Second), usage: x509.ExtKeyUsageServerAuth},
		"other key usage": {host: "hook.ns.svc", at: now, usage: x509.ExtKeyUsageClientAuth},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := leaf.Cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: tc.host, CurrentTime: tc.at, KeyUsages: []x509.ExtKeyUsage{tc.usage}})
			if (err == nil) != tc.ok {
				t.Errorf("verify: %v, want ok=%t", err, tc.ok)
			}
		})
	}
}
