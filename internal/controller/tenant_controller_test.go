package controller_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// A bound for a loaded CI machine; drift and status follow watches and
// settle in well under a second here.
const timeout = 60 * time.Second

func newTenant(name string, namespaces ...string) *v1alpha1.Tenant {
	t := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.TenantSpec{
			Owners:    []v1alpha1.Owner{{Kind: "Group", Name: name + "-owners"}},
			Quota:     &v1alpha1.Quota{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("20")}},
			Variables: map[string]string{"CLUSTER": "test"},
		},
	}
	for _, ns := range namespaces {
		t.Spec.Namespaces = append(t.Spec.Namespaces, v1alpha1.TenantNamespace{Name: ns})
	}
	return t
}

func create(t *testing.T, tenant *v1alpha1.Tenant) {
	t.Helper()
	if err := k8s.Create(ctx, tenant); err != nil {
		t.Fatalf("creating tenant %s: %v", tenant.Name, err)
	}
}

// eventually polls check until it returns nil or the timeout passes.
func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	testenv.Eventually(t, timeout, func() error {
		if err := check(); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	})
}

func condition(name, kind string) (*metav1.Condition, error) {
	tenant := &v1alpha1.Tenant{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: name}, tenant); err != nil {
		return nil, err
	}
	c := apimeta.FindStatusCondition(tenant.Status.Conditions, kind)
	if c == nil {
		return nil, fmt.Errorf("no %s condition yet", kind)
	}
	if tenant.Status.ObservedGeneration != tenant.Generation {
		return nil, fmt.Errorf("status of generation %d, spec at %d", tenant.Status.ObservedGeneration, tenant.Generation)
	}
	return c, nil
}

func waitReady(t *testing.T, name string) {
	t.Helper()
	eventually(t, "tenant "+name+" Ready", func() error {
		c, err := condition(name, v1alpha1.ReadyCondition)
		if err != nil {
			return err
		}
		if c.Status != metav1.ConditionTrue {
			return fmt.Errorf("Ready=%s %s: %s", c.Status, c.Reason, c.Message)
		}
		return nil
	})
}

// updateTenant changes a Tenant's spec, retrying while the controller
// writes its finalizer or status.
func updateTenant(t *testing.T, name string, mutate func(*v1alpha1.Tenant)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		tenant := &v1alpha1.Tenant{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: name}, tenant); err != nil {
			return err
		}
		mutate(tenant)
		return k8s.Update(ctx, tenant)
	})
	if err != nil {
		t.Fatalf("updating tenant %s: %v", name, err)
	}
}

func exists(obj client.Object) error {
	return k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj)
}

func gone(obj client.Object) error {
	err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("%T %s still exists (deleting: %v)", obj, client.ObjectKeyFromObject(obj), obj.GetDeletionTimestamp() != nil)
}

func deleteTenant(t *testing.T, name string) {
	t.Helper()
	if err := k8s.Delete(ctx, &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: name}}); client.IgnoreNotFound(err) != nil {
		t.Fatal(err)
	}
	eventually(t, "tenant "+name+" finalized", func() error {
		return gone(&v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: name}})
	})
}

func TestTenantProvisionsEveryRenderedObject(t *testing.T) {
	t.Parallel()
	tenant := newTenant("provision", "provision-apps", "provision-jobs")
	tenant.Spec.Sources = []v1alpha1.Source{{
		Name: "apps",
		Git:  &v1alpha1.GitSource{URL: "https://git.example.com/provision/apps", Ref: &v1alpha1.GitRef{Branch: "main"}},
	}}
	create(t, tenant)
	t.Cleanup(func() { deleteTenant(t, tenant.Name) })

	want, err := render.Objects(tenant, render.Holdings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range want {
		eventually(t, fmt.Sprintf("%T %s", obj, client.ObjectKeyFromObject(obj)), func() error {
			return exists(obj.DeepCopyObject().(client.Object))
		})
	}
	// Without Flux controllers the source never syncs, and status says so.
	eventually(t, "status reports the unsynced source", func() error {
		c, err := condition(tenant.Name, v1alpha1.ReadyCondition)
		if err != nil {
			return err
		}
		if c.Reason != "SourceNotReady" {
			return fmt.Errorf("Ready reason %s: %s", c.Reason, c.Message)
		}
		return nil
	})
	got := &v1alpha1.Tenant{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: tenant.Name}, got); err != nil {
		t.Fatal(err)
	}
	if n := len(got.Status.Namespaces); n != 2 || got.Status.Namespaces[1].Origin != v1alpha1.NamespaceOriginPlatform {
		t.Errorf("status namespaces = %+v, want both with origin Platform", got.Status.Namespaces)
	}
	if len(got.Status.Sources) != 1 || got.Status.Sources[0].Ready {
		t.Errorf("status sources = %+v, want one source not ready", got.Status.Sources)
	}
}

