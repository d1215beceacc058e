package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

func TestParseQuery(t *testing.T) {
	for raw, want := range map[string]string{
		"":                                  "",
		"q=pay&status=notready&denials=1":   "",
		"sort=age&order=desc&page=3":        "",
		"label=team%3Da%2Cenv%21%3Dprod":    "",
		"owner=dev&denials=0&order=asc":     "",
		"status=broken":                     `parameter status="broken" is not allowed; allowed: one of "", "ready", "notready", "unknown"`,
		"sort=message":                      `parameter sort="message" is not allowed; allowed: one of "name", "ready", "age", "denials"`,
		"order=up":                          `parameter order="up" is not allowed; allowed: one of "asc", "desc"`,
		"denials=yes":                       `parameter denials="yes" is not allowed; allowed: one of "", "0", "1"`,
		"page=0":                            `parameter page="0" is not allowed; allowed: a whole number from 1`,
		"page=two":                          `parameter page="two" is not allowed; allowed: a whole number from 1`,
		"label=team+in+%28a":                `parameter label="team in (a" is not allowed; allowed: a label selector`,
		"status=ready&sort=name&order=desc": "",
	} {
		t.Run(raw, func(t *testing.T) {
			v, err := url.ParseQuery(raw)
			if err != nil {
				t.Fatal(err)
			}
			q, err := parseQuery(v)
			switch {
			case want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case want != "" && (err == nil || !strings.HasPrefix(err.Error(), want)):
				t.Fatalf("err = %v, want %q", err, want)
			case want == "":
				// A valid query spells itself back, defaults left out.
				back, err := url.ParseQuery(strings.TrimPrefix(q.link(), "/?"))
				if err != nil {
					t.Fatal(err)
				}
				for k := range v {
					if d := v.Get(k); back.Get(k) != d && d != "0" && d != "asc" && d != "name" {
						t.Errorf("%s: link says %q, asked %q", k, back.Get(k), d)
					}
				}
			}
		})
	}
}

// rowsFor are n tenants named t-000 on, created a minute apart, every
// third not ready, every fifth with denials, owned by team-a or team-b.
func rowsFor(n int) []tenantRow {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := make([]tenantRow, n)
	for i := range rows {
		team := []string{"team-a", "team-b"}[i%2]
		rows[i] = tenantRow{Name: fmt.Sprintf("t-%03d", i), Ready: "True", Created: start.Add(time.Duration(i) * time.Minute),
			Owners: []owner{{Kind: "Group", Name: team}}, Labels: map[string]string{"team": team}}
		if i%3 == 0 {
			rows[i].Ready = "False"
		}
		if i%5 == 0 {
			rows[i].Denials = i
		}
	}
	rows[7].Ready = "Unknown"
	return rows
}

func TestIndex(t *testing.T) {
	rows := rowsFor(120)
	for name, tc := range map[string]struct {
		query   string
		matched int
		page    int
		names   []string // the page's first rows, in order
		count   int      // the page's rows
	}{
		"first page by name":           {"", 120, 1, []string{"t-000", "t-001"}, 50},
		"last page is short":           {"page=3", 120, 3, []string{"t-100"}, 20},
		"a page past the last is last": {"page=9", 120, 3, []string{"t-100"}, 20},
		"name reversed":                {"order=desc", 120, 1, []string{"t-119", "t-118"}, 50},
		"search in any case":           {"q=T-11", 120 - 110, 1, []string{"t-110", "t-111"}, 10},
		"not ready":                    {"status=notready", 40, 1, []string{"t-000", "t-003"}, 40},
		"unknown":                      {"status=unknown", 1, 1, []string{"t-007"}, 1},
		"with denials, most first":     {"denials=1&sort=denials&order=desc", 23, 1, []string{"t-115", "t-110"}, 23},
		"owner":                        {"owner=team-b&q=t-00", 5, 1, []string{"t-001", "t-003"}, 5},
		"label selector":               {"label=team%21%3Dteam-a&status=ready&q=t-0", 32, 1, []string{"t-001", "t-005"}, 32},
		"not ready first":              {"sort=ready&q=t-00", 10, 1, []string{"t-000", "t-003", "t-006", "t-009", "t-007", "t-001"}, 10},
		"youngest first":               {"sort=age", 120, 1, []string{"t-119", "t-118"}, 50},
		"oldest first":                 {"sort=age&order=desc", 120, 1, []string{"t-000", "t-001"}, 50},
		"nothing matches":              {"q=zzz", 0, 1, nil, 0},
	} {
		t.Run(name, func(t *testing.T) {
			v, _ := url.ParseQuery(tc.query)
			q, err := parseQuery(v)
			if err != nil {
				t.Fatal(err)
			}
			x := newIndex(rows, q)
			if x.Matched != tc.matched || x.Page != tc.page || len(x.Rows) != tc.count {
				t.Fatalf("matched %d, page %d, %d rows; want %d, %d, %d", x.Matched, x.Page, len(x.Rows), tc.matched, tc.page, tc.count)
			}
			for i, want := range tc.names {
				if x.Rows[i].Name != want {
					t.Errorf("row %d = %s, want %s", i, x.Rows[i].Name, want)
				}
			}
			// The summary counts every tenant, whatever the filter.
			if want := (summary{Tenants: 120, Ready: 79, NotReady: 40, Unknown: 1, Denials: 5 * (0 + 23) * 24 / 2, Denied: 23}); x.Summary != want {
				t.Errorf("summary %+v, want %+v", x.Summary, want)
			}
		})
	}
}

