package webhook

import (
	"context"
	"net/http"

	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/landlord-dev/landlord/internal/policy"
)

// mutator answers the mutating webhook with policy.Default.
type mutator struct {
	index *Index
}

var _ admission.Handler = &mutator{}

// Handle allows the request with the policy's default patches, if any.
func (m *mutator) Handle(ctx context.Context, req admission.Request) admission.Response {
	preq, err := policyRequest(req)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if preq.Object == nil {
		return admission.Allowed("")
	}
	reads := m.index.For(ctx)
	patches := policy.Default(preq, reads.Resolver())
	if err := reads.Err(); err != nil {
		return undecided(err)
	}
	return admission.Patched("", patches...)
}
