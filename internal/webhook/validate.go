package webhook

import (
	"context"
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/policy"
)

// denials counts refused writes per tenant concerned and rule.
var denials = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "landlord_admission_denials_total",
	Help: "Writes the admission webhook refused, by tenant concerned and first rule violated.",
}, []string{"tenant", "rule"})

func init() {
	metrics.Registry.MustRegister(denials)
}

// validator answers the validating webhook with policy.Evaluate.
type validator struct {
	tenants  policy.Tenants
	platform policy.Platform
	recorder events.EventRecorder
}

var _ admission.Handler = &validator{}

// Handle allows the request or denies it with every violation, 403 and the
// first rule id as reason.
func (v *validator) Handle(ctx context.Context, req admission.Request) admission.Response {
	preq, err := policyRequest(req)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	preq.Platform = v.platform
	// A namespaced kind the rules do not know is not theirs to judge; a
	// cluster-scoped one is, whatever its kind (LL014).
	if preq.Object == nil && preq.OldObject == nil && req.Namespace != "" {
		return admission.Allowed("")
	}
	errs := policy.Evaluate(preq, v.tenants)
	if len(errs) == 0 {
		return admission.Allowed("")
	}
	rule := policy.RuleID(errs[0])
	message := errs.ToAggregate().Error()
	tenant := v.concerned(req)
	// A dry run changes nothing, so it leaves no trace either.
	if req.DryRun == nil || !*req.DryRun {
		name := ""
		if tenant != nil {
			name = tenant.Name
			v.recorder.Eventf(tenant, nil, corev1.EventTypeWarning, rule, "Denied", "%s", message)
		}
		denials.WithLabelValues(name, rule).Inc()
	}
	resp := admission.Denied(message)
	resp.Result.Code = http.StatusForbidden
	resp.Result.Reason = metav1.StatusReason(rule)
	return resp
}

// concerned is the Tenant a denial is about: the owner of the namespace
// written in, or of the Namespace written, else the writer's own.
func (v *validator) concerned(req admission.Request) *v1alpha1.Tenant {
	if t := v.tenants.ForNamespace(req.Namespace); t != nil {
		return t
	}
	if req.Kind.Group == "" && req.Kind.Kind == "Namespace" {
		if t := v.tenants.ForNamespace(req.Name); t != nil {
			return t
		}
	}
	if actsFor := v.tenants.ForUser(req.UserInfo); len(actsFor) > 0 {
		return actsFor[0]
	}
	return nil
}

// policyRequest decodes an admission request into the policy's terms;
// objects of kinds the policy does not judge decode to nil.
func policyRequest(req admission.Request) (policy.Request, error) {
	gvk := schema.GroupVersionKind(req.Kind)
	obj, err := policy.Decode(gvk, req.Object.Raw)
	if err != nil {
		return policy.Request{}, fmt.Errorf("decoding the object: %w", err)
	}
	old, err := policy.Decode(gvk, req.OldObject.Raw)
	if err != nil {
		return policy.Request{}, fmt.Errorf("decoding the old object: %w", err)
	}
	return policy.Request{
		Operation: req.Operation,
		Namespace: req.Namespace,
		Object:    obj,
		OldObject: old,
		User:      req.UserInfo,
	}, nil
}
