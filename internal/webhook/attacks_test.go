package webhook_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/testenv"
)

// identities are the tenant identities attacks are sent as; see attack.as.
var identities = map[string]client.Client{}

// world is set up once for every attack table of the package.
var world sync.Once

// attackWorld provisions tenants blue, red and green, the leaky owner
// mallory, and blue's and green's self-service namespaces, once.
func attackWorld(t *testing.T) {
	t.Helper()
	world.Do(func() {
		attackTenants(t)
		identities["reconciler"] = impersonate("system:serviceaccount:blue-apps:blue")
		identities["owner"] = impersonate("alice", "blue-team", "system:authenticated")
		identities["leaky"] = impersonate("mallory", "blue-team", "system:authenticated")
		identities["green"] = impersonate("system:serviceaccount:green-apps:green")
		identities["platform"] = k8s
		leak := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "platform-mistake"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "mallory", APIGroup: rbacv1.GroupName}},
		}
		if err := k8s.Create(ctx, leak); err != nil {
			t.Fatal(err)
		}
		// Blue has two of its three self-service namespaces, green its only one.
		for name, as := range map[string]string{"blue-one": "reconciler", "blue-two": "reconciler", "green-one": "green"} {
			tenant, _, _ := strings.Cut(name, "-")
			if err := identities[as].Create(ctx, labelledNamespace(name, tenant)); err != nil {
				t.Fatalf("self-service namespace %s: %v", name, err)
			}
		}
		testenv.Eventually(t, 30*time.Second, func() error { // adopted: the tenant may delete it
			return k8s.Get(ctx, client.ObjectKey{Namespace: "blue-two", Name: "landlord-self-service"}, &rbacv1.RoleBinding{})
		})
	})
}

// dry makes every attack a dry run: judged in full, persisted never.
var dry = client.DryRunAll

func create(obj client.Object) func(client.Client) error {
	return func(c client.Client) error { return c.Create(ctx, obj, dry) }
}

// mutate reads obj as the admin, edits it and updates it as the attacker.
func mutate(obj client.Object, edit func(client.Object)) func(client.Client) error {
	return func(c client.Client) error {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		edit(obj)
		return c.Update(ctx, obj, dry)
	}
}

func remove(obj client.Object) func(client.Client) error {
	return func(c client.Client) error { return c.Delete(ctx, obj, dry) }
}

func ns(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// runAttacks sends every request of the table as its identity: an attack
// must come back 403 with its rule id, or 404 from the guard for notFound
// (and, with rbacFirst, Forbidden by RBAC alone as the plain identity); a
// neighbour must pass.
func runAttacks(t *testing.T, attacks map[string]attack) {
	t.Helper()
	attackWorld(t)
	for name, a := range attacks {
		if a.want != "" {
			if n, ok := attacks[a.near]; !ok || n.want != "" {
				t.Errorf("%s: neighbour %q is not a legitimate request of the table", name, a.near)
			}
		}
		t.Run(name, func(t *testing.T) {
			if a.rbacFirst != "" {
				err := a.do(identities[a.rbacFirst])
				if !apierrors.IsForbidden(err) || strings.Contains(err.Error(), "LL0") {
					t.Errorf("as %s: got %v, want Forbidden by RBAC before admission", a.rbacFirst, err)
				}
			}
			err := a.do(identities[a.as])
			if a.want == "" {
				if err != nil {
					t.Errorf("legitimate request refused: %v", err)
				}
				return
			}
			if a.want == notFound {
				// Only the guard answers NotFound for a name that exists or that
				// the request would create.
				if !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), "denied the request") {
					t.Errorf("got %v, want NotFound from the guard", err)
				}
				return
			}
			if a.want == rbacDenied {
				if !apierrors.IsForbidden(err) {
					t.Errorf("got %v, want Forbidden by RBAC", err)
				}
				return
			}
			status := &apierrors.StatusError{}
			if !errors.As(err, &status) || status.ErrStatus.Code != 403 || !strings.Contains(err.Error(), a.want+":") {
				t.Errorf("got %v, want a denial by %s", err, a.want)
			}
		})
	}
	denials := countAttacks(attacks)
	t.Logf("%d attacks denied, %d legitimate neighbours allowed", denials, len(attacks)-denials)
}

// rbacDenied is the want of an attack RBAC alone refuses, for every
// identity: no rule of the guard is needed.
const rbacDenied = "RBAC"

// notFound is the want of an attack on a namespace not the tenant's, which
// the guard denies (LL009) as if no such namespace existed.
const notFound = "NotFound"

func countAttacks(attacks map[string]attack) int {
	n := 0
	for _, a := range attacks {
		if a.want != "" {
			n++
		}
	}
	return n
}
