package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fluxcd/pkg/envsubst"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/kinds"
)

// Stamp is one object a TenantResource keeps in each namespace of the
// tenants it selects.
type Stamp struct {
	// From names the TenantResource.
	From string
	// Field is where the object is declared, for messages:
	// spec.objects[i] or spec.secrets[i].
	Field string
	// Object is the object as JSON, namespace unset.
	Object []byte
	// Verbatim objects (copied Secrets) get no variable substitution.
	Verbatim bool
}

// StampKinds are the kinds a TenantResource may stamp (kinds.Kind.Stamped),
// the kinds the guard judges in tenant namespaces, so that LL010 keeps
// them from tenants.
var StampKinds = kinds.Select(func(k kinds.Kind) bool { return k.Stamped })

// stamped renders each stamp into namespace ns: variables substituted,
// decoded strictly into its kind, Landlord's labels and the
// TenantResource's name set.
func stamped(t *v1alpha1.Tenant, ns string, stamps []Stamp) ([]client.Object, error) {
	vars := maps.Clone(t.Spec.Variables)
	if vars == nil {
		vars = map[string]string{}
	}
	vars[TenantNameVariable], vars[TenantNamespaceVariable] = t.Name, ns
	objects := make([]client.Object, 0, len(stamps))
	for _, s := range stamps {
		obj, err := s.decode(vars)
		if err != nil {
			return nil, fmt.Errorf("TenantResource %s: %s: %w", s.From, s.Field, err)
		}
		obj.SetNamespace(ns)
		labels := obj.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		maps.Copy(labels, map[string]string{
			v1alpha1.TenantLabel:         t.Name,
			v1alpha1.ManagedByLabel:      v1alpha1.ManagedByValue,
			v1alpha1.TenantResourceLabel: s.From,
		})
		obj.SetLabels(labels)
		objects = append(objects, obj)
	}
	return objects, nil
}

// decode substitutes vars and decodes the stamp into its typed kind,
// refusing fields the kind does not have.
func (s Stamp) decode(vars map[string]string) (client.Object, error) {
	raw := s.Object
	if !s.Verbatim {
		out, err := envsubst.Eval(string(raw), func(name string) (string, bool) {
			v, ok := vars[name]
			return jsonEscaped(v), ok
		})
		if err != nil {
			return nil, fmt.Errorf("substituting variables (set for this tenant: TENANT_NAME, TENANT_NAMESPACE and spec.variables): %w", err)
		}
		raw = []byte(out)
	}
	var id struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(raw, &id); err != nil {
		return nil, err
	}
	gvk := schema.FromAPIVersionAndKind(id.APIVersion, id.Kind)
	i := slices.IndexFunc(StampKinds, func(k kinds.Kind) bool { return k.GroupVersionKind == gvk })
	if i < 0 {
		return nil, fmt.Errorf("kind %s is not stamped; allowed: %s", gvk, stampKindNames())
	}
	obj := StampKinds[i].New()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(obj); err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj, nil
}

// jsonEscaped is v as it stands inside a JSON string, so that no value
// can close the string and write fields of its own.
func jsonEscaped(v string) string {
	quoted, _ := json.Marshal(v)
	return string(quoted[1 : len(quoted)-1])
}

// clashes refuses two objects of one kind at one name: a stamp over one of
// Landlord's own guard rails, or two TenantResources stamping one name.
func clashes(objects []client.Object) error {
	seen := map[string]string{}
	for _, obj := range objects {
		key := fmt.Sprintf("%s %s/%s", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetNamespace(), obj.GetName())
		from := obj.GetLabels()[v1alpha1.TenantResourceLabel]
		if other, ok := seen[key]; ok {
			return fmt.Errorf("%s is stamped by %s and %s; one name, one writer", key, describeOrigin(other), describeOrigin(from))
		}
		seen[key] = from
	}
	return nil
}

func describeOrigin(tenantResource string) string {
	if tenantResource == "" {
		return "Landlord's own render"
	}
	return "TenantResource " + tenantResource
}

// stampKindNames lists StampKinds for messages.
func stampKindNames() string {
	names := make([]string, len(StampKinds))
	for i, k := range StampKinds {
		names[i] = k.GroupVersion().String() + " " + k.Kind
	}
	return strings.Join(names, ", ")
}
