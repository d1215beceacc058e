package policy

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// fuzzKinds are the judged kinds in a fixed order, so that a corpus entry's
// index names the same kind on every run, and one kind Decode does not know.
func fuzzKinds() []schema.GroupKind {
	gks := []schema.GroupKind{{Group: "example.com", Kind: "Widget"}}
	for gk := range kinds {
		gks = append(gks, gk)
	}
	slices.SortFunc(gks[1:], func(a, b schema.GroupKind) int { return strings.Compare(a.String(), b.String()) })
	return gks
}

// addSeeds adds every seed object, as JSON, under its kind's index.
func addSeeds(f *testing.F, add func(kind uint8, raw []byte)) {
	gks := fuzzKinds()
	s := seeds()
	for i, gk := range gks {
		raw, err := json.Marshal(s[gk])
		if err != nil {
			f.Fatal(err)
		}
		add(uint8(i), raw)
	}
	add(0, []byte(`{"metadata":{"labels":null}}`))
}

func FuzzDecode(f *testing.F) {
	addSeeds(f, func(kind uint8, raw []byte) { f.Add(kind, raw) })
	gks := fuzzKinds()
	f.Fuzz(func(t *testing.T, kind uint8, raw []byte) {
		gk := gks[int(kind)%len(gks)]
		obj, err := Decode(gk.WithVersion("v1"), raw)
		if err == nil && obj == nil && len(raw) > 0 && gk.Group != "example.com" {
			t.Fatalf("%s decoded to nothing without an error", gk)
		}
	})
}

// fuzzUsers are the identities a fuzzed request comes from.
var fuzzUsers = []authenticationv1.UserInfo{reconciler, owner, opsReconciler, controller, masters, fluxKustomize, stranger}

// fuzzNamespaces are the namespaces a fuzzed request is in.
var fuzzNamespaces = []string{"apps", "dev-team-x", "ops", "kube-system", ""}

var fuzzOperations = []admissionv1.Operation{admissionv1.Create, admissionv1.Update, admissionv1.Delete}

func FuzzEvaluate(f *testing.F) {
	addSeeds(f, func(kind uint8, raw []byte) {
		f.Add(kind, uint8(0), raw, raw)
		f.Add(kind, uint8(0x11), raw, []byte(`{}`))
	})
	gks := fuzzKinds()
	f.Fuzz(func(t *testing.T, kind, who uint8, raw, oldRaw []byte) {
		gvk := gks[int(kind)%len(gks)].WithVersion("v1")
		obj, err := Decode(gvk, raw)
		if err != nil {
			return
		}
		old, err := Decode(gvk, oldRaw)
		if err != nil {
			return
		}
		req := Request{
			Operation: fuzzOperations[int(who>>6)%len(fuzzOperations)],
			Namespace: fuzzNamespaces[int(who>>3&7)%len(fuzzNamespaces)],
			Object:    obj,
			OldObject: old,
			User:      fuzzUsers[int(who&7)%len(fuzzUsers)],
		}
		for _, allow := range []allowances{{}, {requireResources: true, workloadIdentity: true}} {
			for _, e := range evaluate(req, testTenants, func(*v1alpha1.Tenant) allowances { return allow }) {
				if RuleID(e) == "" {
					t.Fatalf("violation without a rule id: %v", e)
				}
			}
		}
		Default(req, testTenants)
	})
}
