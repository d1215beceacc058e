package policy

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/json"

	"github.com/landlord-dev/landlord/internal/kinds"
)

// judged are the kinds the rules judge (kinds.Kind.Judged), by group and
// kind: every served version decodes into the one typed there, so that an
// older version of a Flux kind is judged too rather than slipping through
// as unknown. The fields the rules read have kept their names across
// versions.
var judged = func() map[schema.GroupKind]func() client.Object {
	out := map[schema.GroupKind]func() client.Object{}
	for _, k := range kinds.Select(func(k kinds.Kind) bool { return k.Judged }) {
		out[k.GroupKind()] = k.New
	}
	return out
}()

// Decode turns an admission object's raw JSON and GroupVersionKind into the
// typed object the rules expect. Unknown kinds return nil, nil: not ours to
// judge. Field names match case-sensitively, as the apiserver's do, so that
// a mis-cased field the apiserver drops is not read here either.
func Decode(gvk schema.GroupVersionKind, raw []byte) (runtime.Object, error) {
	newObject, ok := judged[gvk.GroupKind()]
	if !ok || len(raw) == 0 {
		return nil, nil
	}
	obj := newObject()
	if err := json.UnmarshalCaseSensitivePreserveInts(raw, obj); err != nil {
		return nil, fmt.Errorf("decode %s: %w", gvk.GroupKind(), err)
	}
	return obj, nil
}
