package dashboard_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/testenv"
)

var (
	env *localcluster.Env
	k8s client.Client
	// bin is landlord-controller, built from source.
	bin string
)

func TestMain(m *testing.M) {
	os.Exit(testenv.RunMainWithController(m, localcluster.Options{}, func(e *localcluster.Env, b string) (err error) {
		env, bin = e, b
		k8s, err = client.New(env.Config, client.Options{Scheme: manager.Scheme()})
		return err
	}))
}

// startDashboard runs landlord-controller with its webhooks and its
// dashboard, granted config/dashboard's RBAC, and returns the dashboard's
// URL.
func startDashboard(t *testing.T) string {
	t.Helper()
	ports, err := localcluster.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", ports[0])
	controller, err := env.StartController(t.Context(), localcluster.ControllerOptions{Bin: bin, Args: []string{"--dashboard-bind-address=" + addr}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = controller.Stop() })
	rbac, err := config.Dashboard()
	if err != nil {
		t.Fatal(err)
	}
	objects := make([]client.Object, 0, len(rbac))
	for _, obj := range rbac {
		objects = append(objects, obj)
	}
	if _, err := install.Apply(t.Context(), k8s, io.Discard, objects...); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr
}

// chromium finds the browser: the test skips without one on a developer's
// machine, and fails without one in CI, which must install it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium on PATH; CI must install it (.ci/run does: apt-get install -y chromium)")
	}
	t.Skip("no chromium on PATH: install Debian's chromium (apt-get install -y chromium) to run the dashboard in a real browser")
	return ""
}

// outDir is where screenshots go: $LANDLORD_TEST_OUTPUT, else the
// git-ignored testdata/out of the package.
func outDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("LANDLORD_TEST_OUTPUT")
	if dir == "" {
		dir = filepath.Join("testdata", "out")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// browser is one headless Chromium with its own profile, recording the
// body of every response a page loads.
type browser struct {
	ctx context.Context
	mu  sync.Mutex
	// bodies are the responses received, by URL and request.
	bodies  []response
	pending sync.WaitGroup
}

type response struct {
	url, body string
}

func newBrowser(t *testing.T, path string) *browser {
	t.Helper()
	alloc, cancelAlloc := chromedp.NewExecAllocator(t.Context(),
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1400, 1000),
	)
	ctx, cancel := chromedp.NewContext(alloc)
	b := &browser{ctx: ctx}
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	// The listener must return at once: bodies are asked for by another
	// goroutine, in the order their loading finished.
	type loaded struct {
		url string
		id  network.RequestID
	}
	finished := make(chan loaded, 4096)
	urls := map[network.RequestID]string{}
	err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *network.EventResponseReceived:
			urls[e.RequestID] = e.Response.URL
		case *network.EventLoadingFinished:
			if url, ok := urls[e.RequestID]; ok {
				b.pending.Add(1)
				finished <- loaded{url: url, id: e.RequestID}
			}
		}
	})
	if err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	go func() {
		for {
			var l loaded
			select {
			case l = <-finished:
			case <-ctx.Done():
				return
			}
			res, err := chromedp.Call(ctx, network.GetResponseBody, network.GetResponseBodyParams{RequestID: l.id})
			r := response{url: l.url, body: string(res.Body)}
			if err != nil {
				r.body = "unreadable: " + err.Error()
			}
			b.mu.Lock()
			b.bodies = append(b.bodies, r)
			b.mu.Unlock()
			b.pending.Done()
		}
	}()
	return b
}

func (b *browser) run(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 90*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// rows reads the tenants table.
func (b *browser) rows(t *testing.T) []row {
	t.Helper()
	rows, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]row](rowsJS))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// responses waits for the bodies asked for and returns them.
func (b *browser) responses() []response {
	b.pending.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]response(nil), b.bodies...)
}

// login fills the login form with a bearer token, as a person would.
func (b *browser) login(t *testing.T, token string) {
	t.Helper()
	b.run(t,
		chromedp.Navigate(dashboardURL+"/login"),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), token),
		chromedp.Submit(chromedp.ID("token")),
		chromedp.WaitVisible(chromedp.ID("viewer")),
	)
}

