package cli_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/landlord-dev/landlord/internal/cli"
)

// TestDashboardShowsTheKubeconfigsView: landlord dashboard prints a URL
// whose key logs the browser in; a tenant owner's kubeconfig sees its own
// tenant and not the other, the admin's both; without the key, or with
// another, the page asks to log in.
func TestDashboardShowsTheKubeconfigsView(t *testing.T) {
	t.Parallel()
	startLandlord(t)
	for _, name := range []string{"dash-own", "dash-other"} {
		if _, stderr, err := landlordLive("tenant", "create", name, "--namespace", name+"-apps", "--owner", "User:"+name+"-lead", "--wait", "--timeout", "3m"); err != nil {
			t.Fatalf("tenant create %s: %v\n%s", name, err, stderr)
		}
		t.Cleanup(func() { _, _, _ = landlordLive("tenant", "delete", name) })
	}
	for name, tc := range map[string]struct {
		as          []string
		see, unseen []string
	}{
		"owner": {as: []string{"--as", "dash-own-lead", "--as-group", "system:authenticated"}, see: []string{"dash-own"}, unseen: []string{"dash-other"}},
		"admin": {see: []string{"dash-own", "dash-other"}},
	} {
		t.Run(name, func(t *testing.T) {
			link := serveDashboard(t, tc.as...)
			jar, err := cookiejar.New(nil)
			if err != nil {
				t.Fatal(err)
			}
			status, body := fetch(t, &http.Client{Jar: jar}, link)
			if status != http.StatusOK {
				t.Fatalf("following the printed URL: %d\n%.500s", status, body)
			}
			for _, tenant := range tc.see {
				if !strings.Contains(body, `data-tenant="`+tenant+`"`) {
					t.Errorf("the tenants page lacks %s:\n%.1500s", tenant, body)
				}
			}
			for _, tenant := range tc.unseen {
				if strings.Contains(body, tenant) {
					t.Errorf("the tenants page names %s:\n%.1500s", tenant, body)
				}
			}
			home := strings.Split(link, "/login")[0] + "/"
			noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			if status, _ := fetch(t, noRedirect, home); status != http.StatusSeeOther {
				t.Errorf("without the key: %d, want a redirect to the login form", status)
			}
			if status, _ := fetch(t, noRedirect, home+"login?token=another"); status != http.StatusUnauthorized {
				t.Errorf("with another key: %d, want 401", status)
			}
		})
	}
}

// serveDashboard runs landlord dashboard with the shared control plane's
// kubeconfig until the test ends and returns the URL it prints.
func serveDashboard(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	cmd := cli.NewRootCommand()
	out := &syncBuffer{}
	cmd.SetArgs(append(append([]string{"--kubeconfig=" + env.KubeconfigPath}, args...), "dashboard", "--address", "127.0.0.1:0"))
	cmd.SetOut(out)
	cmd.SetErr(io.Discard)
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("landlord dashboard: %v", err)
		}
	})
	url := regexp.MustCompile(`http://127\.0\.0\.1:\d+/login\?token=\S+`)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if link := url.FindString(out.String()); link != "" {
			return link
		}
		select {
		case err := <-done:
			t.Fatalf("landlord dashboard exited: %v\n%s", err, out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("landlord dashboard printed no URL:\n%s", out.String())
	return ""
}

func fetch(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// syncBuffer is written by the command and read by the test at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
