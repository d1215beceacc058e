package webhook

import (
	"bytes"
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// TestCertificateRotatedByAnotherReplicaStaysTrusted: another replica
// rotates the Secret and injects its CA while this one injects the bundle
// it read before; this one's older bundle lands last, so it injects again,
// and the webhook configurations end trusting the Secret's CA, the one the
// rotating replica serves under.
func TestCertificateRotatedByAnotherReplicaStaysTrusted(t *testing.T) {
	ctx := context.Background()
	hosts := []string{"landlord-webhook.landlord-system.svc"}
	key := client.ObjectKey{Namespace: "landlord-system", Name: SecretName}
	now := time.Now()
	first, err := issue(now, 24*time.Hour, hosts, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithObjects(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}, Type: corev1.SecretTypeTLS, Data: first,
	}).Build()
	var trusted []byte
	rotated := false
	certs := &certs{
		reader: c, writer: c, key: key, hosts: hosts, validity: 24 * time.Hour, certDir: t.TempDir(),
		inject: func(ctx context.Context, caBundle []byte) error {
			if !rotated {
				rotated = true
				second, err := issue(now, 24*time.Hour, hosts, first[caKey])
				if err != nil {
					return err
				}
				secret := &corev1.Secret{}
				if err := c.Get(ctx, key, secret); err != nil {
					return err
				}
				secret.Data = second
				if err := c.Update(ctx, secret); err != nil {
					return err
				}
				trusted = second[caKey]
			}
			trusted = caBundle
			return nil
		},
	}
	if err := certs.sync(ctx); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{}
	if err := c.Get(ctx, key, secret); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(trusted, secret.Data[caKey]) {
		t.Error("the webhook configurations trust an older CA bundle than the Secret's: the rotating replica's certificate is refused")
	}
}
