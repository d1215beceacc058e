package webhook

import (
	"context"
	"net/http"

	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/landlord-dev/landlord/internal/policy"
)

// mutator answers the mutating webhook with policy.Default.
type mutator struct {
	tenants policy.Tenants
}

var _ admission.Handler = &mutator{}

// Handle allows the request with the policy's default patches, if any.
func (m *mutator) Handle(_ context.Context, req admission.Request) admission.Response {
	preq, err := policyRequest(req)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if preq.Object == nil {
		return admission.Allowed("")
	}
	return admission.Patched("", policy.Default(preq, m.tenants)...)
}
