package apply_test

import (
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/landlord-dev/landlord/internal/apply"
)

func entry(manager string, op metav1.ManagedFieldsOperationType, subresource, fields string) metav1.ManagedFieldsEntry {
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: op, Subresource: subresource, APIVersion: "v1",
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
}

func object(entries ...metav1.ManagedFieldsEntry) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetResourceVersion("42")
	u.SetManagedFields(entries)
	return u
}

const quotaFields = `{"f:metadata":{"f:labels":{".":{},"f:team":{}}},"f:spec":{"f:hard":{".":{},"f:pods":{},"f:services":{}}}}`

func TestUnset(t *testing.T) {
	owned, applied, err := apply.Owned(object(entry("landlord", metav1.ManagedFieldsOperationApply, "", quotaFields)), "landlord")
	if err != nil || !applied {
		t.Fatalf("Owned: applied %v, %v", applied, err)
	}
	cases := map[string]struct {
		desired string
		unset   string
	}{
		"everything still set":    {`{"metadata":{"labels":{"team":"a"}},"spec":{"hard":{"pods":"1","services":"2"}}}`, ""},
		"a key removed":           {`{"metadata":{"labels":{"team":"a"}},"spec":{"hard":{"pods":"1"}}}`, ".spec.hard.services"},
		"a label removed":         {`{"metadata":{"labels":{}},"spec":{"hard":{"pods":"1","services":"2"}}}`, ".metadata.labels.team"},
		"more set than owned yet": {`{"metadata":{"labels":{"team":"a","x":"y"}},"spec":{"hard":{"pods":"1","services":"2","secrets":"3"}}}`, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var desired map[string]any
			if err := json.Unmarshal([]byte(tc.desired), &desired); err != nil {
				t.Fatal(err)
			}
			path, unset := apply.Unset(owned, desired)
			if got := ""; unset {
				got = path.String()
				if got != tc.unset {
					t.Errorf("unset %s, want %q", got, tc.unset)
				}
			} else if tc.unset != "" {
				t.Errorf("nothing unset, want %s", tc.unset)
			}
		})
	}
}

// Items of associative lists and sets are found by their key or value,
// not their place.
func TestUnsetFindsListItemsByKey(t *testing.T) {
	fields := `{"f:metadata":{"f:finalizers":{"v:\"a\"":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{}}}}}`
	owned, _, err := apply.Owned(object(entry("landlord", metav1.ManagedFieldsOperationApply, "", fields)), "landlord")
	if err != nil {
		t.Fatal(err)
	}
	var moved map[string]any
	_ = json.Unmarshal([]byte(`{"metadata":{"finalizers":["b","a"]},"spec":{"containers":[{"name":"side"},{"name":"app","image":"x"}]}}`), &moved)
	if path, unset := apply.Unset(owned, moved); unset {
		t.Errorf("reordered items reported unset: %s", path)
	}
	var dropped map[string]any
	_ = json.Unmarshal([]byte(`{"metadata":{"finalizers":["a"]},"spec":{"containers":[{"name":"side","image":"x"}]}}`), &dropped)
	if path, unset := apply.Unset(owned, dropped); !unset || path.String() != `.spec.containers[name="app"]` {
		t.Errorf("a dropped container: unset %v at %s", unset, path)
	}
}

