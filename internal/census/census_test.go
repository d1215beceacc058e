package census

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/apivalidation"
	"github.com/landlord-dev/landlord/internal/kinds"
	"github.com/landlord-dev/landlord/internal/policy"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// blue is the tenant the probes write as: two namespaces, self-service,
// confined sources and images, one allowed storage and ingress class, hostnames, and
// an approved object of each cluster-scoped kind the policy judges.
var blue = &v1alpha1.Tenant{
	ObjectMeta: metav1.ObjectMeta{Name: "blue"},
	Spec: v1alpha1.TenantSpec{
		Namespaces:  []v1alpha1.TenantNamespace{{Name: "blue-apps"}, {Name: "blue-jobs"}},
		SelfService: &v1alpha1.SelfService{Prefix: "blue-", MaxNamespaces: 5},
		Owners:      []v1alpha1.Owner{{Kind: "Group", Name: "blue-team"}},
		AllowedSources: []string{
			"https://git.example.com/blue/*", "oci://registry.example.com/blue/*",
			"https://minio.example.com/blue", "https://hooks.example.com/blue/*",
		},
		NamespaceMetadata: &v1alpha1.NamespaceMetadata{AllowedLabels: []string{"team"}, AllowedAnnotations: []string{"example.com/*"}},
		Storage:           &v1alpha1.Storage{Classes: []string{"standard"}},
		Images:            &v1alpha1.Images{Allowed: []string{"registry.example.com/blue"}, PullAlways: true},
		Ingress:           &v1alpha1.Ingress{Classes: []string{"public"}, Hostnames: []string{"*.blue.example.com"}},
		Gateways:          &v1alpha1.Gateways{Allowed: []string{"gateway-system/public"}, Classes: []string{"blue-gw"}},
		ClusterResources: []v1alpha1.ClusterResource{
			{APIGroup: gkStorageClass.Group, Kind: gkStorageClass.Kind, Names: []string{"blue-fast"}},
			{APIGroup: gkIngressClass.Group, Kind: gkIngressClass.Kind, Names: []string{"blue-ingress"}},
			{APIGroup: gkPriorityClass.Group, Kind: gkPriorityClass.Kind, Names: []string{"blue-high"}},
			{APIGroup: gkCRD.Group, Kind: gkCRD.Kind, Names: []string{"widgets.blue.example.com"}},
		},
	},
}

var red = &v1alpha1.Tenant{
	ObjectMeta: metav1.ObjectMeta{Name: "red"},
	Spec:       v1alpha1.TenantSpec{Namespaces: []v1alpha1.TenantNamespace{{Name: "red-apps"}}, Owners: []v1alpha1.Owner{{Kind: "Group", Name: "red-team"}}},
}

// blueValues fill the probes for blue writing in blue-apps.
var blueValues = Values{
	Namespace: "blue-apps", Sibling: "blue-jobs", Foreign: "red-apps", SelfService: "blue-extra",
	Tenant: "blue", Reconciler: blue.ReconcilerName(),
	Git: "https://git.example.com/blue/app", OCI: "oci://registry.example.com/blue/app", Image: "registry.example.com/blue/app",
	Hook: "https://hooks.example.com/blue/alerts", BucketEndpoint: "minio.example.com", BucketName: "blue",
	Host: "app.blue.example.com", GatewayClass: "blue-gw",
	Approved: map[schema.GroupKind]string{
		gkStorageClass: "blue-fast", gkIngressClass: "blue-ingress", gkPriorityClass: "blue-high", gkCRD: "widgets.blue.example.com",
	},
}

// store holds blue and red and their namespaces, labelled as Landlord
// labels them.
type store struct{}

var (
	tenants    = []*v1alpha1.Tenant{blue, red}
	namespaces = func() []*corev1.Namespace {
		var out []*corev1.Namespace
		for _, t := range tenants {
			for _, ns := range t.NamespaceNames() {
				out = append(out, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{v1alpha1.TenantLabel: t.Name, v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue}}})
			}
		}
		return out
	}()
)