func TestReconcilerIsConfinedToItsNamespaces(t *testing.T) {
	t.Parallel()
	tenant := newTenant("confined", "confined-a", "confined-b")
	other := newTenant("neighbour", "neighbour-a")
	create(t, tenant)
	create(t, other)
	t.Cleanup(func() { deleteTenant(t, tenant.Name); deleteTenant(t, other.Name) })
	waitReady(t, tenant.Name)
	waitReady(t, other.Name)

	reconciler := fmt.Sprintf("system:serviceaccount:confined-a:%s", tenant.ReconcilerName())
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:confined-a", "system:authenticated"}
	cases := map[string]struct {
		attrs authorizationv1.ResourceAttributes
		allow bool
	}{
		"create deployments in confined-a":        {authorizationv1.ResourceAttributes{Namespace: "confined-a", Verb: "create", Group: "apps", Resource: "deployments"}, true},
		"create deployments in confined-b":        {authorizationv1.ResourceAttributes{Namespace: "confined-b", Verb: "create", Group: "apps", Resource: "deployments"}, true},
		"create configmaps in confined-a":         {authorizationv1.ResourceAttributes{Namespace: "confined-a", Verb: "create", Resource: "configmaps"}, true},
		"create configmaps in confined-b":         {authorizationv1.ResourceAttributes{Namespace: "confined-b", Verb: "create", Resource: "configmaps"}, true},
		"create helmreleases in confined-a":       {authorizationv1.ResourceAttributes{Namespace: "confined-a", Verb: "create", Group: "helm.toolkit.fluxcd.io", Resource: "helmreleases"}, true},
		"create helmreleases in confined-b":       {authorizationv1.ResourceAttributes{Namespace: "confined-b", Verb: "create", Group: "helm.toolkit.fluxcd.io", Resource: "helmreleases"}, true},
		"create deployments in default":           {authorizationv1.ResourceAttributes{Namespace: "default", Verb: "create", Group: "apps", Resource: "deployments"}, false},
		"create configmaps in default":            {authorizationv1.ResourceAttributes{Namespace: "default", Verb: "create", Resource: "configmaps"}, false},
		"create helmreleases in default":          {authorizationv1.ResourceAttributes{Namespace: "default", Verb: "create", Group: "helm.toolkit.fluxcd.io", Resource: "helmreleases"}, false},
		"create deployments in another tenant":    {authorizationv1.ResourceAttributes{Namespace: "neighbour-a", Verb: "create", Group: "apps", Resource: "deployments"}, false},
		"create configmaps in another tenant":     {authorizationv1.ResourceAttributes{Namespace: "neighbour-a", Verb: "create", Resource: "configmaps"}, false},
		"create helmreleases in another tenant":   {authorizationv1.ResourceAttributes{Namespace: "neighbour-a", Verb: "create", Group: "helm.toolkit.fluxcd.io", Resource: "helmreleases"}, false},
		"create clusterrolebindings":              {authorizationv1.ResourceAttributes{Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}, false},
		"create namespaces":                       {authorizationv1.ResourceAttributes{Verb: "create", Resource: "namespaces"}, false},
		"update its resourcequota":                {authorizationv1.ResourceAttributes{Namespace: "confined-a", Verb: "update", Resource: "resourcequotas", Name: "landlord-quota"}, false},
		"patch its resourcequota":                 {authorizationv1.ResourceAttributes{Namespace: "confined-b", Verb: "patch", Resource: "resourcequotas", Name: "landlord-quota"}, false},
		"delete its resourcequota":                {authorizationv1.ResourceAttributes{Namespace: "confined-a", Verb: "delete", Resource: "resourcequotas", Name: "landlord-quota"}, false},
		"update its limitrange":                   {authorizationv1.ResourceAttributes{Namespace: "confined-a", Verb: "update", Resource: "limitranges"}, false},
		"request a token for its service account": {authorizationv1.ResourceAttributes{Namespace: "confined-a", Verb: "create", Resource: "serviceaccounts", Subresource: "token"}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User: reconciler, Groups: groups, ResourceAttributes: &tc.attrs,
			}}
			if err := k8s.Create(ctx, sar); err != nil {
				t.Fatal(err)
			}
			if sar.Status.Allowed != tc.allow {
				t.Errorf("allowed = %v, want %v (%s)", sar.Status.Allowed, tc.allow, sar.Status.Reason)
			}
		})
	}

	// The same through a real request, impersonating the reconciler.
	as := impersonate(reconciler, groups...)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "confined-b"}}
	if err := as.Create(ctx, cm); err != nil {
		t.Errorf("reconciler creating a ConfigMap in its namespace: %v", err)
	}
	escape := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "escape", Namespace: "neighbour-a"}}
	if err := as.Create(ctx, escape); !apierrors.IsForbidden(err) {
		t.Errorf("reconciler creating a ConfigMap in another tenant's namespace: err = %v, want Forbidden", err)
	}
}

