package webhook_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/testenv"
	"github.com/landlord-dev/landlord/internal/webhook"
)

// TestIndex answers from an informer cache of the real apiserver: assigned
// and self-service namespaces, reconcilers and owners.
func TestIndex(t *testing.T) {
	c, err := cache.New(env.Config, cache.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	index, err := webhook.NewIndex(cctx, c)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.Start(cctx) }()
	defer cancel()

	tenant := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "idx"},
		Spec: v1alpha1.TenantSpec{
			Namespaces:  []v1alpha1.TenantNamespace{{Name: "idx-home"}},
			SelfService: &v1alpha1.SelfService{Prefix: "idx-", MaxNamespaces: 2},
			Owners: []v1alpha1.Owner{
				{Kind: "User", Name: "alice"}, {Kind: "Group", Name: "idx-admins"},
				{Kind: "ServiceAccount", Namespace: "ci", Name: "deployer"},
			},
		},
	}
	if err := k8s.Create(ctx, tenant); err != nil {
		t.Fatal(err)
	}
	own := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "idx-own", Labels: map[string]string{v1alpha1.TenantLabel: "idx"}}}
	stray := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "stray-ns", Labels: map[string]string{v1alpha1.TenantLabel: "idx"}}}
	for _, ns := range []*corev1.Namespace{own, stray} {
		if err := k8s.Create(ctx, ns); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, tenant) })

	start := time.Now()
	testenv.Eventually(t, 10*time.Second, func() error {
		if index.ForNamespace("idx-own") == nil {
			return fmt.Errorf("the self-service namespace is not indexed yet")
		}
		return nil
	})
	t.Logf("indexed in %s", time.Since(start).Round(time.Millisecond))

	namespaces := map[string]string{"idx-home": "idx", "idx-own": "idx", "stray-ns": "", "kube-system": "", "": ""}
	for ns, want := range namespaces {
		if got := nameOf(index.ForNamespace(ns)); got != want {
			t.Errorf("ForNamespace(%q) = %q, want %q", ns, got, want)
		}
	}
	users := map[string]authenticationv1.UserInfo{
		"idx": {Username: "system:serviceaccount:idx-home:idx"},
		"":    {Username: "system:serviceaccount:kube-system:idx"},
	}
	for name, u := range map[string]authenticationv1.UserInfo{
		"reconciler in the self-service namespace": {Username: "system:serviceaccount:idx-own:idx"},
		"owner user":            {Username: "alice"},
		"owner group":           {Username: "bob", Groups: []string{"system:authenticated", "idx-admins"}},
		"owner service account": {Username: "system:serviceaccount:ci:deployer"},
	} {
		if got := nameOf(index.ForUser(u)); got != "idx" {
			t.Errorf("ForUser(%s) = %q, want idx", name, got)
		}
	}
	for want, u := range users {
		if got := nameOf(index.ForUser(u)); got != want {
			t.Errorf("ForUser(%s) = %q, want %q", u.Username, got, want)
		}
	}
	if n := index.SelfServiceCount("idx"); n != 1 {
		t.Errorf("SelfServiceCount = %d, want 1", n)
	}
}

func nameOf(t *v1alpha1.Tenant) string {
	if t == nil {
		return ""
	}
	return t.Name
}
