package dashboard

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// Viewer is the person a page is rendered for, as the authorizer knows them.
type Viewer interface {
	// Name is who the header says is looking.
	Name() string
	// May tells whether the viewer may do what attrs say.
	May(ctx context.Context, attrs authorizationv1.ResourceAttributes) (bool, error)
	// Owned are the candidates among Tenants for a viewer who may not
	// list them all: those it owns, which the page confirms one by one
	// with May. tenants reads every Tenant with the dashboard's identity.
	Owned(ctx context.Context, tenants client.Reader) ([]v1alpha1.Tenant, error)
}

// Authenticator turns the credential a request carries into its viewer.
type Authenticator interface {
	Authenticate(ctx context.Context, credential string) (Viewer, error)
}

// errUnauthenticated answers a request without a credential or with one
// that was refused; the browser is sent to the login form.
var errUnauthenticated = errors.New("unauthenticated")

// decisionTTL is how long an answer of the API server is reused: a page
// polls every few seconds, and a revoked grant may show that much longer.
const decisionTTL = 30 * time.Second

// TokenReviewer authenticates bearer tokens with TokenReview and asks
// SubjectAccessReview what their user may read: the dashboard of
// landlord-controller, which reads with its own identity and shows each
// viewer only what the viewer may get.
type TokenReviewer struct {
	// Client creates the reviews.
	Client  client.Client
	tokens  memo[authenticationv1.UserInfo]
	answers memo[bool]
}

var _ Authenticator = &TokenReviewer{}

// Authenticate reviews the token; the user it names is the viewer.
func (a *TokenReviewer) Authenticate(ctx context.Context, token string) (Viewer, error) {
	if token == "" {
		return nil, errUnauthenticated
	}
	sum := sha256.Sum256([]byte(token))
	user, err := a.tokens.get(string(sum[:]), func() (authenticationv1.UserInfo, error) {
		review := &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}
		if err := a.Client.Create(ctx, review); err != nil {
			return authenticationv1.UserInfo{}, fmt.Errorf("reviewing the token: %w", err)
		}
		if !review.Status.Authenticated {
			return authenticationv1.UserInfo{}, errUnauthenticated
		}
		return review.Status.User, nil
	})
	if err != nil {
		return nil, err
	}
	return &subject{user: user, reviewer: a}, nil
}

// subject is a viewer authenticated by token, judged by SubjectAccessReview.
type subject struct {
	user     authenticationv1.UserInfo
	reviewer *TokenReviewer
}

func (s *subject) Name() string { return s.user.Username }

// Owned are the Tenants whose spec.owners name the user, its service
// account or one of its groups: RBAC's owner view grants those alone.
// Read from the controller's cache, they cost no API request.
func (s *subject) Owned(ctx context.Context, tenants client.Reader) ([]v1alpha1.Tenant, error) {
	list := &v1alpha1.TenantList{}
	if err := tenants.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing tenants: %w", err)
	}
	keys := tenancy.SubjectKeys(s.user)
	return slices.DeleteFunc(list.Items, func(t v1alpha1.Tenant) bool {
		return !slices.ContainsFunc(tenancy.OwnerKeys(&t), func(k string) bool { return slices.Contains(keys, k) })
	}), nil
}

func (s *subject) May(ctx context.Context, attrs authorizationv1.ResourceAttributes) (bool, error) {
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%+v", s.user.Username, s.user.UID, strings.Join(s.user.Groups, ","), attrs)
	return s.reviewer.answers.get(key, func() (bool, error) {
		extra := map[string]authorizationv1.ExtraValue{}
		for k, v := range s.user.Extra {
			extra[k] = authorizationv1.ExtraValue(v)
		}
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: s.user.Username, UID: s.user.UID, Groups: s.user.Groups, Extra: extra, ResourceAttributes: &attrs,
		}}
		if err := s.reviewer.Client.Create(ctx, review); err != nil {
			return false, fmt.Errorf("asking whether %s may %s %s: %w", s.user.Username, attrs.Verb, attrs.Resource, err)
		}
		return review.Status.Allowed, nil
	})
}

// Local is the dashboard `landlord dashboard` serves on loopback: the
// kubeconfig's identity reads, and the key printed in its URL keeps other
// local users and web pages out.
type Local struct {
	// Key is the secret of the printed URL.
	Key string
	// Client is the kubeconfig's.
	Client  client.Client
	answers memo[bool]
}

var _ Authenticator = &Local{}

// Authenticate accepts the key alone.
func (l *Local) Authenticate(_ context.Context, key string) (Viewer, error) {
	if key == "" || subtle.ConstantTimeCompare([]byte(key), []byte(l.Key)) != 1 {
		return nil, errUnauthenticated
	}
	return (*self)(l), nil
}

// self is the kubeconfig's identity, judged by SelfSubjectAccessReview.
type self Local

func (s *self) Name() string { return "your kubeconfig" }

// Owned are the Tenants the kubeconfig's own rules grant get on by name,
// from one SelfSubjectRulesReview: its identity may not list them.
func (s *self) Owned(ctx context.Context, _ client.Reader) ([]v1alpha1.Tenant, error) {
	return OwnTenants(ctx, s.Client)
}

func (s *self) May(ctx context.Context, attrs authorizationv1.ResourceAttributes) (bool, error) {
	return s.answers.get(fmt.Sprintf("%+v", attrs), func() (bool, error) {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs}}
		if err := s.Client.Create(ctx, review); err != nil {
			return false, fmt.Errorf("asking whether you may %s %s: %w", attrs.Verb, attrs.Resource, err)
		}
		return review.Status.Allowed, nil
	})
}

// memo keeps answers for decisionTTL; errors are not kept.
type memo[T any] struct {
	mu      sync.Mutex
	entries map[string]memoEntry[T]
}

type memoEntry[T any] struct {
	value   T
	expires time.Time
}

func (m *memo[T]) get(key string, compute func() (T, error)) (T, error) {
	now := time.Now()
	m.mu.Lock()
	e, ok := m.entries[key]
	m.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.value, nil
	}
	v, err := compute()
	if err != nil {
		return v, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries == nil {
		m.entries = map[string]memoEntry[T]{}
	}
	// Expired entries go when a new one comes, so the map holds only what
	// the last decisionTTL asked.
	for k, old := range m.entries {
		if now.After(old.expires) {
			delete(m.entries, k)
		}
	}
	m.entries[key] = memoEntry[T]{value: v, expires: now.Add(decisionTTL)}
	return v, nil
}

// may asks whether v may act on one resource.
func may(ctx context.Context, v Viewer, verb, group, resource, namespace, name string) (bool, error) {
	return v.May(ctx, authorizationv1.ResourceAttributes{Verb: verb, Group: group, Resource: resource, Namespace: namespace, Name: name})
}
