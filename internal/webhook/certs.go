package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// SecretName holds the serving certificate, shared by every replica.
const SecretName = "landlord-webhook-tls"

// +kubebuilder:rbac:groups="",namespace=landlord-system,resources=secrets,verbs=get;create;update

// certs keeps the serving certificate in the Secret, in CertDir and in the
// webhook configurations' caBundle.
type certs struct {
	reader   client.Reader // uncached: one Secret read per check
	writer   client.Client
	key      client.ObjectKey
	hosts    []string
	validity time.Duration
	interval time.Duration
	certDir  string
	// inject puts the CA bundle into the webhook configurations.
	inject func(ctx context.Context, caBundle []byte) error
}

// Start checks the certificate every interval until ctx ends. The first
// check is an interval away: SetupWithManager made one already, so that
// the server found the certificate as it started.
func (c *certs) Start(ctx context.Context) error {
	ticker := time.NewTicker(c.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
			if err := c.sync(ctx); err != nil {
				ctrl.LoggerFrom(ctx).Error(err, "syncing the webhook serving certificate")
			}
		}
	}
}

// NeedLeaderElection is false: every replica serves, so every replica
// needs the files.
func (c *certs) NeedLeaderElection() bool { return false }

// sync makes the Secret hold a valid certificate, issuing one when it does
// not, then injects its CA and writes it for the webhook server. Replicas
// racing to issue meet on the Secret's resourceVersion: the loser rereads.
// A replica that rotated while this one injected may have been overwritten
// by this one's older bundle, so the injection is repeated until the Secret
// held still across it, a few times: replicas that disagree on the hosts
// would rotate forever.
func (c *certs) sync(ctx context.Context) error {
	for range 5 {
		b, version, err := c.ensureWithRetries(ctx)
		if err != nil {
			return err
		}
		// The apiserver trusts the new CA before any replica serves its certificate.
		if err := c.inject(ctx, b[caKey]); err != nil {
			return err
		}
		secret := &corev1.Secret{}
		if err := c.reader.Get(ctx, c.key, secret); err != nil {
			return fmt.Errorf("rereading secret %s: %w", c.key, err)
		}
		if secret.ResourceVersion == version {
			return c.write(b)
		}
	}
	return fmt.Errorf("secret %s changed during each of 5 injections of its CA", c.key)
}

// ensureWithRetries is ensure, retried while other replicas write the
// Secret at the same time.
func (c *certs) ensureWithRetries(ctx context.Context) (bundle, string, error) {
	var b bundle
	var version string
	err := wait.ExponentialBackoffWithContext(ctx, wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Steps: 5}, func(ctx context.Context) (bool, error) {
		var err error
		b, version, err = c.ensure(ctx)
		if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		return nil, "", fmt.Errorf("ensuring secret %s: %w", c.key, err)
	}
	return b, version, nil
}

// ensure returns the Secret's bundle and resourceVersion, replacing the
// bundle first when it no longer serves.
func (c *certs) ensure(ctx context.Context) (bundle, string, error) {
	secret := &corev1.Secret{}
	err := c.reader.Get(ctx, c.key, secret)
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, "", err
	}
	now := time.Now()
	current := bundle(secret.Data)
	why := current.check(now, c.hosts)
	if why == nil {
		return current, secret.ResourceVersion, nil
	}
	fresh, err := issue(now, c.validity, c.hosts, current[caKey])
	if err != nil {
		return nil, "", err
	}
	ctrl.LoggerFrom(ctx).Info("issuing the webhook serving certificate", "reason", why.Error())
	if secret.ResourceVersion == "" {
		secret = &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: c.key.Name, Namespace: c.key.Namespace},
			Type:       corev1.SecretTypeTLS,
			Data:       fresh,
		}
		err = c.writer.Create(ctx, secret)
	} else {
		secret.Type = corev1.SecretTypeTLS
		secret.Data = fresh
		err = c.writer.Update(ctx, secret)
	}
	return fresh, secret.ResourceVersion, err
}

// write puts the serving pair into certDir when it changed, key first, each
// file renamed into place so that the certificate watcher never reads half
// a file.
func (c *certs) write(b bundle) error {
	changed := false
	for _, k := range []string{keyKey, certKey} {
		onDisk, _ := os.ReadFile(filepath.Join(c.certDir, k))
		changed = changed || !bytes.Equal(onDisk, b[k])
	}
	if !changed {
		return nil
	}
	if err := os.MkdirAll(c.certDir, 0o700); err != nil {
		return fmt.Errorf("creating the certificate directory: %w", err)
	}
	for _, k := range []string{keyKey, certKey} {
		path := filepath.Join(c.certDir, k)
		if err := os.WriteFile(path+".tmp", b[k], 0o600); err != nil {
			return fmt.Errorf("writing %s: %w", k, err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			return errors.Join(fmt.Errorf("replacing %s: %w", k, err), os.Remove(path+".tmp"))
		}
	}
	return nil
}
