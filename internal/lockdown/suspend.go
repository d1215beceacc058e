package lockdown

import "github.com/landlord-dev/landlord/internal/kinds"

// Suspendable are the Flux kinds that act while spec.suspend is false
// (kinds.Kind.Suspended): a released namespace keeps every one of them
// suspended.
var Suspendable = kinds.GVKs(func(k kinds.Kind) bool { return k.Suspended })
