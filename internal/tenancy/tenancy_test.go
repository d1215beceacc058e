package tenancy

import (
	"slices"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// memStore is a Store over plain slices: the resolver is pure, the stores
// of the guard and lint are tested with them.
type memStore struct {
	tenants    []*v1alpha1.Tenant
	namespaces []*corev1.Namespace
}

func (m memStore) Tenant(name string) *v1alpha1.Tenant {
	for _, t := range m.tenants {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func (m memStore) Assigning(ns string) []*v1alpha1.Tenant {
	var out []*v1alpha1.Tenant
	for _, t := range m.tenants {
		if Assigned(t, ns) {
			out = append(out, t)
		}
	}
	return out
}

func (m memStore) Owning(key string) []*v1alpha1.Tenant {
	var out []*v1alpha1.Tenant
	for _, t := range m.tenants {
		if slices.Contains(OwnerKeys(t), key) {
			out = append(out, t)
		}
	}
	return out
}

func (m memStore) Namespace(name string) *corev1.Namespace {
	for _, ns := range m.namespaces {
		if ns.Name == name {
			return ns
		}
	}
	return nil
}

func (m memStore) Account(string, string) *corev1.ServiceAccount { return nil }

func (m memStore) Labelled(tenant string) []*corev1.Namespace {
	var out []*corev1.Namespace
	for _, ns := range m.namespaces {
		if ns.Labels[v1alpha1.TenantLabel] == tenant {
			out = append(out, ns)
		}
	}
	return out
}

func tenant(name string, namespaces []string, ss *v1alpha1.SelfService, owners ...v1alpha1.Owner) *v1alpha1.Tenant {
	t := &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1alpha1.TenantSpec{SelfService: ss, Owners: owners}}
	for _, ns := range namespaces {
		t.Spec.Namespaces = append(t.Spec.Namespaces, v1alpha1.TenantNamespace{Name: ns})
	}
	return t
}

func namespace(name string, labels ...string) *corev1.Namespace {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}}}
	for i := 0; i+1 < len(labels); i += 2 {
		ns.Labels[labels[i]] = labels[i+1]
	}
	return ns
}

// world: a (assigned a-apps, self-service a-), b (assigned b-apps and, by
// a platform mistake, a's self-service a-x), an adopted namespace of a
// whose prefix a has since changed, and a namespace labelled for a tenant
// that is gone.
var world = Resolver{Store: memStore{
	tenants: []*v1alpha1.Tenant{
		tenant("a", []string{"a-apps"}, &v1alpha1.SelfService{Prefix: "team-a-", MaxNamespaces: 3},
			v1alpha1.Owner{Kind: "Group", Name: "shared"}, v1alpha1.Owner{Kind: "User", Name: "ann"}),
		tenant("b", []string{"b-apps", "a-x", "b-pre"}, nil, v1alpha1.Owner{Kind: "Group", Name: "shared"},
			v1alpha1.Owner{Kind: "ServiceAccount", Namespace: "ci", Name: "deployer"}),
	},
	namespaces: []*corev1.Namespace{
		namespace("a-apps", v1alpha1.TenantLabel, "a", v1alpha1.ManagedByLabel, v1alpha1.ManagedByValue),
		namespace("b-apps", v1alpha1.TenantLabel, "b", v1alpha1.ManagedByLabel, v1alpha1.ManagedByValue),
		namespace("a-x", v1alpha1.TenantLabel, "a", v1alpha1.ManagedByLabel, v1alpha1.ManagedByValue),
		// The platform's own, labelled for b, which b assigns: never taken over.
		namespace("b-pre", v1alpha1.TenantLabel, "b"),
		namespace("a-old", v1alpha1.TenantLabel, "a", v1alpha1.ManagedByLabel, v1alpha1.ManagedByValue, v1alpha1.OriginLabel, "SelfService"),
		namespace("team-a-new", v1alpha1.TenantLabel, "a"),
		namespace("team-a-gone", v1alpha1.TenantLabel, "a"),
		namespace("ghost-apps", v1alpha1.TenantLabel, "ghost"),
		namespace("monitoring"),
	},
}}

func init() {
	for _, ns := range world.Store.(memStore).namespaces {
		if ns.Name == "team-a-gone" {
			ns.DeletionTimestamp = &metav1.Time{}
		}
	}
}

