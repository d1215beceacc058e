package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/policy"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// denials counts refused writes per requesting tenant and rule; targeted
// counts them per tenant whose namespace another identity tried to write.
var (
	denials = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "landlord_admission_denials_total",
		Help: "Writes the admission webhook refused, by the tenant that made them (empty for identities of no tenant) and first rule violated.",
	}, []string{"tenant", "rule"})
	targeted = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "landlord_admission_denials_targeting_total",
		Help: "Writes the admission webhook refused in a tenant's namespaces that another identity made, by tenant targeted and first rule violated.",
	}, []string{"tenant", "rule"})
)

func init() {
	metrics.Registry.MustRegister(denials, targeted)
}

// validator answers the validating webhook with policy.Evaluate.
type validator struct {
	index    *Index
	shared   *sharedCache
	platform policy.Platform
	events   *denialEvents
	// creates judges namespace creations with exact self-service counts.
	creates *selfServiceCreates
}

var _ admission.Handler = &validator{}

// Handle allows the request or denies it with every violation, 403 and the
// first rule id as reason; a tenant's write to a namespace not its own is
// denied as NotFound, the rule and message left to the Event and metric.
func (v *validator) Handle(ctx context.Context, req admission.Request) admission.Response {
	preq, err := policyRequest(req)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	reads, shared := v.index.For(ctx), v.shared.For(ctx)
	tenants := reads.Resolver()
	preq.Platform, preq.Shared = v.platform, shared
	errs := v.evaluate(req, preq, reads)
	if err := errors.Join(reads.Err(), shared.Err()); err != nil {
		return undecided(err)
	}
	if len(errs) == 0 {
		return admission.Allowed("")
	}
	rule := policy.RuleID(errs[0])
	message := errs.ToAggregate().Error()
	// A dry run changes nothing, so it leaves no trace either.
	if req.DryRun == nil || !*req.DryRun {
		v.record(req, tenants, rule, message)
	}
	resp := admission.Denied(message)
	if policy.Hidden(errs) {
		// The apiserver's own answer for a name that does not exist, so that
		// a tenant cannot tell another's namespace from no namespace.
		status := apierrors.NewNotFound(corev1.Resource("namespaces"), req.Name).Status()
		resp.Result = &status
		return resp
	}
	resp.Result.Code = http.StatusForbidden
	resp.Result.Reason = metav1.StatusReason(rule)
	return resp
}

// evaluate judges the request; a namespace created with a tenant label
// is judged with that tenant's creations in order and counted exactly.
func (v *validator) evaluate(req admission.Request, preq policy.Request, reads *Reads) field.ErrorList {
	ns, creating := preq.Object.(*corev1.Namespace)
	tenant := ""
	if creating {
		tenant = ns.Labels[v1alpha1.TenantLabel]
	}
	// Only a creation by an identity of that tenant counts against its
	// allowance: any other is judged without waiting on the tenant's turn,
	// so that a label naming another tenant delays nobody.
	if req.Operation != admissionv1.Create || tenant == "" || v.creates == nil || !actsFor(reads.Resolver(), req.UserInfo, tenant) {
		return policy.Evaluate(preq, reads.Resolver())
	}
	var errs field.ErrorList
	v.creates.judge(reads, tenant, ns.Name, req.DryRun != nil && *req.DryRun, func(tenants tenancy.Resolver) bool {
		errs = policy.Evaluate(preq, tenants)
		return len(errs) == 0
	})
	return errs
}