func TestHandover(t *testing.T) {
	status := entry("kube-controller-manager", metav1.ManagedFieldsOperationUpdate, "status", `{"f:status":{"f:used":{}}}`)
	created := entry("landlord", metav1.ManagedFieldsOperationUpdate, "", `{"f:spec":{"f:hard":{"f:pods":{}}}}`)
	applied := entry("landlord", metav1.ManagedFieldsOperationApply, "", `{"f:spec":{"f:hard":{"f:services":{}}}}`)
	edited := entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate, "", `{"f:spec":{"f:hard":{"f:secrets":{}}}}`)
	annotated := entry("platform", metav1.ManagedFieldsOperationApply, "", `{"f:metadata":{"f:annotations":{"f:iam":{}}}}`)
	both := entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate, "", `{"f:metadata":{"f:annotations":{"f:iam":{}}},"f:spec":{"f:hard":{"f:secrets":{}}}}`)
	spec := []string{"spec"}

	cases := map[string]struct {
		entries  []metav1.ManagedFieldsEntry
		takeBack []string
		pending  bool
		// taken: other writers hold what Landlord takes back; its own
		// create waits for a change that must remove a field of it.
		taken bool
		owned string
		kept  []string
	}{
		"settled":                           {[]metav1.ManagedFieldsEntry{applied, status}, spec, false, false, "", nil},
		"a create of its own":               {[]metav1.ManagedFieldsEntry{created, status}, nil, true, false, ".spec.hard.pods", []string{"kube-controller-manager"}},
		"a create and an apply":             {[]metav1.ManagedFieldsEntry{created, applied}, nil, true, false, ".spec.hard.pods\n.spec.hard.services", nil},
		"another writer, left":              {[]metav1.ManagedFieldsEntry{applied, edited}, nil, false, false, "", nil},
		"another writer, taken back":        {[]metav1.ManagedFieldsEntry{applied, edited, status}, spec, true, true, ".spec.hard.secrets\n.spec.hard.services", []string{"kube-controller-manager"}},
		"another writer's annotation, left": {[]metav1.ManagedFieldsEntry{applied, annotated}, spec, false, false, "", nil},
		"another writer's spec field taken, its annotation left": {[]metav1.ManagedFieldsEntry{applied, both}, spec, true, true,
			".spec.hard.secrets\n.spec.hard.services", []string{"kubectl-edit"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			obj := object(tc.entries...)
			if got := apply.Pending(obj, "landlord", tc.takeBack); got != tc.pending {
				t.Fatalf("Pending %v, want %v", got, tc.pending)
			}
			if got := apply.Taken(obj, "landlord", tc.takeBack); got != tc.taken {
				t.Errorf("Taken %v, want %v", got, tc.taken)
			}
			if !tc.pending {
				return
			}
			raw, err := apply.Handover(obj, "landlord", tc.takeBack)
			if err != nil {
				t.Fatal(err)
			}
			var ops []struct {
				Op, Path string
				Value    json.RawMessage
			}
			if err := json.Unmarshal(raw, &ops); err != nil {
				t.Fatal(err)
			}
			if len(ops) != 2 || ops[0].Path != "/metadata/resourceVersion" || string(ops[0].Value) != `"42"` || ops[1].Path != "/metadata/managedFields" {
				t.Fatalf("patch %s: want the resourceVersion guard, then managedFields", raw)
			}
			var entries []metav1.ManagedFieldsEntry
			if err := json.Unmarshal(ops[1].Value, &entries); err != nil {
				t.Fatal(err)
			}
			after := object(entries...)
			if apply.Pending(after, "landlord", tc.takeBack) {
				t.Errorf("still pending after the hand-over: %s", ops[1].Value)
			}
			owned, _, err := apply.Owned(after, "landlord")
			if err != nil {
				t.Fatal(err)
			}
			if got := owned.Leaves().String(); got != tc.owned {
				t.Errorf("owned after the hand-over:\n%s\nwant\n%s", got, tc.owned)
			}
			var kept []string
			for _, e := range entries {
				if e.Manager != "landlord" {
					kept = append(kept, e.Manager)
				}
			}
			if len(kept) != len(tc.kept) || len(kept) > 0 && kept[0] != tc.kept[0] {
				t.Errorf("other entries kept %v, want %v", kept, tc.kept)
			}
		})
	}
}

// TestOwnedHoldsCreateAndApply: what Landlord owns is what its create and
// its applies hold, never another writer's or a subresource's.
func TestOwnedHoldsCreateAndApply(t *testing.T) {
	obj := object(
		entry("landlord", metav1.ManagedFieldsOperationUpdate, "", `{"f:spec":{"f:hard":{"f:pods":{}}}}`),
		entry("landlord", metav1.ManagedFieldsOperationApply, "", `{"f:spec":{"f:hard":{"f:services":{}}}}`),
		entry("landlord", metav1.ManagedFieldsOperationUpdate, "status", `{"f:status":{"f:used":{}}}`),
		entry("kubectl-edit", metav1.ManagedFieldsOperationUpdate, "", `{"f:spec":{"f:hard":{"f:secrets":{}}}}`),
	)
	owned, held, err := apply.Owned(obj, "landlord")
	if err != nil || !held {
		t.Fatalf("Owned: %v, held %v", err, held)
	}
	if got, want := owned.Leaves().String(), ".spec.hard.pods\n.spec.hard.services"; got != want {
		t.Errorf("owned:\n%s\nwant\n%s", got, want)
	}
}