func TestDeletedGuardRailsAreRestored(t *testing.T) {
	t.Parallel()
	tenant := newTenant("drift", "drift-apps")
	create(t, tenant)
	t.Cleanup(func() { deleteTenant(t, tenant.Name) })
	waitReady(t, tenant.Name)

	rails := map[string]client.Object{
		"NetworkPolicy":          &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "drift-apps", Name: "landlord-isolation"}},
		"ResourceQuota":          &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "drift-apps", Name: "landlord-quota"}},
		"reconciler RoleBinding": &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "drift-apps", Name: "landlord-reconciler"}},
		"owners RoleBinding":     &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "drift-apps", Name: "landlord-owners"}},
	}
	for name, obj := range rails {
		t.Run("deleted "+name, func(t *testing.T) {
			if err := exists(obj); err != nil {
				t.Fatal(err)
			}
			uid := obj.GetUID()
			if err := k8s.Delete(ctx, obj); err != nil {
				t.Fatal(err)
			}
			eventually(t, name+" restored", func() error {
				fresh := obj.DeepCopyObject().(client.Object)
				if err := exists(fresh); err != nil {
					return err
				}
				if fresh.GetUID() == uid {
					return fmt.Errorf("not deleted yet")
				}
				return nil
			})
		})
	}

	t.Run("edited ResourceQuota", func(t *testing.T) {
		quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "drift-apps", Name: "landlord-quota"}}
		// The quota controller writes its status meanwhile (and the
		// restore of the deleted quota above may still land): edit the
		// latest version.
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := exists(quota); err != nil {
				return err
			}
			quota.Spec.Hard[corev1.ResourcePods] = resource.MustParse("1000")
			return k8s.Update(ctx, quota)
		})
		if err != nil {
			t.Fatal(err)
		}
		eventually(t, "quota restored", func() error {
			if err := exists(quota); err != nil {
				return err
			}
			if got := quota.Spec.Hard[corev1.ResourcePods]; got.String() != "20" {
				return fmt.Errorf("pods quota %s", got.String())
			}
			return nil
		})
	})
}

func TestNamespaceRemovedFromSpec(t *testing.T) {
	t.Parallel()
	for short, policy := range map[string]v1alpha1.DeletionPolicy{"del": v1alpha1.DeletionPolicyDelete, "ret": v1alpha1.DeletionPolicyRetain} {
		t.Run(string(policy), func(t *testing.T) {
			t.Parallel()
			name := "shrink-" + short
			tenant := newTenant(name, name+"-keep", name+"-drop")
			tenant.Spec.DeletionPolicy = policy
			create(t, tenant)
			t.Cleanup(func() { deleteTenant(t, tenant.Name) })
			waitReady(t, tenant.Name)

			workload := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: tenant.Name + "-drop", Name: "workload"}}
			if err := k8s.Create(ctx, workload); err != nil {
				t.Fatal(err)
			}
			updateTenant(t, tenant.Name, func(t *v1alpha1.Tenant) { t.Spec.Namespaces = t.Spec.Namespaces[:1] })
			dropped := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenant.Name + "-drop"}}
			if policy == v1alpha1.DeletionPolicyDelete {
				eventually(t, "dropped namespace deleted and finalized", func() error { return gone(dropped) })
				return
			}
			eventually(t, "dropped namespace released", func() error {
				if err := exists(dropped); err != nil {
					return err
				}
				if len(dropped.Labels[v1alpha1.TenantLabel]+dropped.Labels[v1alpha1.ManagedByLabel]) > 0 {
					return fmt.Errorf("still marked: %v", dropped.Labels)
				}
				return nil
			})
			waitReady(t, tenant.Name)
			if err := exists(workload); err != nil {
				t.Errorf("workload in the released namespace: %v", err)
			}
			t.Cleanup(func() { _ = k8s.Delete(ctx, dropped) })
		})
	}
}

