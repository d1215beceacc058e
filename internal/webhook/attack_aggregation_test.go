package webhook_test

import (
	"fmt"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/render"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// aggregated is a ClusterRole the platform adds to every tenant's role.
func aggregated(name string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1alpha1.AggregateToTenantLabel: "true"}},
		Rules:      rules,
	}
}

// serviceMonitors is the platform's monitoring CRD's kind, as a rule.
var serviceMonitors = rbacv1.PolicyRule{APIGroups: []string{"monitoring.coreos.com"}, Resources: []string{"servicemonitors"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}}

// TestAttacksAggregatedRoles: the platform extends every tenant's role by
// labelling a ClusterRole, which the API server's policy judges (LL018)
// before Kubernetes' aggregation controller adds its rules; tenants label
// none.
func TestAttacksAggregatedRoles(t *testing.T) {
	const (
		ownKinds = "the platform adds its CRD's kind"
		relabel  = "the platform labels a role of its CRD's kind"
	)
	labelled := func(name string, rule rbacv1.PolicyRule) func(client.Client) error {
		return func(c client.Client) error {
			role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: []rbacv1.PolicyRule{rule}}
			if err := k8s.Create(ctx, role); err != nil && !apierrors.IsAlreadyExists(err) {
				return err
			}
			t.Cleanup(func() { _ = k8s.Delete(ctx, role) })
			role.Labels = map[string]string{v1alpha1.AggregateToTenantLabel: "true"}
			return c.Update(ctx, role, dry)
		}
	}
	runAttacks(t, map[string]attack{
		ownKinds: {as: "platform", do: create(aggregated("monitoring-for-tenants", serviceMonitors))},
		relabel:  {as: "platform", do: labelled("monitoring-relabelled", serviceMonitors)},
		"the platform adds token creation": {as: "platform", do: create(aggregated("tokens-for-tenants",
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"serviceaccounts/token"}, Verbs: []string{"create"}})), want: "LL018", near: ownKinds},
		"the platform adds impersonation": {as: "platform", do: create(aggregated("sudo-for-tenants",
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"serviceaccounts"}, Verbs: []string{"impersonate"}})), want: "LL018", near: ownKinds},
		"the platform adds constrained impersonation": {as: "platform", do: create(aggregated("act-as-for-tenants",
			rbacv1.PolicyRule{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"serviceaccounts"}, Verbs: []string{"impersonate:serviceaccount"}})), want: "LL018", near: ownKinds},
		"the platform adds every verb on everything": {as: "platform", do: create(aggregated("all-for-tenants",
			rbacv1.PolicyRule{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}})), want: "LL018", near: ownKinds},
		"the platform adds bind on admin": {as: "platform", do: create(aggregated("bind-admin-for-tenants",
			rbacv1.PolicyRule{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"clusterroles"}, Verbs: []string{"bind"}, ResourceNames: []string{"admin"}})), want: "LL018", near: ownKinds},
		"the platform labels a role that mints tokens": {as: "platform", do: labelled("tokens-relabelled",
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"*/token"}, Verbs: []string{"create"}}), want: "LL018", near: relabel},
		// An aggregating role's rules come later, from roles nobody judged.
		"the platform adds a role aggregating admin's": {as: "platform", do: func(c client.Client) error {
			role := aggregated("admin-for-tenants")
			role.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-admin": "true"}}}}
			return c.Create(ctx, role, dry)
		}, want: "LL018", near: ownKinds},
		"a tenant extends every tenant's role": {as: "leaky", do: create(aggregated("blue-for-everyone", serviceMonitors)), want: "LL018", near: ownKinds, rbacFirst: "owner"},
	})
}

// TestAggregatedRoleReachesTenants: a kind the platform adds by label
// reaches tenant blue's owners and reconciler in its namespaces, the
// tenant role keeps its own rules when Landlord's roles are applied
// again, and the kind leaves with the label.
func TestAggregatedRoleReachesTenants(t *testing.T) {
	attackWorld(t)
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "servicemonitors.monitoring.coreos.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "monitoring.coreos.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "ServiceMonitor", ListKind: "ServiceMonitorList", Plural: "servicemonitors", Singular: "servicemonitor"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)}}}},
		},
	}
	if err := k8s.Create(ctx, crd); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	monitor := func() *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("monitoring.coreos.com/v1")
		u.SetKind("ServiceMonitor")
		u.SetNamespace("blue-apps")
		u.SetName("web")
		return u
	}
	writeMonitor := func(as string) error {
		return identities[as].Create(ctx, monitor(), dry)
	}
	testenv.Eventually(t, 30*time.Second, func() error { // the CRD served
		return client.IgnoreNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: "blue-apps", Name: "web"}, monitor()))
	})
	for _, as := range []string{"owner", "reconciler"} {
		if err := writeMonitor(as); !apierrors.IsForbidden(err) {
			t.Fatalf("as %s before the platform's role: %v, want Forbidden by RBAC", as, err)
		}
	}

	role := aggregated("monitoring-for-tenants", serviceMonitors)
	if err := k8s.Create(ctx, role); err != nil {
		t.Fatal(err)
	}
	for _, as := range []string{"owner", "reconciler"} {
		testenv.Eventually(t, 30*time.Second, func() error { return writeMonitor(as) })
	}

	// Landlord's roles applied again, as an upgrade does: the aggregated
	// rules stay, and so do the tenant role's own.
	if err := install.Prerequisites(ctx, k8s); err != nil {
		t.Fatal(err)
	}
	tenantRole := &rbacv1.ClusterRole{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: v1alpha1.DefaultRole}, tenantRole); err != nil {
		t.Fatal(err)
	}
	if want := len(render.TenantRules().Rules) + 1; len(tenantRole.Rules) != want {
		t.Errorf("after install, %s has %d rules, want its own and the platform's, %d", v1alpha1.DefaultRole, len(tenantRole.Rules), want)
	}
	if err := writeMonitor("owner"); err != nil {
		t.Errorf("after install: %v", err)
	}

	delete(role.Labels, v1alpha1.AggregateToTenantLabel)
	if err := k8s.Update(ctx, role); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, role) })
	testenv.Eventually(t, 30*time.Second, func() error {
		if err := writeMonitor("owner"); !apierrors.IsForbidden(err) {
			return fmt.Errorf("the label removed, the owner still writes ServiceMonitors: %v", err)
		}
		return nil
	})
}