func TestForNamespace(t *testing.T) {
	for ns, want := range map[string]string{
		"a-apps": "a",
		"b-apps": "b",
		// Labelled for a: b's listing it does not make it b's.
		"a-x": "",
		// Adopted under the old prefix: still a's.
		"a-old":       "a",
		"team-a-new":  "a",
		"team-a-gone": "a",
		"ghost-apps":  "",
		"b-pre":       "",
		"monitoring":  "",
		"not-created": "",
		"":            "",
	} {
		if got := nameOf(world.ForNamespace(ns)); got != want {
			t.Errorf("ForNamespace(%q) = %q, want %q", ns, got, want)
		}
	}
	for ns, want := range map[string]string{"ghost-apps": "ghost", "a-x": "a", "b-pre": "b", "monitoring": "", "not-created": ""} {
		if got := world.Claimant(ns); got != want {
			t.Errorf("Claimant(%q) = %q, want %q", ns, got, want)
		}
	}
	// Not created yet: the first tenant assigning it.
	r := Resolver{Store: memStore{tenants: []*v1alpha1.Tenant{tenant("z", []string{"shared-ns"}, nil), tenant("y", []string{"shared-ns"}, nil)}}}
	if got := nameOf(r.ForNamespace("shared-ns")); got != "y" {
		t.Errorf("ForNamespace of a namespace to create = %q, want y, the first by name", got)
	}
}

func TestForUser(t *testing.T) {
	for name, tc := range map[string]struct {
		user authenticationv1.UserInfo
		want string
	}{
		// A group both tenants list: the user acts for both, not the first.
		"owner of two tenants":        {authenticationv1.UserInfo{Username: "carl", Groups: []string{"system:authenticated", "shared"}}, "a,b"},
		"owner user":                  {authenticationv1.UserInfo{Username: "ann"}, "a"},
		"owner service account":       {authenticationv1.UserInfo{Username: "system:serviceaccount:ci:deployer"}, "b"},
		"reconciler":                  {authenticationv1.UserInfo{Username: "system:serviceaccount:a-apps:a"}, "a"},
		"reconciler in self-service":  {authenticationv1.UserInfo{Username: "system:serviceaccount:team-a-new:a"}, "a"},
		"b's name in a's namespace":   {authenticationv1.UserInfo{Username: "system:serviceaccount:a-x:b"}, ""},
		"other account of the tenant": {authenticationv1.UserInfo{Username: "system:serviceaccount:a-apps:web"}, ""},
		"owner and reconciler at once": {authenticationv1.UserInfo{Username: "system:serviceaccount:ci:deployer",
			Groups: []string{"shared"}}, "a,b"},
	} {
		var got []string
		for _, t := range world.ForUser(tc.user) {
			got = append(got, t.Name)
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%s: ForUser = %v, want %s", name, got, tc.want)
		}
	}
}

func TestSelfServiceCount(t *testing.T) {
	// a-old (adopted), team-a-new and team-a-gone (terminating still
	// counts); not a-apps (assigned) nor a-x.
	if n := world.SelfServiceCount("a"); n != 3 {
		t.Errorf("SelfServiceCount(a) = %d, want 3", n)
	}
	if n := world.SelfServiceCount("b"); n != 0 {
		t.Errorf("SelfServiceCount(b) = %d, want 0: b has no spec.selfService", n)
	}
}

func TestSplitServiceAccount(t *testing.T) {
	for user, want := range map[string]string{
		"system:serviceaccount:ns:name":   "ns/name",
		"system:serviceaccount:ns:a:b":    "",
		"system:serviceaccount::name":     "",
		"system:serviceaccounts:ns":       "",
		"alice":                           "",
		"system:serviceaccount:ns:":       "",
		"system:serviceaccount:team-a:ci": "team-a/ci",
	} {
		ns, name, ok := SplitServiceAccount(user)
		got := ""
		if ok {
			got = ns + "/" + name
		}
		if got != want {
			t.Errorf("SplitServiceAccount(%q) = %q, want %q", user, got, want)
		}
	}
}

func nameOf(t *v1alpha1.Tenant) string {
	if t == nil {
		return ""
	}
	return t.Name
}
