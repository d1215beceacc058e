// Package dashboard serves Landlord's read-only web UI: every tenant the
// viewer may get, and one tenant's namespaces, quotas, Flux objects,
// denials and audit. Pages are rendered on the server and refresh their
// main part by polling it.
package dashboard

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/audit"
)

//go:embed templates static
var files embed.FS

// cookieName holds the credential a login gave: a bearer token in the
// controller, the URL's key locally.
const cookieName = "landlord-dashboard"

// Options configure a Server.
type Options struct {
	// Client reads the cluster: the controller's own identity, or the
	// kubeconfig's.
	Client client.Client
	// Tenants is where the tenants page lists Tenants, all of them for a
	// viewer who may list them, and to find those an owner owns: the
	// controller's informer cache, so that no page lists every Tenant from
	// the API server. Client when nil.
	Tenants client.Reader
	// Auth tells who is asking.
	Auth Authenticator
	// Refresh is how often pages poll; five seconds when zero.
	Refresh time.Duration
	// Audit runs `landlord audit`'s checks of one tenant; nil leaves them
	// off the page.
	Audit func(ctx context.Context, tenant string) ([]audit.Check, error)
	// LinkLogin lets /login?token= log in, for the local key printed in a
	// URL; a bearer token in a URL would land in histories and logs.
	LinkLogin bool
}

// Server is the dashboard's HTTP handler.
type Server struct {
	opts   Options
	pages  map[string]*template.Template
	audits memo[[]audit.Check]
}

// New parses the embedded templates.
func New(opts Options) (*Server, error) {
	if opts.Refresh == 0 {
		opts.Refresh = 5 * time.Second
	}
	if opts.Tenants == nil {
		opts.Tenants = opts.Client
	}
	s := &Server{opts: opts, pages: map[string]*template.Template{}}
	for _, page := range []string{"tenants", "tenant", "login"} {
		t, err := template.New(page).Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/"+page+".html")
		if err != nil {
			return nil, err
		}
		s.pages[page] = t
	}
	return s, nil
}

var funcs = template.FuncMap{
	"join":  strings.Join,
	"stamp": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	// blankQuery fills the tenants page's form when its parameters were refused.
	"blankQuery": func() query { q, _ := parseQuery(nil); return q },
}

// Handler routes the pages, their parts and the static files.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(files, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /login", s.loginForm)
	mux.HandleFunc("POST /login", s.login)
	mux.HandleFunc("GET /{$}", s.authenticated(s.tenants))
	mux.HandleFunc("GET /tenants/{name}", s.authenticated(s.tenant))
	return secureHeaders(mux)
}

// secureHeaders keeps the pages out of frames, caches and other origins'
// scripts.
func secureHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; form-action 'self'")
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// view is what every page template gets.
type view struct {
	Title   string
	Viewer  string
	Refresh int64 // milliseconds
	Updated time.Time
	Data    any
	Error   string
}

type page func(w http.ResponseWriter, r *http.Request, v Viewer) (title string, data any, err error)

// errNotFound answers 404 for a tenant that does not exist and one the
// viewer may not get alike.
var errNotFound = errors.New("no such tenant among those you may see")

