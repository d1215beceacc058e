package dashboard

import (
	"context"
	"fmt"
	"slices"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// OwnTenants gets the Tenants the caller's own rules name, for a caller
// that may not list them: a tenant's owner is granted get on its Tenant
// by name.
func OwnTenants(ctx context.Context, c client.Client) ([]v1alpha1.Tenant, error) {
	// Cluster-wide rules show in the review of any namespace.
	review := &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "default"}}
	if err := c.Create(ctx, review); err != nil {
		return nil, fmt.Errorf("listing tenants is forbidden, and so is reviewing your own rules: %w", err)
	}
	var names []string
	for _, r := range review.Status.ResourceRules {
		if slices.Contains(r.APIGroups, v1alpha1.GroupVersion.Group) && slices.Contains(r.Resources, "tenants") &&
			(slices.Contains(r.Verbs, "get") || slices.Contains(r.Verbs, "*")) {
			names = append(names, r.ResourceNames...)
		}
	}
	slices.Sort(names)
	var tenants []v1alpha1.Tenant
	for _, name := range slices.Compact(names) {
		t := &v1alpha1.Tenant{}
		err := c.Get(ctx, client.ObjectKey{Name: name}, t)
		switch {
		case apierrors.IsNotFound(err) || apierrors.IsForbidden(err):
			continue
		case err != nil:
			return nil, fmt.Errorf("getting tenant %s: %w", name, err)
		}
		tenants = append(tenants, *t)
	}
	return tenants, nil
}