func TestIndexLinks(t *testing.T) {
	q, err := parseQuery(url.Values{"status": {"notready"}, "sort": {"age"}, "page": {"2"}})
	if err != nil {
		t.Fatal(err)
	}
	x := newIndex(rowsFor(300), q)
	for i, c := range [][2]string{
		{q.SortLink("age"), "/?order=desc&sort=age&status=notready"},
		{q.SortLink("name"), "/?status=notready"},
		{x.PrevLink(), "/?sort=age&status=notready"},
		{x.NextLink(), ""},
		{q.Sorted("age"), "asc"},
		{q.Sorted("name"), ""},
	} {
		if c[0] != c[1] {
			t.Errorf("[%d] = %q, want %q", i, c[0], c[1])
		}
	}
	if x.First() != 51 || x.Last() != 100 {
		t.Errorf("rows %d–%d, want 51–100", x.First(), x.Last())
	}
}

func TestSummaryWithoutEvents(t *testing.T) {
	rows := rowsFor(10)
	for i := range rows {
		rows[i].Denials = -1
	}
	if s := summarize(rows); s.Denials != -1 || s.Denied != -1 {
		t.Errorf("summary %+v: want denials unknown", s)
	}
}

var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// viewer is an authenticated user, for the tests that need no API server.
type viewer struct{ user authenticationv1.UserInfo }

func (v viewer) Name() string { return v.user.Username }
func (viewer) May(context.Context, authorizationv1.ResourceAttributes) (bool, error) {
	return false, nil
}
func (v viewer) Owned(ctx context.Context, tenants client.Reader) ([]v1alpha1.Tenant, error) {
	return (&subject{user: v.user}).Owned(ctx, tenants)
}

type authenticator struct{ viewer }

func (a authenticator) Authenticate(context.Context, string) (Viewer, error) { return a.viewer, nil }

func TestBadParameterAnswers400(t *testing.T) {
	srv, err := New(Options{Auth: authenticator{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"", "&part=main"} {
		w := httptest.NewRecorder()
		srv.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/?sort=owner"+part, nil))
		if body := w.Body.String(); w.Code != http.StatusBadRequest || !strings.Contains(body, `parameter sort=&#34;owner&#34; is not allowed; allowed: one of &#34;name&#34;`) {
			t.Errorf("%q: %d\n%.600s", part, w.Code, body)
		}
	}
}

// TestOwned finds the tenants naming a user, its service account or one
// of its groups among their owners, and no other.
func TestOwned(t *testing.T) {
	tenant := func(name string, owners ...v1alpha1.Owner) client.Object {
		return &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1alpha1.TenantSpec{Owners: owners}}
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		tenant("by-user", v1alpha1.Owner{Kind: "User", Name: "ana"}),
		tenant("by-group", v1alpha1.Owner{Kind: "Group", Name: "payments"}),
		tenant("by-account", v1alpha1.Owner{Kind: "ServiceAccount", Namespace: "ci", Name: "deployer"}),
		tenant("same-name-as-group", v1alpha1.Owner{Kind: "User", Name: "payments"}),
		tenant("same-name-as-user", v1alpha1.Owner{Kind: "Group", Name: "ana"}),
		tenant("other-account", v1alpha1.Owner{Kind: "ServiceAccount", Namespace: "ops", Name: "deployer"}),
		tenant("no-owner"),
	).Build()
	for name, tc := range map[string]struct {
		user authenticationv1.UserInfo
		want []string
	}{
		"user and group": {authenticationv1.UserInfo{Username: "ana", Groups: []string{"payments", "system:authenticated"}}, []string{"by-group", "by-user"}},
		"service account": {authenticationv1.UserInfo{Username: "system:serviceaccount:ci:deployer", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ci"}},
			[]string{"by-account"}},
		"stranger": {authenticationv1.UserInfo{Username: "eve", Groups: []string{"system:authenticated"}}, nil},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := viewer{tc.user}.Owned(t.Context(), c)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tn := range got {
				names = append(names, tn.Name)
			}
			slices.Sort(names)
			if !slices.Equal(names, tc.want) {
				t.Errorf("owned %v, want %v", names, tc.want)
			}
		})
	}
}