func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(outDir(t), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// dashboardURL is the dashboard the test started.
var dashboardURL string

// row is a tenant's line as the page shows it.
type row struct {
	Tenant  string `json:"tenant"`
	Ready   string `json:"ready"`
	State   string `json:"state"`
	Denials string `json:"denials"`
}

const rowsJS = `[...document.querySelectorAll('#tenants tbody tr')].map(r => ({
	tenant: r.dataset.tenant, ready: r.dataset.ready,
	state: r.querySelector('.state').textContent.trim(),
	denials: r.querySelector('.denials').textContent.trim()}))`

// bar is a quota bar as the page shows it.
type bar struct {
	Resource string `json:"resource"`
	Value    string `json:"value"`
	Max      string `json:"max"`
	Text     string `json:"text"`
}

const barsJS = `[...document.querySelectorAll('[data-namespace="alpha-apps"] [data-quota="landlord-quota"] tr[data-resource]')].map(r => ({
	resource: r.dataset.resource, value: r.querySelector('meter').getAttribute('value'),
	max: r.querySelector('meter').getAttribute('max'), text: r.querySelector('.amount').textContent.trim()}))`

// TestDashboardInChromium drives landlord-controller's dashboard in a real
// headless Chromium: the platform admin sees every tenant with its state,
// searches, filters and sorts them; tenant alpha's owner sees alpha alone, in the page and in every response
// it loads, its denial appearing live and its quota bars as the
// ResourceQuota reports.
func TestDashboardInChromium(t *testing.T) {
	path := chromium(t)
	ctx := t.Context()
	dashboardURL = startDashboard(t)
	admin := kubernetes.NewForConfigOrDie(env.Config)

	// Identities with tokens a person would paste: an admin bound to
	// cluster-admin, and one owner per tenant.
	const logins = "dashboard-logins"
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: logins}}); err != nil {
		t.Fatal(err)
	}
	token := func(name string) string {
		if err := k8s.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: logins, Name: name}}); err != nil {
			t.Fatal(err)
		}
		tr, err := admin.CoreV1().ServiceAccounts(logins).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tr.Status.Token
	}
	adminToken, alphaToken, bravoToken := token("platform-admin"), token("alpha-lead"), token("bravo-lead")
	if err := k8s.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "dashboard-platform-admin"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: logins, Name: "platform-admin"}},
	}); err != nil {
		t.Fatal(err)
	}

	// alpha syncs a source no Flux fetches here, so it is not Ready; bravo
	// has none, so it is.
	quota := &v1alpha1.Quota{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("10"), "count/configmaps": resource.MustParse("8"), corev1.ResourceRequestsCPU: resource.MustParse("2")}}
	for _, t0 := range []*v1alpha1.Tenant{
		{ObjectMeta: metav1.ObjectMeta{Name: "alpha", Labels: map[string]string{"team": "payments"}}, Spec: v1alpha1.TenantSpec{
			Namespaces: []v1alpha1.TenantNamespace{{Name: "alpha-apps"}},
			Owners:     []v1alpha1.Owner{{Kind: rbacv1.ServiceAccountKind, Namespace: logins, Name: "alpha-lead"}},
			Sources:    []v1alpha1.Source{{Name: "alpha", Git: &v1alpha1.GitSource{URL: "https://git.example.com/alpha", Ref: &v1alpha1.GitRef{Branch: "main"}}, Path: "./staging"}},
			Quota:      quota,
		}},
		{ObjectMeta: metav1.ObjectMeta{Name: "bravo"}, Spec: v1alpha1.TenantSpec{
			Namespaces: []v1alpha1.TenantNamespace{{Name: "bravo-apps"}},
			Owners:     []v1alpha1.Owner{{Kind: rbacv1.ServiceAccountKind, Namespace: logins, Name: "bravo-lead"}},
			Quota:      quota,
		}},
	} {
		if err := k8s.Create(ctx, t0); err != nil {
			t.Fatal(err)
		}
	}
	ready := func(name string) string {
		tenant := &v1alpha1.Tenant{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: name}, tenant); err != nil {
			t.Fatal(err)
		}
		if c := apimeta.FindStatusCondition(tenant.Status.Conditions, v1alpha1.ReadyCondition); c != nil && c.ObservedGeneration == tenant.Generation {
			return string(c.Status)
		}
		return ""
	}
	testenv.Eventually(t, time.Minute, func() error {
		for _, name := range []string{"alpha", "bravo"} {
			if ready(name) == "" {
				return fmt.Errorf("tenant %s has no Ready condition for its generation", name)
			}
		}
		return k8s.Get(ctx, client.ObjectKey{Namespace: "alpha-apps", Name: "landlord-quota"}, &corev1.ResourceQuota{})
	})
	states := map[string]string{"alpha": ready("alpha"), "bravo": ready("bravo")}
	if states["alpha"] == states["bravo"] {
		t.Fatalf("want tenants in two states, both are Ready=%s", states["alpha"])
	}

	// The platform admin sees both, each with the state its Tenant reports.
	adminView := newBrowser(t, path)
	adminView.login(t, adminToken)
	adminView.run(t, chromedp.WaitVisible(chromedp.CSS(`tr[data-tenant="bravo"]`)))
	rows := adminView.rows(t)
	if len(rows) != 2 {
		t.Fatalf("admin sees %d tenants, want alpha and bravo: %+v", len(rows), rows)
	}
	words := map[string]string{"True": "Ready", "False": "Not ready", "Unknown": "Unknown"}
	for _, r := range rows {
		if r.Ready != states[r.Tenant] || r.State != words[states[r.Tenant]] {
			t.Errorf("admin's row of %s shows Ready=%s %q, its Tenant says %s", r.Tenant, r.Ready, r.State, states[r.Tenant])
		}
	}
	adminView.screenshot(t, "tenants-admin.png")

	// Search, filter and sort, as a person would, through the form and the
	// column headers; each answer is the page the URL asks for.
	notReady, isReady := "alpha", "bravo"
	if states["alpha"] == "True" {
		notReady, isReady = isReady, notReady
	}
	param := map[string]string{"True": "ready", "False": "notready", "Unknown": "unknown"}
	adminView.run(t, chromedp.SendKeys(chromedp.ID("q"), "LPH"), chromedp.Submit(chromedp.ID("q")))
	adminView.waitNames(t, map[string]string{"q": "LPH"}, "alpha")
	adminView.form(t, map[string]string{"q": "", "status": param[states[isReady]]}, "apply")
	adminView.waitNames(t, map[string]string{"q": "", "status": param[states[isReady]]}, isReady)
	if sum, err := chromedp.Run(adminView.ctx, chromedp.Evaluate[map[string]string](`({...document.getElementById('summary').dataset})`)); err != nil ||
		sum["tenants"] != "2" || sum["ready"] != "1" || sum["notready"] != "1" {
		t.Errorf("the filtered page's summary: %v, %v; want both tenants counted, one ready", sum, err)
	}
	adminView.form(t, map[string]string{"status": ""}, "apply")
	adminView.waitNames(t, map[string]string{"status": ""}, "alpha", "bravo")
	adminView.form(t, nil, "sort-ready")
	adminView.waitNames(t, map[string]string{"sort": "ready", "order": ""}, notReady, isReady)
	adminView.form(t, nil, "sort-ready")
	adminView.waitNames(t, map[string]string{"sort": "ready", "order": "desc"}, isReady, notReady)
	adminView.form(t, nil, "sort-name")
	adminView.waitNames(t, map[string]string{"sort": "", "order": ""}, "alpha", "bravo")
	adminView.form(t, nil, "sort-name")
	adminView.waitNames(t, map[string]string{"sort": "", "order": "desc"}, "bravo", "alpha")
	// The sort stays when a filter is applied.
	adminView.form(t, map[string]string{"label": "team=payments"}, "apply")
	adminView.waitNames(t, map[string]string{"label": "team=payments", "order": "desc"}, "alpha")
	adminView.screenshot(t, "tenants-filtered-admin.png")
	if status, body := get(t, adminToken, "/?status=broken"); status != http.StatusBadRequest || !strings.Contains(body, "parameter status=") {
		t.Errorf("a status the page does not know: %d\n%.400s", status, body)
	}

	// alpha's owner writes within its quota, then something the guard refuses.
	owner := ownerClient(t, alphaToken)
	for i := range 3 {
		if err := owner.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "alpha-apps", Name: fmt.Sprintf("app-%d", i)}}); err != nil {
			t.Fatalf("owner creating a configmap: %v", err)
		}
	}
	ownerView := newBrowser(t, path)
	ownerView.login(t, alphaToken)
	ownerView.run(t, chromedp.WaitVisible(chromedp.CSS(`tr[data-tenant="alpha"]`)))
	rows = ownerView.rows(t)
	if len(rows) != 1 || rows[0].Tenant != "alpha" {
		t.Fatalf("alpha's owner sees %+v, want alpha alone", rows)
	}
	ownerView.run(t, chromedp.Click(chromedp.CSS(`tr[data-tenant="alpha"] a`)), chromedp.WaitVisible(chromedp.CSS(`#tenant[data-tenant="alpha"]`)))

	// A token of alpha's reconciler: LL012, a rule of the webhook's, which
	// records its denials.
	escape := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "alpha-apps", Name: "escape", Annotations: map[string]string{corev1.ServiceAccountNameKey: "alpha"}},
		Type: corev1.SecretTypeServiceAccountToken}
	err := owner.Create(ctx, escape)
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "LL012") {
		t.Fatalf("owner creating a token of the reconciler: err = %v, want the guard's LL012", err)
	}
	// The pages show it without a reload: their polls bring it.
	ownerView.run(t, chromedp.WaitVisible(chromedp.CSS(`#denials tr[data-rule="LL012"]`)))
	// The row names the object refused and who wrote it.
	if row, err := chromedp.Run(ownerView.ctx, chromedp.TextContent(chromedp.CSS(`#denials tr[data-rule="LL012"]`))); err != nil ||
		!strings.Contains(row, "Secret alpha-apps/escape") || !strings.Contains(row, " was denied: ") {
		t.Errorf("alpha's denial row: %q, %v; want the Secret and its writer", row, err)
	}
	poll, cancel := context.WithTimeout(adminView.ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(poll, chromedp.Poll[bool](`document.querySelector('tr[data-tenant="alpha"] .denials').textContent.trim() === "1"`)); err != nil {
		t.Errorf("the admin's tenants page never counted alpha's denial: %v", err)
	}
	adminView.run(t, chromedp.Navigate(dashboardURL+"/?denials=1"))
	adminView.waitNames(t, map[string]string{"denials": "1"}, "alpha")
	if note, err := chromedp.Run(ownerView.ctx, chromedp.TextContent(chromedp.ID("audit"))); err != nil || !strings.Contains(note, "shown to those who may list every tenant") {
		t.Errorf("alpha's owner's audit section: %q, %v; want it kept for platform admins", note, err)
	}

	// Each bar is the ResourceQuota's status, as the page last polled it.
	testenv.Eventually(t, 30*time.Second, func() error {
		rq := &corev1.ResourceQuota{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: "alpha-apps", Name: "landlord-quota"}, rq); err != nil {
			return err
		}
		if used := rq.Status.Used["count/configmaps"]; used.Value() < 3 {
			return fmt.Errorf("quota counts %s configmaps, want the owner's 3 at least", used.String())
		}
		bars, err := chromedp.Run(ownerView.ctx, chromedp.Evaluate[[]bar](barsJS))
		if err != nil {
			return err
		}
		if len(bars) != len(rq.Status.Hard) {
			return fmt.Errorf("page shows %d bars, the quota holds %d resources", len(bars), len(rq.Status.Hard))
		}
		for _, bar := range bars {
			hard, used := rq.Status.Hard[corev1.ResourceName(bar.Resource)], rq.Status.Used[corev1.ResourceName(bar.Resource)]
			want := fmt.Sprintf("%d/%d %s / %s", used.MilliValue(), hard.MilliValue(), used.String(), hard.String())
			if got := bar.Value + "/" + bar.Max + " " + bar.Text; got != want {
				return fmt.Errorf("bar %s shows %s, the ResourceQuota says %s", bar.Resource, got, want)
			}
		}
		return nil
	})
	ownerView.screenshot(t, "tenant-owner.png")

	// Nothing the owner's pages loaded, the polls included, names bravo.
	ownerView.run(t, chromedp.Navigate(dashboardURL+"/"), chromedp.WaitVisible(chromedp.CSS(`tr[data-tenant="alpha"]`)), chromedp.Sleep(6*time.Second))
	got := ownerView.responses()
	polls := 0
	for _, r := range got {
		if strings.Contains(r.url, "part=main") {
			polls++
		}
		if strings.Contains(r.body, "bravo") {
			t.Errorf("a response to alpha's owner names bravo: %s\n%.400s", r.url, r.body)
		}
	}
	if polls < 2 {
		t.Errorf("the owner's pages polled %d times, want live updates on both", polls)
	}
	t.Logf("alpha's owner loaded %d responses (%d polls)", len(got), polls)

	// The owner's summary counts alpha alone, and a filter alpha does not
	// pass leaves nothing: bravo is not among what is filtered.
	ownerView.run(t, chromedp.Navigate(dashboardURL+"/?status="+param[states[isReady]]), chromedp.WaitVisible(chromedp.CSS(`#summary[data-tenants="1"]`)))
	ownerView.waitNames(t, map[string]string{"status": param[states[isReady]]})
	if _, body := get(t, alphaToken, "/?status="+param[states[isReady]]); !strings.Contains(body, "No tenant matches") || strings.Contains(body, "bravo") {
		t.Errorf("alpha's owner filtering for bravo's state:\n%.600s", body)
	}

	// bravo's page answers alpha's owner as a tenant that does not exist.
	for _, name := range []string{"bravo", "charlie"} {
		status, body := get(t, alphaToken, "/tenants/"+name)
		if status != http.StatusNotFound || !strings.Contains(body, "no such tenant among those you may see") {
			t.Errorf("alpha's owner getting /tenants/%s: %d\n%.300s", name, status, body)
		}
	}
	// And bravo's owner sees bravo, not alpha.
	if status, body := get(t, bravoToken, "/"); status != http.StatusOK || strings.Contains(body, "alpha") || !strings.Contains(body, `data-tenant="bravo"`) {
		t.Errorf("bravo's owner's tenants page: %d\n%.600s", status, body)
	}
	if status, _ := get(t, "not-a-token", "/"); status != http.StatusSeeOther {
		t.Errorf("a refused token: %d, want a redirect to the login form", status)
	}

	// The admin's page of alpha, for the README.
	adminView.run(t, chromedp.Navigate(dashboardURL+"/tenants/alpha"), chromedp.WaitVisible(chromedp.CSS(`#denials tr[data-rule="LL012"]`)), chromedp.WaitVisible(chromedp.ID("audit-summary")))
	adminView.screenshot(t, "tenant-admin.png")
}

