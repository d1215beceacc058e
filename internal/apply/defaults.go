package apply

import (
	"fmt"
	"sync"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/apivalidation"
	"github.com/landlord-dev/landlord/internal/kinds"
)

// crdDefaults are the schemas of the custom kinds Landlord renders, from
// config/'s CRDs, by kind and version: what the API server defaults in an
// object of theirs.
var crdDefaults = sync.OnceValues(func() (map[schema.GroupVersionKind]*structuralschema.Structural, error) {
	crds, err := config.CRDs()
	if err != nil {
		return nil, err
	}
	out := map[schema.GroupVersionKind]*structuralschema.Structural{}
	for _, crd := range crds {
		k, known := kinds.Lookup(schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind})
		if !known || k.Owned == kinds.Unowned {
			continue
		}
		for _, v := range crd.Spec.Versions {
			_, s, err := apivalidation.CRDSchema(crd, v.Name)
			if err != nil {
				return nil, err
			}
			out[schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}] = s
		}
	}
	return out, nil
})

// defaulted sets in u what the API server defaults in an object of its
// kind, where u leaves it out.
func defaulted(u *unstructured.Unstructured) error {
	schemas, err := crdDefaults()
	if err != nil {
		return fmt.Errorf("reading config's CRDs: %w", err)
	}
	if s, ok := schemas[u.GroupVersionKind()]; ok {
		structuraldefaulting.Default(u.Object, s)
	}
	return nil
}
