package audit

import (
	"context"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/kinds"
	"github.com/landlord-dev/landlord/internal/policy"
	"github.com/landlord-dev/landlord/internal/render"
)

// tenantRole checks what reaches every tenant through the tenant role's
// aggregation: the API server's policy judging it is installed, and each
// ClusterRole labelled into it passes that policy now (one labelled
// before the policy existed, or while it was deleted, would not have).
// The detail names the kinds tenants write that no rule of Landlord's
// judges, the platform's to vet.
func (a *Auditor) tenantRole(ctx context.Context) ([]Check, error) {
	c := Check{Kind: "role", Name: "the ClusterRoles aggregated into " + v1alpha1.DefaultRole + " pass LL018", Result: Pass}
	var problems []string
	for kind, obj := range map[string]client.Object{
		"ValidatingAdmissionPolicy":        &admissionregistrationv1.ValidatingAdmissionPolicy{},
		"ValidatingAdmissionPolicyBinding": &admissionregistrationv1.ValidatingAdmissionPolicyBinding{},
	} {
		err := a.Client.Get(ctx, client.ObjectKey{Name: policy.TenantRoleName}, obj)
		switch {
		case apierrors.IsNotFound(err):
			problems = append(problems, fmt.Sprintf("%s %s is missing: labelled roles join every tenant's role unjudged", kind, policy.TenantRoleName))
		case err != nil:
			return nil, fmt.Errorf("reading the policy %s: %w", policy.TenantRoleName, err)
		}
	}
	roles := &rbacv1.ClusterRoleList{}
	if err := a.Client.List(ctx, roles, client.MatchingLabels{v1alpha1.AggregateToTenantLabel: "true"}); err != nil {
		return nil, fmt.Errorf("listing the ClusterRoles aggregated into %s: %w", v1alpha1.DefaultRole, err)
	}
	var names, unjudged []string
	for i := range roles.Items {
		role := &roles.Items[i]
		names = append(names, role.Name)
		if errs := policy.AggregatedRole(role); len(errs) > 0 {
			problems = append(problems, errs.ToAggregate().Error())
		}
		if role.Name != render.TenantRulesRole {
			unjudged = append(unjudged, unknownKinds(role)...)
		}
	}
	switch {
	case len(problems) > 0:
		slices.Sort(problems)
		c.Result, c.Detail = Fail, strings.Join(problems, "; ")
	case len(unjudged) > 0:
		slices.Sort(unjudged)
		c.Detail = fmt.Sprintf("%s; kinds they add that no rule of Landlord's judges: %s", strings.Join(names, ", "), strings.Join(slices.Compact(unjudged), ", "))
	default:
		c.Detail = strings.Join(names, ", ")
	}
	return []Check{c}, nil
}

// unknownKinds are the group/resource pairs role grants that the registry
// of kinds does not hold, as "resource.group (role)".
func unknownKinds(role *rbacv1.ClusterRole) []string {
	var out []string
	for _, r := range role.Rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				name, _, _ := strings.Cut(res, "/")
				if !slices.ContainsFunc(kinds.All, func(k kinds.Kind) bool { return k.Group == g && k.Resource == name }) {
					out = append(out, strings.TrimSuffix(name+"."+g, ".")+" ("+role.Name+")")
				}
			}
		}
	}
	return out
}
