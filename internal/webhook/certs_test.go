package webhook_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/testenv"
	"github.com/landlord-dev/landlord/internal/webhook"
)

// TestCertificateIssuedStoredInjected: the Secret holds a CA and serving
// pair, the server serves that pair, and every webhook carries the CA.
func TestCertificateIssuedStoredInjected(t *testing.T) {
	secret := tlsSecret(t)
	for _, k := range []string{"tls.crt", "tls.key", "ca.crt", "ca.key"} {
		if len(secret.Data[k]) == 0 {
			t.Errorf("secret lacks %s", k)
		}
	}
	onDisk, err := os.ReadFile(filepath.Join(hooks.CertDir, "tls.crt"))
	if err != nil || !bytes.Equal(onDisk, secret.Data["tls.crt"]) {
		t.Errorf("tls.crt in the cert dir is not the Secret's (%v)", err)
	}
	testenv.Eventually(t, 10*time.Second, func() error { return injected(secret.Data["ca.crt"]) })
	testenv.Eventually(t, 10*time.Second, func() error { return serves(secret) })
}

// TestCertificateRotates: a certificate with less than a third of its life
// left is replaced, served and injected.
func TestCertificateRotates(t *testing.T) {
	secret := tlsSecret(t)
	near, err := webhook.NearExpiry(hooks)
	if err != nil {
		t.Fatal(err)
	}
	secret.Data = near
	if err := k8s.Update(ctx, secret); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	testenv.Eventually(t, 20*time.Second, func() error {
		secret = tlsSecret(t)
		if bytes.Equal(secret.Data["tls.crt"], near["tls.crt"]) {
			return fmt.Errorf("the near-expiry certificate is still stored")
		}
		return nil
	})
	testenv.Eventually(t, 20*time.Second, func() error { return injected(secret.Data["ca.crt"]) })
	testenv.Eventually(t, 20*time.Second, func() error { return serves(secret) })
	t.Logf("rotated, injected and served in %s", time.Since(start).Round(time.Millisecond))
	if !bytes.Contains(secret.Data["ca.crt"], near["ca.crt"]) {
		t.Error("the bundle dropped the previous, still valid CA")
	}
}

func tlsSecret(t *testing.T) *corev1.Secret {
	t.Helper()
	secret := &corev1.Secret{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "landlord-system", Name: webhook.SecretName}, secret); err != nil {
		t.Fatal(err)
	}
	return secret
}

// injected checks that every webhook's caBundle is ca.
func injected(ca []byte) error {
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: webhook.ConfigurationName}, v); err != nil {
		return err
	}
	if err := k8s.Get(ctx, client.ObjectKey{Name: webhook.ConfigurationName}, m); err != nil {
		return err
	}
	bundles := [][]byte{m.Webhooks[0].ClientConfig.CABundle}
	for _, w := range v.Webhooks {
		bundles = append(bundles, w.ClientConfig.CABundle)
	}
	for _, b := range bundles {
		if !bytes.Equal(b, ca) {
			return fmt.Errorf("caBundle is not the Secret's ca.crt")
		}
	}
	return nil
}

// serves checks that the webhook server presents the Secret's certificate,
// valid for 127.0.0.1 under the Secret's CA.
func serves(secret *corev1.Secret) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(secret.Data["ca.crt"])
	conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", hooks.Port), &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	if err != nil {
		return err
	}
	defer conn.Close()
	want, err := tls.X509KeyPair(secret.Data["tls.crt"], secret.Data["tls.key"])
	if err != nil {
		return err
	}
	if !bytes.Equal(conn.ConnectionState().PeerCertificates[0].Raw, want.Certificate[0]) {
		return fmt.Errorf("the server presents another certificate than the Secret's")
	}
	return nil
}
