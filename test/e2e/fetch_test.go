package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"helm.sh/helm/v3/pkg/repo"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/helmrepo"
	"github.com/landlord-dev/landlord/internal/manager"
)

// counter is a loopback HTTP server that answers 404 and counts the
// requests under each first path segment.
type counter struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func newCounter() *counter {
	c := &counter{hits: map[string]int{}}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		c.mu.Lock()
		c.hits[first]++
		c.mu.Unlock()
		http.NotFound(w, r)
	}))
	return c
}

func (c *counter) count(prefix string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits[prefix]
}

// TestFetch: source-controller downloads a chart from whatever URL an HTTP
// Helm index lists. An index on the allowed host lists its chart on a
// counting server: fetched for the platform (the hole is real), refused
// to a tenant confined by allowedSources (LL027), with submodules and
// ExternalArtifacts, so the counting server receives nothing from the
// tenant, while a chart the allowed host serves itself becomes Ready.
func TestFetch(t *testing.T) {
	t.Parallel()
	const tenant = "fetcher"
	foreign := newCounter()
	defer foreign.Close()

	// The allowed host: the example chart with relative URLs at its root,
	// and two indexes listing the same chart on the foreign server.
	dir := filepath.Join(t.TempDir(), "charts")
	charts, err := helmrepo.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	name, version, err := charts.AddExampleChart()
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"control", "attack"} {
		if err := foreignIndex(dir, sub, foreign.URL+"/"+sub); err != nil {
			t.Fatal(err)
		}
	}
	allowed, err := charts.Serve()
	if err != nil {
		t.Fatal(err)
	}
	defer charts.Close()

	// Control: the platform's own HelmChart from the same kind of index
	// reaches the foreign server.
	control := "fetch-control"
	if err := k8s.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: control}}); err != nil {
		t.Fatal(err)
	}
	for _, obj := range []client.Object{helmIndex(control, "foreign", allowed+"/control"), helmChart(control, "foreign", name, version)} {
		if err := k8s.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, k8s, "source-controller follows the index to the foreign server", func(context.Context) error {
		if foreign.count("control") == 0 {
			return errors.New("no request at " + foreign.URL + "/control yet")
		}
		return nil
	})

	fetcher := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: tenant},
		Spec: v1alpha1.TenantSpec{
			Namespaces:     []v1alpha1.TenantNamespace{{Name: tenant}},
			AllowedSources: []string{allowed, allowed + "/*"},
		},
	}
	if err := k8s.Create(t.Context(), fetcher); err != nil {
		t.Fatal(err)
	}
	eventually(t, k8s, "tenant "+tenant+" Ready", tenantReady(k8s, tenant))
	reconciler, err := client.New(env.ConfigFor("system:serviceaccount:"+tenant+":"+tenant), client.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}

	// The neighbour: an HTTP index the platform wrote in the tenant's
	// namespace, and the tenant's chart from it, served by the allowed host.
	platformIndex := helmIndex(tenant, "charts", allowed)
	if err := k8s.Create(t.Context(), platformIndex); err != nil {
		t.Fatal(err)
	}
	chart := helmChart(tenant, "charts", name, version)
	if err := reconciler.Create(t.Context(), chart); err != nil {
		t.Fatalf("tenant's HelmChart from the platform's index: %v", err)
	}

	submodules := &sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "app"},
		Spec: sourcev1.GitRepositorySpec{URL: allowed + "/app.git", Interval: metav1.Duration{Duration: 10 * time.Second}, RecurseSubmodules: true}}
	artifact := &sourcev1.ExternalArtifact{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "generated"}}
	for what, write := range map[string]func(context.Context) error{
		"an HTTP index on the allowed host": func(ctx context.Context) error {
			return reconciler.Create(ctx, helmIndex(tenant, "attack", allowed+"/attack"))
		},
		"the platform's index repointed": func(ctx context.Context) error {
			repointed := platformIndex.DeepCopy()
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(repointed), repointed); err != nil {
				return err
			}
			repointed.Spec.URL = allowed + "/attack"
			return reconciler.Update(ctx, repointed)
		},
		"submodules":       func(ctx context.Context) error { return reconciler.Create(ctx, submodules) },
		"ExternalArtifact": func(ctx context.Context) error { return reconciler.Create(ctx, artifact) },
	} {
		err := write(t.Context())
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "LL027:") {
			t.Errorf("%s: got %v, want a denial by LL027", what, err)
		}
	}

	eventually(t, k8s, "the tenant's chart from the allowed host Ready", fluxReady(k8s, chart))
	// Flux has reconciled the tenant's sources since: give the refused
	// paths a retry interval of source-controller too.
	time.Sleep(15 * time.Second)
	if n := foreign.count("attack"); n != 0 {
		t.Errorf("the foreign server received %d requests from tenant %s's sources, want 0", n, tenant)
	}
	t.Logf("foreign server: %d requests from the platform's index, %d from the tenant's", foreign.count("control"), foreign.count("attack"))
}

// foreignIndex writes sub/index.yaml in the repository in dir: its index,
// with every chart URL on base instead.
func foreignIndex(dir, sub, base string) error {
	index, err := repo.LoadIndexFile(filepath.Join(dir, "index.yaml"))
	if err != nil {
		return err
	}
	for _, versions := range index.Entries {
		for _, v := range versions {
			for i, u := range v.URLs {
				v.URLs[i] = base + "/" + filepath.Base(u)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
		return err
	}
	if err := index.WriteFile(filepath.Join(dir, sub, "index.yaml"), 0o644); err != nil {
		return fmt.Errorf("write %s index: %w", sub, err)
	}
	return nil
}

func helmIndex(namespace, name, url string) *sourcev1.HelmRepository {
	return &sourcev1.HelmRepository{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: sourcev1.HelmRepositorySpec{URL: url, Interval: metav1.Duration{Duration: 10 * time.Second}}}
}

func helmChart(namespace, repository, chart, version string) *sourcev1.HelmChart {
	return &sourcev1.HelmChart{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: chart},
		Spec: sourcev1.HelmChartSpec{Chart: chart, Version: version, Interval: metav1.Duration{Duration: 10 * time.Second},
			SourceRef: sourcev1.LocalHelmChartSourceReference{Kind: sourcev1.HelmRepositoryKind, Name: repository}}}
}
