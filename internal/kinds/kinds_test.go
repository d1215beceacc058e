package kinds_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/kinds"
)

// TestRegistryHoldsTogether: what each use of the registry needs of a kind
// is there, and no kind is granted to tenants for writing without a
// judgement or a stated reason.
func TestRegistryHoldsTogether(t *testing.T) {
	seen := map[schema.GroupKind]bool{}
	for _, k := range kinds.All {
		name := k.GroupKind().String()
		if seen[k.GroupKind()] {
			t.Errorf("%s: listed twice", name)
		}
		seen[k.GroupKind()] = true
		if k.Resource == "" || k.Version == "" {
			t.Errorf("%s: no resource or version", name)
		}
		writable := k.Tenant == kinds.Write || k.Tenant == kinds.Create
		switch {
		case writable && !k.Judged && k.Unjudged == "":
			t.Errorf("%s: tenants may write it, yet it is neither judged nor says why it need not be", name)
		case k.Judged && k.Unjudged != "":
			t.Errorf("%s: judged, and says it needs no judgement", name)
		case k.Judged && k.New == nil:
			t.Errorf("%s: judged with no decoder", name)
		case k.InProcess && !k.Judged:
			t.Errorf("%s: judged by its labels alone, yet not judged", name)
		case k.Owned != kinds.Unowned && (k.New == nil || k.NewList == nil):
			t.Errorf("%s: owned, yet the controller cannot cache, watch or list it", name)
		case k.Stamped && (k.Owned == kinds.Unowned || !k.Judged || !k.Namespaced):
			t.Errorf("%s: stamped, so it must be owned (pruned), judged (LL010 keeps it from tenants) and namespaced", name)
		case k.Suspended && !strings.HasSuffix(k.Group, ".toolkit.fluxcd.io"):
			t.Errorf("%s: suspended on release, yet not a Flux kind", name)
		case k.SharedWith != "" && k.Owned == kinds.Unowned:
			t.Errorf("%s: says who shares Landlord's objects of a kind it does not own", name)
		}
		for sub, access := range k.Subresources {
			if access == kinds.Write && sub != "scale" {
				t.Errorf("%s/%s: tenants may write a subresource other than scale", name, sub)
			}
		}
	}
}

// TestControllerRoleCoversTheRegistry: the controller's generated RBAC
// (config/rbac, from the markers) lets it cache, watch, create, change
// and delete every kind it owns, and list and patch every kind it suspends.
func TestControllerRoleCoversTheRegistry(t *testing.T) {
	roles, err := config.ControllerRoles()
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{}
	for _, role := range roles {
		rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
		for _, r := range rules {
			r := r.(map[string]any)
			groups, _, _ := unstructured.NestedStringSlice(r, "apiGroups")
			resources, _, _ := unstructured.NestedStringSlice(r, "resources")
			verbs, _, _ := unstructured.NestedStringSlice(r, "verbs")
			for _, g := range groups {
				for _, res := range resources {
					for _, v := range verbs {
						allowed[g+"/"+res+":"+v] = true
					}
				}
			}
		}
	}
	need := func(k kinds.Kind, verbs ...string) {
		for _, v := range verbs {
			if !allowed[k.Group+"/"+k.Resource+":"+v] {
				t.Errorf("the controller's role lacks %s on %s.%s", v, k.Resource, k.Group)
			}
		}
	}
	for _, k := range kinds.All {
		if k.Owned != kinds.Unowned {
			need(k, "get", "list", "watch", "create", "update", "patch", "delete")
		}
		if k.Suspended {
			need(k, "list", "patch")
		}
	}
}

// TestTenantResourceSchemaNamesTheStampedKinds: the TenantResource CRD's
// validation rule admits exactly the kinds the registry lets it stamp.
func TestTenantResourceSchemaNamesTheStampedKinds(t *testing.T) {
	crds, err := config.LandlordCRDs()
	if err != nil {
		t.Fatal(err)
	}
	var rule string
	for _, crd := range crds {
		if crd.Spec.Names.Kind != "TenantResource" {
			continue
		}
		for _, v := range crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["objects"].XValidations {
			if strings.Contains(v.Rule, "o.kind") {
				rule = v.Rule
			}
		}
	}
	if rule == "" {
		t.Fatal("no rule on spec.objects naming kinds")
	}
	// Each alternative is (o.apiVersion == 'V' && o.kind in [...]) or == 'K'.
	var admitted []string
	alternative := regexp.MustCompile(`o\.apiVersion == '([^']+)' && o\.kind (?:in \[([^\]]+)\]|== '([^']+)')`)
	for _, m := range alternative.FindAllStringSubmatch(rule, -1) {
		names := m[3]
		if m[2] != "" {
			names = m[2]
		}
		for _, n := range strings.Split(names, ",") {
			admitted = append(admitted, m[1]+" "+strings.Trim(strings.TrimSpace(n), "'"))
		}
	}
	var stamped []string
	for _, k := range kinds.Select(func(k kinds.Kind) bool { return k.Stamped }) {
		stamped = append(stamped, k.GroupVersion().String()+" "+k.Kind)
	}
	slices.Sort(admitted)
	slices.Sort(stamped)
	if !slices.Equal(admitted, stamped) {
		t.Errorf("the CRD admits %v, the registry stamps %v:\n%s", admitted, stamped, rule)
	}
}
