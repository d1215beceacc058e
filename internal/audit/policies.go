package audit

import (
	"context"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/policy"
)

// policies checks that the API server holds Landlord's admission policies
// and their bindings, each validation and variable (the cluster's default
// classes in the workloads policy's) as Landlord renders them: the rules
// they hold stop at once, silently, if one is deleted or edited, until the
// controller writes them again (as it starts, and at each hourly check of
// its certificate). The tenant role's is the role check's.
func (a *Auditor) policies(ctx context.Context) ([]Check, error) {
	c := Check{Kind: "admission", Name: "the API server holds Landlord's admission policies as rendered", Result: Pass}
	var problems, names []string
	// The workloads policy holds the cluster's default classes as the
	// controller last read them; without them it cannot be compared.
	defaults, err := policy.ClusterDefaults(ctx, a.Client)
	if err != nil {
		c.Result, c.Detail = Fail, fmt.Sprintf("the cluster's default classes could not be read, so the workloads policy cannot be compared: %v", err)
		return []Check{c}, nil
	}
	for _, want := range policy.ValidatingPolicies(policy.Platform{Defaults: defaults}) {
		if want.GetName() == policy.TenantRoleName {
			continue
		}
		kind := want.GetObjectKind().GroupVersionKind().Kind
		got := want.DeepCopyObject().(client.Object)
		err := a.Client.Get(ctx, client.ObjectKey{Name: want.GetName()}, got)
		switch {
		case apierrors.IsNotFound(err):
			problems = append(problems, fmt.Sprintf("%s %s is missing: its rules judge nothing", kind, want.GetName()))
			continue
		case err != nil:
			return nil, fmt.Errorf("reading %s %s: %w", kind, want.GetName(), err)
		}
		names = append(names, kind+" "+want.GetName())
		if problem := differs(want, got); problem != "" {
			problems = append(problems, fmt.Sprintf("%s %s %s", kind, want.GetName(), problem))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		c.Result, c.Detail = Fail, strings.Join(problems, "; ")
	} else {
		c.Detail = strings.Join(names, ", ")
	}
	return []Check{c}, nil
}

// differs says how the policy or binding the API server holds differs from
// Landlord's render, "" for not at all. The platform's identities in a
// policy's variables and match conditions are the controller's flags,
// which the audit does not know: it compares the validations, what they
// judge and how a binding acts.
func differs(want, got client.Object) string {
	switch w := want.(type) {
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		g := got.(*admissionregistrationv1.ValidatingAdmissionPolicy)
		kept := 0
		for _, v := range w.Spec.Validations {
			if slices.ContainsFunc(g.Spec.Validations, func(h admissionregistrationv1.Validation) bool {
				return h.Expression == v.Expression && h.MessageExpression == v.MessageExpression
			}) {
				kept++
			}
		}
		// Variables decide the verdicts as much as validations do; those
		// spelling the platform's identities are the controller's flags.
		var variables, keptVariables int
		for _, v := range w.Spec.Variables {
			if slices.Contains(policy.PlatformVariables, v.Name) {
				continue
			}
			variables++
			if slices.Contains(g.Spec.Variables, v) {
				keptVariables++
			}
		}
		switch {
		case kept < len(w.Spec.Validations):
			return fmt.Sprintf("holds %d of its %d validations as rendered", kept, len(w.Spec.Validations))
		case keptVariables < variables:
			return fmt.Sprintf("holds %d of its %d variables as rendered", keptVariables, variables)
		case g.Spec.MatchConstraints == nil || !equality.Semantic.DeepEqual(w.Spec.MatchConstraints.ResourceRules, g.Spec.MatchConstraints.ResourceRules) ||
			!equality.Semantic.DeepEqual(w.Spec.MatchConstraints.NamespaceSelector, g.Spec.MatchConstraints.NamespaceSelector) ||
			narrowed(g.Spec.MatchConstraints.ObjectSelector) || len(g.Spec.MatchConstraints.ExcludeResourceRules) > 0:
			return "matches other requests than rendered"
		case g.Spec.FailurePolicy == nil || *g.Spec.FailurePolicy != admissionregistrationv1.Fail:
			return "does not fail closed"
		}
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		g := got.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding)
		m := g.Spec.MatchResources
		if g.Spec.ParamRef != nil {
			return "reads a parameter, which no policy of Landlord's does"
		}
		if g.Spec.PolicyName != w.Spec.PolicyName || !slices.Contains(g.Spec.ValidationActions, admissionregistrationv1.Deny) ||
			m != nil && (len(m.ResourceRules) > 0 || len(m.ExcludeResourceRules) > 0 || narrowed(m.NamespaceSelector) || narrowed(m.ObjectSelector)) {
			return "does not deny what its policy refuses everywhere it matches"
		}
	}
	return ""
}

// narrowed reports whether a selector leaves out some objects; the API
// server defaults an unset one to the empty selector, which selects all.
func narrowed(s *metav1.LabelSelector) bool {
	return s != nil && (len(s.MatchLabels) > 0 || len(s.MatchExpressions) > 0)
}