func TestTenantDeletion(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		policy   v1alpha1.DeletionPolicy
		released bool
	}{
		"del": {v1alpha1.DeletionPolicyDelete, false},
		"ret": {v1alpha1.DeletionPolicyRetain, true},
	}
	for short, tc := range cases {
		t.Run(string(tc.policy), func(t *testing.T) {
			t.Parallel()
			tenant := newTenant("bye-"+short, "bye-"+short+"-a", "bye-"+short+"-b")
			tenant.Spec.DeletionPolicy = tc.policy
			tenant.Spec.ExtraClusterRoles = []string{"view"}
			tenant.Spec.Sources = []v1alpha1.Source{{Name: "apps", Git: &v1alpha1.GitSource{URL: "https://git.example.com/bye/apps"}}}
			create(t, tenant)
			eventually(t, "provisioned", func() error {
				return exists(&kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Namespace: "bye-" + short + "-a", Name: "apps"}})
			})
			// A namespace Landlord did not create, placed beside the tenant's.
			foreign := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bye-" + short + "-foreign"}}
			if err := k8s.Create(ctx, foreign); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = k8s.Delete(ctx, foreign) })

			rendered, err := render.Objects(tenant, render.Holdings{})
			if err != nil {
				t.Fatal(err)
			}
			deleteTenant(t, tenant.Name)

			for _, obj := range rendered {
				obj := obj.DeepCopyObject().(client.Object)
				_, namespace := obj.(*corev1.Namespace)
				// Access and syncing end with the Tenant; data and guard rails stay.
				access := slices.Contains([]string{"ClusterRole", "ClusterRoleBinding", "RoleBinding", "ServiceAccount", "Kustomization", "GitRepository"},
					obj.GetObjectKind().GroupVersionKind().Kind)
				if !tc.released || access {
					eventually(t, fmt.Sprintf("%T %s gone", obj, client.ObjectKeyFromObject(obj)), func() error { return gone(obj) })
					continue
				}
				if err := exists(obj); err != nil {
					t.Errorf("released %T %s: %v", obj, client.ObjectKeyFromObject(obj), err)
					continue
				}
				if l := obj.GetLabels(); l[v1alpha1.TenantLabel] != "" || l[v1alpha1.ManagedByLabel] != "" {
					t.Errorf("released %T %s still marked: %v", obj, client.ObjectKeyFromObject(obj), l)
				}
				if namespace && obj.GetLabels()[v1alpha1.ReleasedLabel] != tenant.Name {
					t.Errorf("released namespace %s not marked released: %v", obj.GetName(), obj.GetLabels())
				}
				if namespace {
					t.Cleanup(func() { _ = k8s.Delete(ctx, obj) })
				}
			}
			if err := exists(foreign); err != nil || foreign.DeletionTimestamp != nil {
				t.Errorf("namespace Landlord did not create: err=%v deleting=%v", err, foreign.DeletionTimestamp != nil)
			}
		})
	}
}