// record counts a denial against the tenant that made the request, with
// an Event on it, and, when the write aimed at another tenant's namespace,
// against that tenant too under its own metric and reason, so that one
// tenant's attempts never read as another's misconduct.
func (v *validator) record(req admission.Request, tenants tenancy.Resolver, rule, message string) {
	target := target(req, tenants)
	requester := requester(req, tenants, target)
	// The object refused, named on the Event for whoever reads it.
	written := &corev1.ObjectReference{
		APIVersion: schema.GroupVersion{Group: req.Kind.Group, Version: req.Kind.Version}.String(),
		Kind:       req.Kind.Kind, Namespace: req.Namespace, Name: req.Name,
	}
	name := ""
	if requester != nil {
		name = requester.Name
		v.events.record(requester, written, rule, "Denied", fmt.Sprintf("%s was denied: %s", req.UserInfo.Username, message))
	}
	denials.WithLabelValues(name, rule).Inc()
	if target != nil && (requester == nil || requester.Name != target.Name) {
		targeted.WithLabelValues(target.Name, rule).Inc()
		v.events.record(target, written, "Targeted", rule,
			fmt.Sprintf("%s, acting for %s, was denied: %s", req.UserInfo.Username, tenantName(requester), message))
	}
}

// target is the Tenant holding the namespace written in, or the Namespace
// written.
func target(req admission.Request, tenants tenancy.Resolver) *v1alpha1.Tenant {
	if req.Kind.Group == "" && req.Kind.Kind == "Namespace" {
		return tenants.ForNamespace(req.Name)
	}
	return tenants.ForNamespace(req.Namespace)
}

// requester is the Tenant the writer acts for: the target when the writer
// acts for it, else the first by name.
func requester(req admission.Request, tenants tenancy.Resolver, target *v1alpha1.Tenant) *v1alpha1.Tenant {
	actsFor := tenants.ForUser(req.UserInfo)
	for _, t := range actsFor {
		if target != nil && t.Name == target.Name {
			return t
		}
	}
	if len(actsFor) > 0 {
		return actsFor[0]
	}
	return nil
}

// decode is policy.Decode, or the object's metadata for a kind it does not
// decode; nil for no object.
func decode(gvk schema.GroupVersionKind, raw []byte) (runtime.Object, error) {
	obj, err := policy.Decode(gvk, raw)
	if obj != nil || err != nil || len(raw) == 0 {
		return obj, err
	}
	meta := &metav1.PartialObjectMetadata{}
	if err := json.Unmarshal(raw, meta); err != nil {
		return nil, fmt.Errorf("decode the metadata of %s: %w", gvk.GroupKind(), err)
	}
	return meta, nil
}

func tenantName(t *v1alpha1.Tenant) string {
	if t == nil {
		return "no tenant"
	}
	return "tenant " + t.Name
}

// policyRequest decodes an admission request into the policy's terms;
// objects of kinds the policy does not decode keep their metadata, which
// the in-process rules judge whatever the kind.
func policyRequest(req admission.Request) (policy.Request, error) {
	gvk := schema.GroupVersionKind(req.Kind)
	obj, err := decode(gvk, req.Object.Raw)
	if err != nil {
		return policy.Request{}, fmt.Errorf("decoding the object: %w", err)
	}
	old, err := decode(gvk, req.OldObject.Raw)
	if err != nil {
		return policy.Request{}, fmt.Errorf("decoding the old object: %w", err)
	}
	return policy.Request{
		Operation: req.Operation,
		Namespace: req.Namespace,
		Object:    obj,
		OldObject: old,
		Kind:      gvk.GroupKind(),
		Name:      req.Name,
		User:      req.UserInfo,
	}, nil
}

// undecided refuses a request the guard could not judge, naming what it
// could not read: a decision made without it would be a guess, and an
// allow by default is how confinement fails quietly.
// A request too large to judge within the budget is refused as such.
func undecided(err error) admission.Response {
	if errors.Is(err, ErrTooManyReads) {
		return admission.Denied("landlord refuses this request: " + err.Error())
	}
	return admission.Errored(http.StatusServiceUnavailable, fmt.Errorf("landlord could not judge this request, so it is refused: %w", err))
}

// actsFor reports whether the user acts for the named tenant.
func actsFor(tenants tenancy.Resolver, user authenticationv1.UserInfo, tenant string) bool {
	return slices.ContainsFunc(tenants.ForUser(user), func(t *v1alpha1.Tenant) bool { return t.Name == tenant })
}