func (store) Tenant(name string) *v1alpha1.Tenant {
	i := slices.IndexFunc(tenants, func(t *v1alpha1.Tenant) bool { return t.Name == name })
	if i < 0 {
		return nil
	}
	return tenants[i]
}

func (store) Assigning(ns string) []*v1alpha1.Tenant {
	var out []*v1alpha1.Tenant
	for _, t := range tenants {
		if tenancy.Assigned(t, ns) {
			out = append(out, t)
		}
	}
	return out
}

func (store) Owning(key string) []*v1alpha1.Tenant {
	var out []*v1alpha1.Tenant
	for _, t := range tenants {
		if slices.Contains(tenancy.OwnerKeys(t), key) {
			out = append(out, t)
		}
	}
	return out
}

func (store) Namespace(name string) *corev1.Namespace {
	i := slices.IndexFunc(namespaces, func(ns *corev1.Namespace) bool { return ns.Name == name })
	if i < 0 {
		return nil
	}
	return namespaces[i]
}

func (store) Labelled(tenant string) []*corev1.Namespace {
	var out []*corev1.Namespace
	for _, ns := range namespaces {
		if ns.Labels[v1alpha1.TenantLabel] == tenant {
			out = append(out, ns)
		}
	}
	return out
}

func (store) Account(string, string) *corev1.ServiceAccount { return nil }

// identities are blue's: its reconciler in its namespace, and an owner.
var identities = map[string]authenticationv1.UserInfo{
	"reconciler": {Username: tenancy.ServiceAccountPrefix + "blue-apps:" + blue.ReconcilerName()},
	"owner":      {Username: "alice", Groups: []string{"blue-team", "system:authenticated"}},
}

