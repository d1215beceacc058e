package audit

import (
	"context"
	"fmt"
	"slices"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/kinds"
)

// identity is a tenant identity as the authorizer sees it.
type identity struct {
	label  string
	user   string
	groups []string
}

// clientAs is a client impersonating id, for dry-run writes the API
// server authorizes and admits as id's.
func (a *Auditor) clientAs(id identity) (client.Client, error) {
	cfg := rest.CopyConfig(a.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: id.user, Groups: id.groups}
	return client.New(cfg, client.Options{Scheme: a.Client.Scheme()})
}

// reconcilerOf is the identity Flux impersonates for the tenant.
func reconcilerOf(t *v1alpha1.Tenant) identity {
	ns := t.HomeNamespace()
	return identity{
		label:  "reconciler",
		user:   "system:serviceaccount:" + ns + ":" + t.ReconcilerName(),
		groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
	}
}

// ownersOf are the tenant's owners; a group owner is audited as a member
// with no other group.
func ownersOf(t *v1alpha1.Tenant) []identity {
	var ids []identity
	for _, o := range t.Spec.Owners {
		switch o.Kind {
		case rbacv1.UserKind:
			ids = append(ids, identity{label: "owner " + o.Name, user: o.Name, groups: []string{"system:authenticated"}})
		case rbacv1.GroupKind:
			ids = append(ids, identity{label: "owner group " + o.Name, user: "landlord-audit:member-of:" + o.Name, groups: []string{o.Name, "system:authenticated"}})
		case rbacv1.ServiceAccountKind:
			ids = append(ids, identity{label: "owner " + o.Namespace + "/" + o.Name,
				user:   "system:serviceaccount:" + o.Namespace + ":" + o.Name,
				groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + o.Namespace, "system:authenticated"}})
		}
	}
	return ids
}

// permission is one question to the authorizer and the answer confinement
// needs.
type permission struct {
	attrs authorizationv1.ResourceAttributes
	want  bool
}

func (p permission) String() string {
	a := p.attrs
	what := a.Resource
	if a.Subresource != "" {
		what += "/" + a.Subresource
	}
	if a.Group != "" {
		what += "." + a.Group
	}
	if a.Name != "" {
		what += " " + a.Name
	}
	where := "cluster-wide"
	if a.Namespace != "" {
		where = "in " + a.Namespace
	}
	may := "may not"
	if p.want {
		may = "may"
	}
	return fmt.Sprintf("%s %s %s %s", may, a.Verb, what, where)
}

// permissions are what a tenant identity must and must not be allowed: its
// work in its namespaces, and nothing that reaches past them or loosens
// what the platform set.
func permissions(t *v1alpha1.Tenant, neighbour string) []permission {
	home := t.HomeNamespace()
	on := func(verb, group, resource, ns string, want bool) permission {
		return permission{attrs: authorizationv1.ResourceAttributes{Verb: verb, Group: group, Resource: resource, Namespace: ns}, want: want}
	}
	ps := []permission{
		on("create", "apps", "deployments", home, true),
		on("create", "apps", "deployments", neighbour, false),
		on("create", "", "configmaps", "kube-system", false),
		on("get", "", "secrets", "flux-system", false),
		on("create", "rbac.authorization.k8s.io", "clusterrolebindings", "", false),
		on("create", "rbac.authorization.k8s.io", "clusterroles", "", false),
		on("create", "apiextensions.k8s.io", "customresourcedefinitions", "", false),
		on("update", "landlord.dev", "tenants", "", false),
		on("impersonate", "", "serviceaccounts", "", false),
		on("delete", "", "resourcequotas", home, false),
	}
	// What the tenant role grants read only (kinds.Kind.Tenant) may not be
	// changed: the platform's guard rails, what the cluster reports.
	for _, k := range kinds.Select(func(k kinds.Kind) bool { return k.Tenant == kinds.Read && k.Namespaced }) {
		ps = append(ps, on("update", k.Group, k.Resource, home, false))
	}
	// Whatever may not be updated may not be patched either.
	for _, p := range slices.Clone(ps) {
		if p.attrs.Verb == "update" && !p.want {
			patch := p
			patch.attrs.Verb = "patch"
			ps = append(ps, patch)
		}
	}
	for _, verb := range []string{"update", "patch"} {
		// Self-service grants patch on namespaces, as Flux applies them
		// server-side; the guard confines it, which the escapes prove.
		if verb == "update" || t.Spec.SelfService == nil {
			home := on(verb, "", "namespaces", "", false)
			home.attrs.Name = t.HomeNamespace()
			ps = append(ps, home)
		}
		// Flux's controllers trust their objects' status, and Landlord
		// folds it into the Tenant's.
		for _, k := range trustedStatus {
			status := on(verb, k.Group, k.Resource, t.HomeNamespace(), false)
			status.attrs.Subresource = "status"
			ps = append(ps, status)
		}
	}
	deleteHome := on("delete", "", "namespaces", "", false)
	deleteHome.attrs.Name = home
	token := on("create", "", "serviceaccounts", home, false)
	token.attrs.Subresource = "token"
	return append(ps, deleteHome, token, on("impersonate", "", "users", "", false), on("impersonate", "", "groups", "", false))
}

// trustedStatus are the kinds whose status the audit proves read-only
// (kinds.Kind.TrustedStatus).
var trustedStatus = kinds.Select(func(k kinds.Kind) bool { return k.TrustedStatus })

// access asks the authorizer every permission of every tenant identity.
func (a *Auditor) access(ctx context.Context, t *v1alpha1.Tenant, neighbour string) ([]Check, error) {
	var checks []Check
	for _, id := range append([]identity{reconcilerOf(t)}, ownersOf(t)...) {
		for _, p := range permissions(t, neighbour) {
			sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User: id.user, Groups: id.groups, ResourceAttributes: &p.attrs,
			}}
			if err := a.Client.Create(ctx, sar); err != nil {
				return nil, fmt.Errorf("asking whether %s %s: %w", id.user, p, err)
			}
			c := Check{Tenant: t.Name, Kind: "access", Name: id.label + " " + p.String(), Result: Pass}
			if sar.Status.Allowed != p.want {
				c.Result = Fail
				c.Detail = "the authorizer says the opposite"
				if sar.Status.Reason != "" {
					c.Detail += ": " + sar.Status.Reason
				}
			}
			checks = append(checks, c)
		}
	}
	return checks, nil
}
