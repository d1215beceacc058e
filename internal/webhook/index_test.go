package webhook_test

import (
	"context"
	"fmt"
	"strings"
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
	store, err := webhook.NewIndex(cctx, c, k8s)
	if err != nil {
		t.Fatal(err)
	}
	index := store.For(cctx).Resolver()
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
		if got := namesOf(index.ForUser(u)); got != "idx" {
			t.Errorf("ForUser(%s) = %q, want idx", name, got)
		}
	}
	for want, u := range users {
		if got := namesOf(index.ForUser(u)); got != want {
			t.Errorf("ForUser(%s) = %q, want %q", u.Username, got, want)
		}
	}
	if n := index.SelfServiceCount("idx"); n != 1 {
		t.Errorf("SelfServiceCount = %d, want 1", n)
	}
}

// TestIndexMissReadsLive: a namespace or tenant the cache does not hold
// (not synced yet, or just created) is read live, never taken for none.
func TestIndexMissReadsLive(t *testing.T) {
	c, err := cache.New(env.Config, cache.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	// Never started: every cache read misses.
	store, err := webhook.NewIndex(ctx, c, k8s)
	if err != nil {
		t.Fatal(err)
	}
	tenant := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "miss"},
		Spec:       v1alpha1.TenantSpec{SelfService: &v1alpha1.SelfService{Prefix: "miss-", MaxNamespaces: 1}},
	}
	if err := k8s.Create(ctx, tenant); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, tenant) })
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "miss-one", Labels: map[string]string{v1alpha1.TenantLabel: "miss"}}}
	if err := k8s.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, ns) })
	if got := nameOf(store.For(ctx).Resolver().ForNamespace("miss-one")); got != "miss" {
		t.Errorf("ForNamespace on a cache miss = %q, want miss, read live", got)
	}
}

func namesOf(tenants []*v1alpha1.Tenant) string {
	names := make([]string, len(tenants))
	for i, t := range tenants {
		names[i] = t.Name
	}
	return strings.Join(names, ",")
}

func nameOf(t *v1alpha1.Tenant) string {
	if t == nil {
		return ""
	}
	return t.Name
}