func TestNamespaceNotCreatedByLandlordIsNeverTakenOver(t *testing.T) {
	t.Parallel()
	legacy := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "legacy-apps", Labels: map[string]string{"team": "legacy"}}}
	if err := k8s.Create(ctx, legacy); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, legacy) })
	owner := newTenant("first", "first-apps")
	create(t, owner)
	t.Cleanup(func() { deleteTenant(t, owner.Name) })
	waitReady(t, owner.Name)

	tenant := newTenant("grabby", "grabby-apps", "legacy-apps", "first-apps")
	create(t, tenant)
	eventually(t, "conflicts reported", func() error {
		c, err := condition(tenant.Name, v1alpha1.ReadyCondition)
		if err != nil {
			return err
		}
		if c.Reason != "NamespaceConflict" {
			return fmt.Errorf("Ready reason %s: %s", c.Reason, c.Message)
		}
		return nil
	})
	got := &v1alpha1.Tenant{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: tenant.Name}, got); err != nil {
		t.Fatal(err)
	}
	ready := map[string]bool{}
	for _, ns := range got.Status.Namespaces {
		ready[ns.Name] = ns.Ready
	}
	if !ready["grabby-apps"] || ready["legacy-apps"] || ready["first-apps"] {
		t.Errorf("namespace status = %+v, want only grabby-apps ready", got.Status.Namespaces)
	}
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "legacy-apps", Name: "landlord-quota"}}
	if err := gone(quota); err != nil {
		t.Errorf("guard rails applied to a namespace not taken over: %v", err)
	}
	// Whoever holds first-apps could make an account named like the
	// reconciler there: it must not be bound in grabby's namespaces.
	binding := &rbacv1.RoleBinding{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "grabby-apps", Name: render.ReconcilerBinding}, binding); err != nil {
		t.Fatal(err)
	}
	if len(binding.Subjects) != 1 || binding.Subjects[0].Namespace != "grabby-apps" {
		t.Errorf("reconciler binding subjects %+v, want grabby-apps's reconciler alone", binding.Subjects)
	}

	deleteTenant(t, tenant.Name)
	for _, ns := range []string{"legacy-apps", "first-apps"} {
		obj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
		if err := exists(obj); err != nil || obj.DeletionTimestamp != nil {
			t.Errorf("namespace %s of someone else: err=%v deleting=%v", ns, err, obj.DeletionTimestamp != nil)
		}
	}
	if err := exists(legacy); err == nil && legacy.Labels[v1alpha1.TenantLabel] != "" {
		t.Errorf("legacy namespace was labelled: %v", legacy.Labels)
	}
}

func TestSpecThatCannotWorkStalls(t *testing.T) {
	t.Parallel()
	tenant := newTenant("stalled", "stalled-apps")
	tenant.Spec.Quota.Hard[corev1.ResourcePods] = resource.MustParse("-1")
	create(t, tenant)
	t.Cleanup(func() { deleteTenant(t, tenant.Name) })
	eventually(t, "Stalled", func() error {
		c, err := condition(tenant.Name, v1alpha1.StalledCondition)
		if err != nil {
			return err
		}
		if c.Status != metav1.ConditionTrue {
			return fmt.Errorf("Stalled=%s", c.Status)
		}
		return nil
	})
}

func TestSourceRemovedFromSpecIsPruned(t *testing.T) {
	t.Parallel()
	tenant := newTenant("sources", "sources-apps")
	tenant.Spec.Sources = []v1alpha1.Source{
		{Name: "one", Git: &v1alpha1.GitSource{URL: "https://git.example.com/sources/one"}},
		{Name: "two", Git: &v1alpha1.GitSource{URL: "https://git.example.com/sources/two"}, Prune: ptr.To(false)},
	}
	create(t, tenant)
	t.Cleanup(func() { deleteTenant(t, tenant.Name) })
	two := &sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Namespace: "sources-apps", Name: "two"}}
	eventually(t, "second source created", func() error { return exists(two) })

	updateTenant(t, tenant.Name, func(t *v1alpha1.Tenant) { t.Spec.Sources = t.Spec.Sources[:1] })
	eventually(t, "GitRepository pruned", func() error { return gone(two) })
	eventually(t, "Kustomization pruned", func() error {
		return gone(&kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Namespace: "sources-apps", Name: "two"}})
	})
	if err := exists(&sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Namespace: "sources-apps", Name: "one"}}); err != nil {
		t.Errorf("kept source: %v", err)
	}
	eventually(t, "each deletion told on the Tenant", func() error {
		return toldOn(tenant.Name, "Pruned", "deleted GitRepository sources-apps/two", "deleted Kustomization sources-apps/two")
	})
}

// toldOn checks that the Tenant has an Event of reason whose note holds each text.
func toldOn(tenant, reason string, texts ...string) error {
	events := &eventsv1.EventList{}
	if err := k8s.List(ctx, events, client.InNamespace(metav1.NamespaceDefault)); err != nil {
		return err
	}
	for _, text := range texts {
		if !slices.ContainsFunc(events.Items, func(e eventsv1.Event) bool {
			return e.Regarding.Kind == "Tenant" && e.Regarding.Name == tenant && e.Reason == reason && strings.Contains(e.Note, text)
		}) {
			return fmt.Errorf("no %s Event on Tenant %s saying %q among %d", reason, tenant, text, len(events.Items))
		}
	}
	return nil
}