// judge evaluates the creation of obj by user as the guard would.
func judge(t *testing.T, kind schema.GroupKind, obj map[string]any, user authenticationv1.UserInfo) field.ErrorList {
	t.Helper()
	k, ok := kinds.Lookup(kind)
	if !ok {
		t.Fatalf("%s: not in the registry", kind)
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := policy.Decode(k.GroupVersionKind, raw)
	if err != nil || decoded == nil {
		t.Fatalf("%s: not decoded (%v)", kind, err)
	}
	meta := obj["metadata"].(map[string]any)
	ns, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	return policy.Evaluate(policy.Request{Operation: admissionv1.Create, Namespace: ns, Object: decoded, Kind: kind, Name: name, User: user},
		tenancy.Resolver{Store: store{}})
}

// valid fails unless the API server's schema (and a CRD's rules) admit
// obj, so that the guard, not validation, is what a live probe meets
// (audit sends them).
func valid(t *testing.T, kind schema.GroupKind, obj map[string]any, what string) {
	t.Helper()
	k, _ := kinds.Lookup(kind)
	s, err := schemas()
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.Lookup(k.GroupVersionKind)
	if err != nil || v == nil {
		t.Fatalf("%s: no schema (%v)", kind, err)
	}
	ns, _ := obj["metadata"].(map[string]any)["namespace"].(string)
	if errs := v.Validate(context.Background(), obj, ns).Errors(); len(errs) > 0 {
		t.Errorf("%s, %s: invalid: %v", kind.Kind, what, errs)
	}
}

var schemas = sync.OnceValues(apivalidation.NewSchemas)

func ids(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, policy.RuleID(e))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// refusedWhole are the kinds one row refuses whole to tenants: their base
// is refused too, so no neighbour of theirs passes.
func refusedWhole(kind schema.GroupKind) bool {
	return slices.ContainsFunc(Rows, func(r Row) bool { return r.On.Kind == kind && r.Rule != "" && r.Whole && r.Path == "spec" })
}

// TestAttacksAreRefused: each row naming a rule holds only if that rule
// refuses the row's attack at every place the row's field sits, for blue's
// reconciler and owner writing in blue's namespace, and lets its
// neighbour through. A row cannot claim a rule that does not judge its
// field.
func TestAttacksAreRefused(t *testing.T) {
	probes := 0
	for _, r := range Rows {
		if r.Rule == "" {
			if r.Attack != "" || r.Neighbour != "" {
				t.Errorf("%s %s: probes on a row no rule judges", r.On, r.Path)
			}
			continue
		}
		if r.Attack == "" {
			t.Errorf("%s %s: names %s without an attack", r.On, r.Path, r.Rule)
			continue
		}
		for _, which := range []string{"attack", "neighbour"} {
			patch := r.Attack
			if which == "neighbour" {
				if patch = r.Neighbour; patch == "" {
					continue
				}
			}
			ps, err := Probes(r, patch, blueValues)
			if err != nil {
				t.Errorf("%s %s: %v", r.On, r.Path, err)
				continue
			}
			for _, p := range ps {
				valid(t, p.Kind, p.Object, r.On.String()+" "+r.Path+" "+which)
				k, _ := kinds.Lookup(p.Kind)
				if !k.Judged {
					t.Errorf("%s %s: %s names %s, yet the guard never sees the kind", p.Kind.Kind, p.At, r.Rule, r.Rule)
					continue
				}
				for who, user := range identities {
					probes++
					got := ids(judge(t, p.Kind, p.Object, user))
					switch {
					case which == "attack" && !slices.Contains(got, r.Rule):
						t.Errorf("%s %s, %s's attack %s: rules %q, want %s", p.Kind.Kind, p.At, who, r.Attack, got, r.Rule)
					case which == "neighbour" && len(got) > 0 && !refusedWhole(p.Kind):
						t.Errorf("%s %s, %s's neighbour %s: refused by %q", p.Kind.Kind, p.At, who, r.Neighbour, got)
					}
				}
			}
		}
	}
	t.Logf("%d probes", probes)
}

// TestBasesPass: the objects every probe starts from are refused by no
// rule, so that a refused attack is refused for its field.
func TestBasesPass(t *testing.T) {
	for _, k := range Scope() {
		if !k.Judged {
			if _, ok := bases[k.GroupKind()]; ok {
				t.Errorf("%s: a base for a kind the guard never sees", k.GroupKind())
			}
			continue
		}
		obj, err := Base(k.GroupKind(), blueValues)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		valid(t, k.GroupKind(), obj, "base")
		for who, user := range identities {
			if got := ids(judge(t, k.GroupKind(), obj, user)); len(got) > 0 && !refusedWhole(k.GroupKind()) {
				t.Errorf("%s as %s: base refused by %q", k.GroupKind(), who, got)
			}
		}
	}
}

// TestRowsAreWellFormed: each row has one verdict, says what it points
// at, and no two rows hold the same field.
func TestRowsAreWellFormed(t *testing.T) {
	seen := map[string]bool{}
	known := map[string]bool{}
	for _, r := range policy.Rules {
		known[r.ID] = true
	}
	for _, r := range Rows {
		key := r.On.String() + " " + r.Path
		n := 0
		for _, v := range []string{r.Rule, r.Safe, r.Open} {
			if v != "" {
				n++
			}
		}
		switch {
		case n != 1:
			t.Errorf("%s: %d verdicts, want one of rule, safe or open", key, n)
		case r.Rule != "" && !known[r.Rule]:
			t.Errorf("%s: rule %s is not in policy.Rules", key, r.Rule)
		case r.Points == "":
			t.Errorf("%s: says not what it points at", key)
		case seen[key]:
			t.Errorf("%s: listed twice", key)
		case strings.ContainsAny(r.Safe+r.Open+r.Points, "\n|"):
			t.Errorf("%s: a line break or pipe breaks the table", key)
		}
		seen[key] = true
	}
}

// TestDocsAreCurrent: docs/security.md holds the census as
// `go run ./hack/census` writes it.
func TestDocsAreCurrent(t *testing.T) {
	doc, err := os.ReadFile("../../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Splice(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(doc, want) {
		t.Fatal("docs/security.md's census is not the table's: run `go run ./hack/census` (make generate)")
	}
}