// form sets the inputs of the page's form by id and clicks the element
// named click, in the page itself: chromedp's nodes of the page a form
// left can be stale.
func (b *browser) form(t *testing.T, values map[string]string, click string) {
	t.Helper()
	js := ""
	for id, v := range values {
		js += fmt.Sprintf("document.getElementById(%q).value = %q; ", id, v)
	}
	js += fmt.Sprintf("document.getElementById(%q).click(); true", click)
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](js)); err != nil {
		t.Fatal(err)
	}
}

// waitNames waits until the URL's parameters hold params ("" for absent)
// and the tenants table lists want, in order.
func (b *browser) waitNames(t *testing.T, params map[string]string, want ...string) {
	t.Helper()
	names, err := json.Marshal(append([]string{}, want...))
	if err != nil {
		t.Fatal(err)
	}
	expr := "(() => { const p = new URLSearchParams(location.search); return document.readyState === 'complete'"
	for k, v := range params {
		expr += fmt.Sprintf(" && (p.get(%q) || '') === %q", k, v)
	}
	expr += fmt.Sprintf(" && JSON.stringify([...document.querySelectorAll('#tenants tbody tr')].map(r => r.dataset.tenant)) === %q })()", names)
	// Evaluated again and again, not polled in the page: a navigation ends
	// a poll.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var ok bool
		if ok, err = chromedp.Run(b.ctx, chromedp.Evaluate[bool](expr)); ok && err == nil {
			return
		}
	}
	loc, _ := chromedp.Run(b.ctx, chromedp.Location())
	t.Fatalf("want %v at %v; %s shows %+v (%v)", want, params, loc, b.rows(t), err)
}

// ownerClient authenticates with token, as the owner's kubectl would.
func ownerClient(t *testing.T, token string) client.Client {
	t.Helper()
	cfg := rest.AnonymousClientConfig(env.Config)
	cfg.BearerToken = token
	c, err := client.New(cfg, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// get asks the dashboard with a bearer token, as an auth proxy would,
// without following redirects.
func get(t *testing.T, token, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, dashboardURL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}
