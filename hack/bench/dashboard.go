package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chromedp/chromedp"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/dashboard"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
)

const (
	// pageRequests is how many times each page is asked, one after another,
	// after the first.
	pageRequests = 50
	// ownedEvery: the bench's owner owns one tenant in ownedEvery.
	ownedEvery = 100
	// viewers holds the identities that log in to the dashboard.
	viewers = "bench-dashboard"
)

func init() { parts["dash"] = measureDashboard }

// dashPage is one page of the index, asked by one viewer.
type dashPage struct {
	viewer, path string
}

var dashPages = []dashPage{
	{"admin", "/"},
	{"admin", "/?status=notready&sort=age&order=desc"},
	{"admin", "/?q=dash-09&page=2"},
	{"admin", "/?label=team%3Dblue&sort=ready&page=3"},
	{"owner", "/"},
	{"owner", "/?status=notready&sort=age"},
}

// measureDashboard provisions the run's tenants with landlord-controller,
// then serves the dashboard's index in this process, wired as the
// controller wires it (Tenants from an informer cache, TokenReview and
// SubjectAccessReview for viewers), to a platform admin and to the owner
// of one tenant in ownedEvery. Each page is asked once with every cache of
// the dashboard cold, then pageRequests times: its latency, and the API
// requests each costs, counted on the dashboard's client.
func measureDashboard(ctx context.Context, e *env) ([]row, error) {
	// A control plane of its own: the index shows the run's tenants alone.
	if err := e.close(); err != nil {
		return nil, err
	}
	p, err := e.controlPlane(ctx, false)
	if err != nil {
		return nil, err
	}
	if _, err := e.landlord(ctx); err != nil {
		return nil, err
	}
	admin, err := adminClient(p)
	if err != nil {
		return nil, err
	}
	tokens, err := dashboardLogins(ctx, p, admin)
	if err != nil {
		return nil, err
	}
	tenants := dashboardTenants(e.tenants)
	log.Printf("dash: provisioning %d tenants, the owner's %d", len(tenants), (len(tenants)+ownedEvery-1)/ownedEvery)
	if _, _, err := provision(ctx, admin, tenants); err != nil {
		return nil, err
	}

	// The informer's one list and watch serve every page of the process's
	// life: not counted. Every other request of the dashboard's is.
	tenantCache, err := cache.New(unthrottled(p.Config), cache.Options{Scheme: manager.Scheme(), DefaultTransform: cache.TransformStripManagedFields()})
	if err != nil {
		return nil, err
	}
	if _, err := tenantCache.GetInformer(ctx, &v1alpha1.Tenant{}); err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = tenantCache.Start(ctx) }()
	if !tenantCache.WaitForCacheSync(ctx) {
		return nil, errors.New("dash: the Tenant cache never synced")
	}
	var requests atomic.Int64
	cfg := unthrottled(p.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			requests.Add(1)
			return rt.RoundTrip(r)
		})
	})
	c, err := client.New(cfg, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		return nil, err
	}

	// The client discovers each API group on first use: once, not per page.
	base, err := serveDashboard(ctx, c, tenantCache)
	if err != nil {
		return nil, err
	}
	for _, viewer := range []string{"admin", "owner"} {
		if _, err := getPage(ctx, base+"/", tokens[viewer]); err != nil {
			return nil, fmt.Errorf("%s warming the client: %w", viewer, err)
		}
	}
	var rows []row
	for _, page := range dashPages {
		log.Printf("dash: %s asks %s %d times", page.viewer, page.path, pageRequests+1)
		// A server of its own: the first request finds every cache cold.
		fresh, err := serveDashboard(ctx, c, tenantCache)
		if err != nil {
			return nil, err
		}
		var l load
		var first, warm int64
		shown := ""
		for i := range pageRequests + 1 {
			before := requests.Load()
			start := time.Now()
			body, err := getPage(ctx, fresh+page.path, tokens[page.viewer])
			took := time.Since(start)
			if err != nil {
				return nil, fmt.Errorf("%s asking %s: %w", page.viewer, page.path, err)
			}
			if i == 0 {
				first, shown = requests.Load()-before, body
				continue
			}
			warm += requests.Load() - before
			l.latencies = append(l.latencies, took)
		}
		p95 := l.quantile(0.95)
		r := row{part: "dash", figure: fmt.Sprintf("index as %s, %s: p95", page.viewer, page.path), value: p95, unit: "ms",
			target: "≤ 300 ms", met: p95 <= 300,
			note: fmt.Sprintf("p50 %.1f ms; %.1f API requests a page (%d cold); %s", l.quantile(0.5), float64(warm)/pageRequests, first, shown)}
		if e.tenants != 1000 {
			r.target = "" // the issue sets the target at 1,000 tenants
		}
		rows = append(rows, r)
	}
	if e.screenshots != "" {
		if err := screenshots(ctx, e.screenshots, base, tokens); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// dashboardTenants are n bench tenants: two in three without a source, so
// Ready, the third waiting for Flux, so not, among the owner's too;
// labelled by one of four teams; one in ownedEvery owned by the bench's
// owner besides its group.
func dashboardTenants(n int) []*v1alpha1.Tenant {
	tenants := benchTenants("dash", n)
	for i, t := range tenants {
		t.Labels = map[string]string{"team": []string{"red", "blue", "green", "gold"}[i%4]}
		if i%3 != 0 {
			t.Spec.Sources = nil
		}
		if i%ownedEvery == 0 {
			t.Spec.Owners = append(t.Spec.Owners, v1alpha1.Owner{Kind: rbacv1.ServiceAccountKind, Namespace: viewers, Name: "owner"})
		}
	}
	return tenants
}

// dashboardLogins makes the admin, bound to cluster-admin, and the owner,
// and returns a token of each by name.
func dashboardLogins(ctx context.Context, p *localcluster.Env, admin client.Client) (map[string]string, error) {
	kube, err := kubernetes.NewForConfig(p.Config)
	if err != nil {
		return nil, err
	}
	if err := admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: viewers}}); err != nil {
		return nil, err
	}
	if err := admin.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "bench-dashboard-admin"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: viewers, Name: "admin"}},
	}); err != nil {
		return nil, err
	}
	tokens := map[string]string{}
	for _, name := range []string{"admin", "owner"} {
		if err := admin.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: viewers, Name: name}}); err != nil {
			return nil, err
		}
		tr, err := kube.CoreV1().ServiceAccounts(viewers).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		if err != nil {
			return nil, err
		}
		tokens[name] = tr.Status.Token
	}
	return tokens, nil
}