// authenticated runs p for the request's viewer; ?part=main renders only
// the part the page polls.
func (s *Server) authenticated(p page) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		credential := ""
		if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
			credential = strings.TrimPrefix(h, "Bearer ")
		} else if c, err := r.Cookie(cookieName); err == nil {
			credential = c.Value
		}
		viewer, err := s.opts.Auth.Authenticate(r.Context(), credential)
		if errors.Is(err, errUnauthenticated) {
			if r.URL.Query().Get("part") != "" {
				http.Error(w, "log in again", http.StatusUnauthorized)
				return
			}
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		if err != nil {
			ctrl.LoggerFrom(r.Context()).Error(err, "dashboard: authenticating")
			http.Error(w, "authentication failed: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		title, data, err := p(w, r, viewer)
		status := http.StatusOK
		v := view{Title: title, Viewer: viewer.Name(), Refresh: s.opts.Refresh.Milliseconds(), Updated: time.Now(), Data: data}
		var bad *paramError
		switch {
		case errors.As(err, &bad):
			status, v.Data, v.Error = http.StatusBadRequest, nil, err.Error()
		case errors.Is(err, errNotFound):
			status, v.Data, v.Error = http.StatusNotFound, nil, err.Error()
		case err != nil:
			status, v.Data, v.Error = http.StatusInternalServerError, nil, err.Error()
		}
		name := "page"
		if r.URL.Query().Get("part") == "main" {
			name = "main"
		}
		s.render(w, r, status, strings.TrimPrefix(r.Pattern, "GET "), name, v)
	}
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, pattern, name string, v view) {
	page := map[string]string{"/{$}": "tenants", "/tenants/{name}": "tenant", "/login": "login"}[pattern]
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := s.pages[page].ExecuteTemplate(w, name, v); err != nil {
		ctrl.LoggerFrom(r.Context()).Error(err, "dashboard: rendering", "page", page)
	}
}

// tenants is the index: its parameters are checked before anything is
// read, and the summary counts every tenant the viewer may see.
func (s *Server) tenants(_ http.ResponseWriter, r *http.Request, v Viewer) (string, any, error) {
	q, err := parseQuery(r.URL.Query())
	if err != nil {
		return "Tenants", nil, err
	}
	rd := &reader{c: s.opts.Client, list: s.opts.Tenants, viewer: v, now: time.Now()}
	rows, err := rd.rows(r.Context())
	if err != nil {
		return "Tenants", nil, err
	}
	return "Tenants", newIndex(rows, q), nil
}

func (s *Server) tenant(_ http.ResponseWriter, r *http.Request, v Viewer) (string, any, error) {
	name := r.PathValue("name")
	rd := &reader{c: s.opts.Client, viewer: v, now: time.Now()}
	p, err := rd.page(r.Context(), name)
	if err != nil {
		return name, nil, err
	}
	if p == nil {
		return name, nil, errNotFound
	}
	if s.opts.Audit == nil {
		return name, p, nil
	}
	// The audit's checks name another tenant's namespace, where they try to
	// escape to: a platform view.
	if admin, err := may(r.Context(), v, "list", v1alpha1.GroupVersion.Group, "tenants", "", ""); err != nil {
		return name, nil, err
	} else if !admin {
		p.AuditNote = "The audit is shown to those who may list every tenant: its checks name other tenants' namespaces."
		return name, p, nil
	}
	// It asks the API server a few dozen questions: kept a while, shared by
	// every viewer of the tenant.
	checks, err := s.audits.get(name, func() ([]audit.Check, error) { return s.opts.Audit(r.Context(), name) })
	if err != nil {
		p.AuditNote = err.Error()
	} else {
		p.Audit = newAuditView(checks)
	}
	return name, p, nil
}

// loginForm asks for a bearer token, or logs in with the one in the URL
// when LinkLogin allows.
func (s *Server) loginForm(w http.ResponseWriter, r *http.Request) {
	if token := r.URL.Query().Get("token"); token != "" && s.opts.LinkLogin {
		s.logIn(w, r, token)
		return
	}
	s.render(w, r, http.StatusOK, "/login", "page", view{Title: "Log in"})
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	s.logIn(w, r, strings.TrimSpace(r.PostFormValue("token")))
}

// logIn checks the credential, keeps it in a cookie scripts cannot read and
// other sites cannot send, and goes to the tenants page.
func (s *Server) logIn(w http.ResponseWriter, r *http.Request, credential string) {
	if _, err := s.opts.Auth.Authenticate(r.Context(), credential); err != nil {
		msg := "the API server refused this token"
		if !errors.Is(err, errUnauthenticated) {
			msg = err.Error()
		}
		s.render(w, r, http.StatusUnauthorized, "/login", "page", view{Title: "Log in", Error: msg})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: credential, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// Serve serves on l until ctx ends.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	<-stopped
	return nil
}
