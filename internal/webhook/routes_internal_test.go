package webhook

import (
	"testing"

	"github.com/landlord-dev/landlord/internal/kinds"
	"github.com/landlord-dev/landlord/internal/policy"
)

// TestRoutedKindsAreDecoded: every resource routed to the guard in tenant
// namespaces is of a kind the policy decodes, so no routed write is
// allowed for want of a decoder before any rule (LL010, LL028) runs; and
// every namespaced kind the policy judges is routed.
func TestRoutedKindsAreDecoded(t *testing.T) {
	routed := map[string]bool{}
	for _, r := range tenantObjectRules(allOperations) {
		for _, group := range r.APIGroups {
			for _, resource := range r.Resources {
				routed[group+"/"+resource] = true
				k, ok := kindOf(group, resource)
				if !ok {
					t.Errorf("%s/%s is routed, and the registry has no such kind", group, resource)
					continue
				}
				if obj, err := policy.Decode(k.GroupVersionKind, []byte(`{}`)); obj == nil || err != nil {
					t.Errorf("%s is routed, and the policy does not decode it (%v)", k.GroupKind(), err)
				}
			}
		}
	}
	for _, k := range kinds.All {
		if k.Judged && k.Namespaced && !k.InProcess && !routed[k.Group+"/"+k.Resource] {
			t.Errorf("%s is judged by its content, and never routed to the guard", k.GroupKind())
		}
	}
}

func kindOf(group, resource string) (kinds.Kind, bool) {
	for _, k := range kinds.All {
		if k.Group == group && k.Resource == resource {
			return k, true
		}
	}
	return kinds.Kind{}, false
}