// serveDashboard serves a new dashboard on loopback until ctx ends and
// returns its URL.
func serveDashboard(ctx context.Context, c client.Client, tenants client.Reader) (string, error) {
	srv, err := dashboard.New(dashboard.Options{Client: c, Tenants: tenants, Auth: &dashboard.TokenReviewer{Client: c}})
	if err != nil {
		return "", err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	go func() {
		if err := srv.Serve(ctx, l); err != nil {
			log.Printf("dash: serving: %v", err)
		}
	}()
	return "http://" + l.Addr().String(), nil
}

// getPage asks for url with a bearer token and says what the page shows.
func getPage(ctx context.Context, url, token string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %.300s", resp.Status, body)
	}
	return shows(string(body)), nil
}

// counted reads the index's summary of the viewer's tenants.
var counted = regexp.MustCompile(`id="summary"[^>]* data-tenants="(\d+)"`)

// shows says how many rows a page of the index lists, of how many tenants
// the viewer may see.
func shows(body string) string {
	of := "no"
	if m := counted.FindStringSubmatch(body); m != nil {
		of = m[1]
	}
	return fmt.Sprintf("%d rows of %s tenants seen", strings.Count(body, "<tr data-tenant="), of)
}

// screenshots logs in as each viewer in headless Chromium and takes the
// index with a filter applied, into dir.
func screenshots(ctx context.Context, dir, base string, tokens map[string]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, path := range map[string]string{
		"admin": "/?status=notready&label=team%3Dblue&sort=age",
		"owner": "/?status=notready",
	} {
		alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
			chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.WindowSize(1400, 1000))
		bctx, cancel := chromedp.NewContext(alloc)
		err := chromedp.Do(bctx, chromedp.Navigate(base+"/login"), chromedp.SendKeys(chromedp.ID("token"), tokens[name]),
			chromedp.Submit(chromedp.ID("token")), chromedp.WaitVisible(chromedp.ID("viewer")),
			chromedp.Navigate(base+path), chromedp.WaitVisible(chromedp.ID("summary")))
		var png []byte
		if err == nil {
			png, err = chromedp.Run(bctx, chromedp.FullScreenshot(100))
		}
		cancel()
		cancelAlloc()
		if err != nil {
			return fmt.Errorf("screenshot of %s as %s: %w", path, name, err)
		}
		file := filepath.Join(dir, "index-"+name+".png")
		if err := os.WriteFile(file, png, 0o644); err != nil {
			return err
		}
		log.Printf("dash: screenshot %s", file)
	}
	return nil
}
