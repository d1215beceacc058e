package lockdown

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/landlord-dev/landlord/internal/kinds"
)

// Suspendable are the Flux kinds that act while spec.suspend is false
// (kinds.Kind.Suspended): a released namespace keeps every one of them
// suspended.
var Suspendable = func() []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for _, k := range kinds.Select(func(k kinds.Kind) bool { return k.Suspended }) {
		out = append(out, k.GroupVersionKind)
	}
	return out
}()
