package webhook_test

import (
	"context"
	"errors"
	"fmt"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/policy"
	"github.com/landlord-dev/landlord/internal/render"
	"github.com/landlord-dev/landlord/internal/testenv"
	"github.com/landlord-dev/landlord/internal/webhook"
)

// Attacks on the in-process rules (LL010, LL026, LL028 as the API
// server's ValidatingAdmissionPolicy, policy.InProcess, with writers
// holding a wildcard grant sent to wildcard.landlord.dev).
//
// Tenant ipx attacks tenant ipy. Two of ipx's owners hold a platform
// mistake, as leaky does in the attack suite: wanda is cluster-admin, so
// her RBAC markers say nothing and the webhook judges her; eddie holds
// the built-in edit role cluster-wide, which is no wildcard on tenants,
// so the API server judges him.

// inProcessAttack is one request and the rule that must refuse it, "" for
// a legitimate neighbour.
type inProcessAttack struct {
	as   client.Client
	do   func(client.Client) error
	want string
	// near names the legitimate neighbour of an attack.
	near string
}

var (
	ipWorld sync.Once
	ipWanda = authenticationv1.UserInfo{Username: "wanda", Groups: []string{"ipx-team", "system:authenticated"}}
	ipEddie = authenticationv1.UserInfo{Username: "eddie", Groups: []string{"ipx-team", "system:authenticated"}}
)

// inProcessWorld provisions ipx (with a quota) and ipy, the mistakes of
// wanda and eddie, and in ipy-apps a Deployment, a Pod and a Lease for the
// attacks to aim at; in ipx-apps their neighbours' Deployment and account.
func inProcessWorld(t *testing.T) {
	t.Helper()
	ipWorld.Do(func() {
		for _, name := range []string{"ipx", "ipy"} {
			tenant := &v1alpha1.Tenant{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: v1alpha1.TenantSpec{
					Namespaces: []v1alpha1.TenantNamespace{{Name: name + "-apps"}},
					Owners:     []v1alpha1.Owner{{Kind: "Group", Name: name + "-team"}},
					Quota:      &v1alpha1.Quota{Hard: corev1.ResourceList{corev1.ResourcePods: mustQuantity("20")}},
				},
			}
			if err := k8s.Create(ctx, tenant); err != nil {
				t.Fatal(err)
			}
		}
		for user, role := range map[string]string{"wanda": "cluster-admin", "eddie": "edit"} {
			mistake := &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "ipx-mistake-" + user},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
				Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: user, APIGroup: rbacv1.GroupName}},
			}
			if err := k8s.Create(ctx, mistake); err != nil {
				t.Fatal(err)
			}
		}
		waitReady(t, "ipx", "ipy")
		// The markers reach the authorizer.
		testenv.Eventually(t, 30*time.Second, func() error {
			return errors.Join(
				marker(ipEddie, "ipx", render.ActForVerb, true),
				marker(authenticationv1.UserInfo{Username: "system:serviceaccount:ipy-apps:ipy", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ipy-apps"}}, "ipy", render.ActForVerb, true))
		})
		for _, ns := range []string{"ipx-apps", "ipy-apps"} {
			d := deployment("default")
			d.Namespace = ns
			p := pod("default")
			p.Namespace, p.Name = ns, "web-0"
			objs := []client.Object{d, p,
				&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "leader"}},
				&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ci"}},
			}
			for _, obj := range objs {
				if err := k8s.Create(ctx, obj); err != nil {
					t.Fatalf("%s/%s: %v", ns, obj.GetName(), err)
				}
			}
		}
	})
}

// waitReady waits for the named Tenants to be Ready.
func waitReady(t *testing.T, names ...string) {
	t.Helper()
	testenv.Eventually(t, 60*time.Second, func() error {
		for _, name := range names {
			tenant := &v1alpha1.Tenant{}
			if err := k8s.Get(ctx, client.ObjectKey{Name: name}, tenant); err != nil {
				return err
			}
			if !metaReady(tenant) {
				return fmt.Errorf("tenant %s not ready: %+v", name, tenant.Status.Conditions)
			}
		}
		return nil
	})
}

// marker asks the API server's authorizer whether u holds verb on the
// named tenant, as the in-process policy asks it, and wants allowed.
func marker(u authenticationv1.UserInfo, tenant, verb string, allowed bool) error {
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: u.Username, Groups: u.Groups,
		ResourceAttributes: &authorizationv1.ResourceAttributes{Group: v1alpha1.GroupVersion.Group, Resource: render.IdentityResource, Name: tenant, Verb: verb},
	}}
	if err := k8s.Create(ctx, sar); err != nil {
		return err
	}
	if sar.Status.Allowed != allowed {
		return fmt.Errorf("%s %s %s: allowed %v, want %v", u.Username, verb, tenant, sar.Status.Allowed, allowed)
	}
	return nil
}

// runInProcessAttacks sends each request: an attack must come back 403
// naming its rule, a neighbour must pass.
func runInProcessAttacks(t *testing.T, attacks map[string]inProcessAttack) {
	t.Helper()
	for name, a := range attacks {
		if a.want != "" {
			if n, ok := attacks[a.near]; !ok || n.want != "" {
				t.Errorf("%s: neighbour %q is not a legitimate request of the table", name, a.near)
			}
		}
		t.Run(name, func(t *testing.T) {
			err := a.do(a.as)
			switch {
			case a.want == "" && err != nil:
				t.Errorf("legitimate request refused: %v", err)
			case a.want == "":
			case deniedBy(err, a.want):
			default:
				t.Errorf("got %v, want a denial by %s", err, a.want)
			}
		})
	}
}

// deniedBy reports a 403 naming the rule.
func deniedBy(err error, rule string) bool {
	status := &apierrors.StatusError{}
	return errors.As(err, &status) && status.ErrStatus.Code == 403 && strings.Contains(err.Error(), rule+":")
}

func lease(ns, name string) *coordinationv1.Lease {
	return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("ipx")}}
}

func configMapIn(ns, name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"k": "v"}}
}

// TestAttacksInProcessWildcard: a writer holding a wildcard grant skips
// LL028 in the API server and is judged by wildcard.landlord.dev; the
// webhook answers allowed, unjudged, for every kind the policy does not
// decode (Leases, HorizontalPodAutoscalers, any custom resource), so
// LL028 does not hold such a writer there, while policy.Evaluate offline
// refuses the same request.
func TestAttacksInProcessWildcard(t *testing.T) {
	inProcessWorld(t)
	wanda := impersonate(ipWanda.Username, ipWanda.Groups...)
	hpa := func(ns string) *autoscalingv2.HorizontalPodAutoscaler {
		return &autoscalingv2.HorizontalPodAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
				MinReplicas:    ptr.To[int32](20), MaxReplicas: 20,
			},
		}
	}
	// An EndpointSlice for a Service, which kube-proxy merges with the
	// controller's: the Service's traffic goes to the addresses it lists.
	slice := func(ns string) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: "web-extra", Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.66"}}},
			Ports:       []discoveryv1.EndpointPort{{Port: ptr.To[int32](80)}},
		}
	}
	const (
		ownLease = "wildcard writer takes a Lease in its own namespace"
		ownHPA   = "wildcard writer autoscales its own Deployment"
	)
	runInProcessAttacks(t, map[string]inProcessAttack{
		ownLease: {as: wanda, do: create(lease("ipx-apps", "grab"))},
		ownHPA:   {as: wanda, do: create(hpa("ipx-apps"))},
		"wildcard writer writes a ConfigMap in another tenant's namespace": {as: wanda, do: create(configMapIn("ipy-apps", "grab")), want: "LL028", near: ownLease},
		"wildcard writer takes a Lease in another tenant's namespace":      {as: wanda, do: create(lease("ipy-apps", "grab")), want: "LL028", near: ownLease},
		"wildcard writer deletes another tenant's Lease":                   {as: wanda, do: remove(lease("ipy-apps", "leader")), want: "LL028", near: ownLease},
		"wildcard writer autoscales another tenant's Deployment":           {as: wanda, do: create(hpa("ipy-apps")), want: "LL028", near: ownHPA},
		"wildcard writer adds endpoints to its own Service":                {as: wanda, do: create(slice("ipx-apps"))},
		"wildcard writer redirects another tenant's Service":               {as: wanda, do: create(slice("ipy-apps")), want: "LL028", near: "wildcard writer adds endpoints to its own Service"},
	})

	// Offline, lint and audit refuse what the API server admitted.
	t.Run("offline verdict on the Lease", func(t *testing.T) {
		store := offlineIndex(t)
		req := policy.Request{
			Operation: admissionv1.Create, Namespace: "ipy-apps", Name: "grab", Kind: kindOf(&coordinationv1.Lease{}),
			Object: lease("ipy-apps", "grab"), User: ipWanda, Platform: hooks.Platform,
		}
		var got []string
		for _, e := range policy.Evaluate(req, store()) {
			got = append(got, policy.RuleID(e))
		}
		if len(got) != 1 || got[0] != "LL028" {
			t.Errorf("offline %q, want LL028", got)
		}
	})
}

// TestAttacksInProcessSubresources: the policy matches resources "*",
// which in admission rules means every resource but no subresource, and
// CREATE, UPDATE and DELETE, not CONNECT; the webhooks' rules leave
// subresources out too. An identity of ipx that a platform mistake gave
// edit everywhere is held by LL028 on ipy's objects, not on their
// subresources: it mints the token of ipy's reconciler and then acts for
// ipy, scales ipy's Deployment, evicts and execs into ipy's Pods.
func TestAttacksInProcessSubresources(t *testing.T) {
	inProcessWorld(t)
	eddie := impersonate(ipEddie.Username, ipEddie.Groups...)
	token := func(ns, account string) func(client.Client) error {
		return func(c client.Client) error {
			tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)}}
			sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: account}}
			if err := c.SubResource("token").Create(ctx, sa, tr); err != nil {
				return err
			}
			if tr.Status.Token == "" {
				return errors.New("no token in the answer")
			}
			if ns != "ipy-apps" {
				return nil
			}
			// With the token, ipx's owner is ipy's reconciler: ipy's namespace
			// is open to it.
			cfg := &rest.Config{Host: env.Config.Host, BearerToken: tr.Status.Token, TLSClientConfig: rest.TLSClientConfig{CAData: env.Config.CAData, CAFile: env.Config.CAFile}}
			as, err := client.New(cfg, client.Options{Scheme: manager.Scheme()})
			if err != nil {
				return err
			}
			if err := as.Create(ctx, configMapIn("ipy-apps", "stolen"), dry); err != nil {
				return fmt.Errorf("token minted, but writing with it: %w", err)
			}
			return nil
		}
	}
	scale := func(ns string) func(client.Client) error {
		return func(c client.Client) error {
			s := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: autoscalingv1.ScaleSpec{Replicas: 0}}
			d := deployment("default")
			d.Namespace = ns
			return c.SubResource("scale").Update(ctx, d, client.WithSubResourceBody(s), dry)
		}
	}
	evict := func(ns string) func(client.Client) error {
		return func(c client.Client) error {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-0"}}
			e := &policyv1.Eviction{ObjectMeta: p.ObjectMeta, DeleteOptions: &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}}
			return c.SubResource("eviction").Create(ctx, p, e, dry)
		}
	}
	// exec is admitted when the API server goes on to look for the Pod's
	// node: none runs in the test, so it answers that the Pod has no host.
	exec := func(ns string) func(client.Client) error {
		return func(client.Client) error {
			cs, err := kubernetes.NewForConfig(env.ConfigFor(ipEddie.Username, ipEddie.Groups...))
			if err != nil {
				return err
			}
			err = cs.CoreV1().RESTClient().Post().Namespace(ns).Resource("pods").Name("web-0").SubResource("exec").
				Param("command", "true").Param("stdout", "true").Do(ctx).Error()
			if err != nil && strings.Contains(err.Error(), "does not have a host assigned") {
				return nil
			}
			return err
		}
	}
	const (
		ownToken    = "mint a token for a workload account of its own namespace"
		ownScale    = "scale its own Deployment"
		ownEviction = "evict its own Pod"
		ownExec     = "exec into its own Pod"
		ownConfig   = "write a ConfigMap in its own namespace"
	)
	runInProcessAttacks(t, map[string]inProcessAttack{
		ownConfig:   {as: eddie, do: create(configMapIn("ipx-apps", "own"))},
		ownToken:    {as: eddie, do: token("ipx-apps", "ci")},
		ownScale:    {as: eddie, do: scale("ipx-apps")},
		ownEviction: {as: eddie, do: evict("ipx-apps")},
		ownExec:     {as: eddie, do: exec("ipx-apps")},
		// The API server judges eddie: edit is no wildcard grant.
		"write a ConfigMap in another tenant's namespace": {as: eddie, do: create(configMapIn("ipy-apps", "grab")), want: "LL028", near: ownConfig},
		"mint the token of another tenant's reconciler":   {as: eddie, do: token("ipy-apps", "ipy"), want: "LL028", near: ownToken},
		"scale another tenant's Deployment to zero":       {as: eddie, do: scale("ipy-apps"), want: "LL028", near: ownScale},
		"evict another tenant's Pod":                      {as: eddie, do: evict("ipy-apps"), want: "LL028", near: ownEviction},
		"exec into another tenant's Pod":                  {as: eddie, do: exec("ipy-apps"), want: "LL028", near: ownExec},
	})
}

// TestAttacksInProcessStatusLabels: LL010 reads labels, which an update
// through a subresource the policy does not match can change: a
// ResourceQuota's /status writes its metadata too. A wildcard writer
// strips Landlord's label from its quota there; the controller then takes
// the quota for another writer's (NotAdopted) and never takes it back, and
// the quota, no longer labelled, is the writer's to raise.
func TestAttacksInProcessStatusLabels(t *testing.T) {
	inProcessWorld(t)
	tenant := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "ipq"},
		Spec: v1alpha1.TenantSpec{
			Namespaces: []v1alpha1.TenantNamespace{{Name: "ipq-apps"}},
			Owners:     []v1alpha1.Owner{{Kind: "Group", Name: "ipq-team"}},
			Quota:      &v1alpha1.Quota{Hard: corev1.ResourceList{corev1.ResourcePods: mustQuantity("5")}},
		},
	}
	if err := k8s.Create(ctx, tenant); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, tenant) })
	waitReady(t, "ipq")
	// wanda again, cluster-admin by the same mistake, as an owner of ipq.
	wanda := impersonate(ipWanda.Username, "ipq-team", "system:authenticated")
	quota := func() *corev1.ResourceQuota {
		q := &corev1.ResourceQuota{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: "ipq-apps", Name: "landlord-quota"}, q); err != nil {
			t.Fatal(err)
		}
		return q
	}
	raise := func(c client.Client) error {
		q := quota()
		q.Spec.Hard[corev1.ResourcePods] = mustQuantity("500")
		return c.Update(ctx, q, dry)
	}
	runInProcessAttacks(t, map[string]inProcessAttack{
		"create its own quota":   {as: wanda, do: create(&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "ipq-apps", Name: "mine"}})},
		"raise Landlord's quota": {as: wanda, do: raise, want: "LL010", near: "create its own quota"},
		"strip Landlord's label there": {as: wanda, near: "create its own quota", want: "LL010", do: func(c client.Client) error {
			q := quota()
			delete(q.Labels, v1alpha1.ManagedByLabel)
			if err := c.Status().Update(ctx, q, dry); err != nil {
				return err
			}
			if q.Labels[v1alpha1.ManagedByLabel] != "" {
				return errors.New("admitted, but the label stays")
			}
			return nil
		}},
	})

	// The same through namespaces/status, which namespaces.landlord.dev
	// (rules "namespaces", no subresources) never sees: LL009 keeps a
	// tenant namespace's tenant and pod-security labels the platform's, and
	// the in-process rules select namespaces by that tenant label.
	t.Run("unlabel its namespace through /status", func(t *testing.T) {
		ns := &corev1.Namespace{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: "ipq-apps"}, ns); err != nil {
			t.Fatal(err)
		}
		delete(ns.Labels, v1alpha1.TenantLabel)
		delete(ns.Labels, "pod-security.kubernetes.io/enforce")
		err := wanda.Status().Update(ctx, ns, dry)
		switch {
		case deniedBy(err, "LL009"):
		case err != nil:
			t.Fatal(err)
		case ns.Labels[v1alpha1.TenantLabel] == "" && ns.Labels["pod-security.kubernetes.io/enforce"] == "":
			t.Error("namespaces/status rewrites a tenant namespace's labels: the tenant and pod-security labels drop, and with them every selector of the in-process policy and the webhooks")
		default:
			t.Errorf("admitted, labels %v", ns.Labels)
		}
	})

	// What the stripped label leads to, for real: Landlord lets go of its
	// quota, and the raise goes through.
	t.Run("the stripped quota is the writer's", func(t *testing.T) {
		q := quota()
		delete(q.Labels, v1alpha1.ManagedByLabel)
		if err := wanda.Status().Update(ctx, q); err != nil {
			if deniedBy(err, "LL010") {
				return // closed
			}
			t.Fatal(err)
		}
		testenv.Eventually(t, 30*time.Second, func() error {
			got := &v1alpha1.Tenant{}
			if err := k8s.Get(ctx, client.ObjectKey{Name: "ipq"}, got); err != nil {
				return err
			}
			c := apimeta.FindStatusCondition(got.Status.Conditions, v1alpha1.ReadyCondition)
			if c == nil || c.Reason != "NotAdopted" || !strings.Contains(c.Message, "landlord-quota") {
				return fmt.Errorf("Ready %+v, want NotAdopted naming landlord-quota", c)
			}
			return nil
		})
		if err := raise(wanda); err != nil {
			t.Fatalf("raise after the strip: %v", err)
		}
		t.Error("the quota's label stripped through /status: it left Landlord (Ready=False NotAdopted) and wanda raises it")
	})
}

// TestAttacksInProcessStaleMarkers: the policy reads who acts for which
// tenant, and which namespaces it holds, from the markers the controller
// renders; the webhook read them from the Tenants. While a Tenant's
// reconcile is stalled (here: spec.extraClusterRoles names a role not
// created yet, RoleRefused), or the controller is down, the platform's
// edits never reach the markers: an owner group moved to another tenant
// still writes in the old one's namespaces (LL028), and a namespace taken
// out of the spec stays open to the tenant (LL026), while lint and audit,
// reading the Tenants, refuse both.
func TestAttacksInProcessStaleMarkers(t *testing.T) {
	mva := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "mva"},
		Spec: v1alpha1.TenantSpec{
			Namespaces: []v1alpha1.TenantNamespace{{Name: "mva-apps"}, {Name: "mva-old"}},
			Owners:     []v1alpha1.Owner{{Kind: "Group", Name: "mva-team"}, {Kind: "Group", Name: "movers"}},
		},
	}
	mvb := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "mvb"},
		Spec: v1alpha1.TenantSpec{
			Namespaces: []v1alpha1.TenantNamespace{{Name: "mvb-apps"}},
			Owners:     []v1alpha1.Owner{{Kind: "Group", Name: "mvb-team"}},
		},
	}
	for _, tenant := range []*v1alpha1.Tenant{mva, mvb} {
		if err := k8s.Create(ctx, tenant); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(ctx, tenant) })
	}
	waitReady(t, "mva", "mvb")
	ann := authenticationv1.UserInfo{Username: "ann", Groups: []string{"mva-team", "system:authenticated"}}
	mo := authenticationv1.UserInfo{Username: "mo", Groups: []string{"movers", "system:authenticated"}}
	testenv.Eventually(t, 30*time.Second, func() error {
		return marker(mo, "mva", render.ActForVerb, true)
	})

	// The platform moves movers to mvb and takes mva-old from mva, in the
	// same edit that names a role it has not created yet.
	edit := func(name string, change func(*v1alpha1.Tenant)) {
		testenv.Eventually(t, 10*time.Second, func() error {
			tenant := &v1alpha1.Tenant{}
			if err := k8s.Get(ctx, client.ObjectKey{Name: name}, tenant); err != nil {
				return err
			}
			change(tenant)
			return k8s.Update(ctx, tenant)
		})
	}
	edit("mva", func(tenant *v1alpha1.Tenant) {
		tenant.Spec.Namespaces = []v1alpha1.TenantNamespace{{Name: "mva-apps"}}
		tenant.Spec.Owners = []v1alpha1.Owner{{Kind: "Group", Name: "mva-team"}}
		tenant.Spec.ExtraClusterRoles = []string{"mva-not-created-yet"}
		// And confines its sources, which only the namespaces' annotations
		// tell the API server.
		tenant.Spec.AllowedSources = []string{"https://git.example.com/mva/*"}
	})
	edit("mvb", func(tenant *v1alpha1.Tenant) {
		tenant.Spec.Owners = append(tenant.Spec.Owners, v1alpha1.Owner{Kind: "Group", Name: "movers"})
	})
	testenv.Eventually(t, 30*time.Second, func() error {
		tenant := &v1alpha1.Tenant{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: "mva"}, tenant); err != nil {
			return err
		}
		if c := apimeta.FindStatusCondition(tenant.Status.Conditions, v1alpha1.StalledCondition); c == nil || c.Reason != "RoleRefused" {
			return fmt.Errorf("mva Stalled %+v, want RoleRefused", c)
		}
		return marker(mo, "mvb", render.ActForVerb, true)
	})

	store := offlineIndex(t)
	offline := func(u authenticationv1.UserInfo, obj client.Object) []string {
		req := policy.Request{
			Operation: admissionv1.Create, Namespace: obj.GetNamespace(), Name: obj.GetName(), Kind: kindOf(obj),
			Object: obj, User: u, Platform: hooks.Platform,
		}
		var got []string
		for _, e := range policy.Evaluate(req, store()) {
			got = append(got, policy.RuleID(e))
		}
		return got
	}
	// Offline, from the Tenants: both refused.
	testenv.Eventually(t, 30*time.Second, func() error {
		if got := offline(mo, configMapIn("mva-apps", "moved")); len(got) != 1 || got[0] != "LL028" {
			return fmt.Errorf("offline, movers in mva-apps: %q, want LL028", got)
		}
		if got := offline(ann, configMapIn("mva-old", "kept")); len(got) != 1 || got[0] != "LL026" {
			return fmt.Errorf("offline, mva's owner in mva-old: %q, want LL026", got)
		}
		return nil
	})

	const (
		ownConfig   = "owner writes in its tenant's namespace"
		movedConfig = "moved owner writes in its new tenant's namespace"
		ownSource   = "owner's source in the allowedSources set while stalled"
	)
	source := func(url string) *sourcev1.GitRepository {
		return &sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Namespace: "mva-apps", Name: "app"},
			Spec: sourcev1.GitRepositorySpec{URL: url, Interval: metav1.Duration{Duration: time.Minute}}}
	}
	asUser := func(u authenticationv1.UserInfo) client.Client { return impersonate(u.Username, u.Groups...) }
	runInProcessAttacks(t, map[string]inProcessAttack{
		ownConfig:   {as: asUser(ann), do: create(configMapIn("mva-apps", "own"))},
		movedConfig: {as: asUser(mo), do: create(configMapIn("mvb-apps", "own"))},
		"moved owner writes in its former tenant's namespace": {as: asUser(mo), do: create(configMapIn("mva-apps", "moved")), want: "LL028", near: movedConfig},
		"owner writes in a namespace taken from its tenant":   {as: asUser(ann), do: create(configMapIn("mva-old", "kept")), want: "LL026", near: ownConfig},
		ownSource: {as: asUser(ann), do: create(source("https://git.example.com/mva/app"))},
		"owner's source outside the allowedSources set while stalled": {as: asUser(ann), do: create(source("https://github.com/anyone/app")), want: "LL008", near: ownSource},
	})

	// The control: once the stall clears, the render catches up and both
	// writes are refused (by RBAC or the rules), so the stall is the cause.
	t.Run("refused once the stall clears", func(t *testing.T) {
		edit("mva", func(tenant *v1alpha1.Tenant) { tenant.Spec.ExtraClusterRoles = nil })
		testenv.Eventually(t, 60*time.Second, func() error {
			if err := marker(mo, "mva", render.ActForVerb, false); err != nil {
				return err
			}
			if err := asUser(mo).Create(ctx, configMapIn("mva-apps", "moved"), dry); err == nil {
				return errors.New("moved owner still writes in mva-apps")
			}
			if err := asUser(ann).Create(ctx, configMapIn("mva-old", "kept"), dry); err == nil {
				return errors.New("mva's owner still writes in mva-old")
			}
			return nil
		})
	})
}

// offlineIndex is the webhook's tenant index over an informer cache of its
// own, as lint and audit read: each call's Resolver answers from the
// Tenants as they are then.
func offlineIndex(t *testing.T) func() policy.Tenants {
	t.Helper()
	c, err := cache.New(env.Config, cache.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	store, err := webhook.NewIndex(cctx, c, k8s)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.Start(cctx) }()
	c.WaitForCacheSync(cctx)
	return func() policy.Tenants { return store.For(cctx).Resolver() }
}

// TestAttacksInProcessWildcardAvailability: the wildcard route sends
// every write in tenant namespaces by anyone holding a wildcard grant to
// the webhook, whatever the kind and whether or not the writer acts for
// any tenant: an operator bound to cluster-admin outside kube-system and
// flux-system waits on Landlord for its Leases there, and fails closed
// while Landlord is down, unless the platform names it (--platform-users),
// as the README says. Decided, not a hole: RBAC cannot say which tenant
// such a writer acts for.
func TestAttacksInProcessWildcardAvailability(t *testing.T) {
	inProcessWorld(t)
	operator := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "ipx-operator"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{
			{Kind: rbacv1.ServiceAccountKind, Namespace: "default", Name: "some-operator"},
			{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "platform-admins"},
		},
	}
	if err := k8s.Create(ctx, operator); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, operator) })
	op := impersonate("system:serviceaccount:default:some-operator", "system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated")
	testenv.Eventually(t, 10*time.Second, func() error { return op.Create(ctx, lease("ipx-apps", "operator"), dry) })

	gate.shut()
	defer gate.reopen()
	if err := op.Create(ctx, lease("ipx-apps", "operator"), dry); err == nil || !strings.Contains(err.Error(), "wildcard.landlord.dev") {
		t.Errorf("operator's Lease with Landlord down: %v, want a failed call to wildcard.landlord.dev", err)
	}
	// The platform's admins, cluster-admin too, never wait.
	admin := impersonate("pat", "platform-admins", "system:authenticated")
	if err := admin.Create(ctx, lease("ipx-apps", "platform"), dry); err != nil {
		t.Errorf("platform admin's Lease with Landlord down: %v, want it admitted without the webhook", err)
	}
}

// TestAttacksInProcessUnadoptedNamespace: a namespace the platform lists
// in a Tenant's spec but created itself, labelled for the tenant, is one
// the controller never takes over (NamespaceConflict): its markers leave
// it out, so the API server freezes it (LL026), and policy.Evaluate, for
// lint and audit, says the same (tenancy.Made, which the controller's
// refusal also asks).
func TestAttacksInProcessUnadoptedNamespace(t *testing.T) {
	pre := labelledNamespace("ipp-pre", "ipp")
	if err := k8s.Create(ctx, pre); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, pre) })
	tenant := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "ipp"},
		Spec:       v1alpha1.TenantSpec{Namespaces: []v1alpha1.TenantNamespace{{Name: "ipp-apps"}, {Name: "ipp-pre"}}},
	}
	if err := k8s.Create(ctx, tenant); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, tenant) })
	testenv.Eventually(t, 60*time.Second, func() error {
		got := &v1alpha1.Tenant{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: "ipp"}, got); err != nil {
			return err
		}
		if c := apimeta.FindStatusCondition(got.Status.Conditions, v1alpha1.ReadyCondition); c == nil || c.Reason != "NamespaceConflict" {
			return fmt.Errorf("ipp Ready %+v, want NamespaceConflict", c)
		}
		return marker(authenticationv1.UserInfo{Username: "system:serviceaccount:ipp-apps:ipp", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ipp-apps"}}, "ipp", render.ActForVerb, true)
	})
	// A writer of no tenant whom RBAC lets in: the platform's operator.
	opal := authenticationv1.UserInfo{Username: "opal", Groups: []string{"system:authenticated"}}
	grant := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ipp-pre", Name: "opal"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "opal", APIGroup: rbacv1.GroupName}},
	}
	if err := k8s.Create(ctx, grant); err != nil {
		t.Fatal(err)
	}
	tc := inProcessCase{name: "operator writes in the unadopted namespace", user: opal, op: admissionv1.Create, object: configMapIn("ipp-pre", "app")}
	store := offlineIndex(t)
	var got string
	testenv.Eventually(t, 10*time.Second, func() error {
		var err error
		got, err = online(tc)
		return err
	})
	var offline []string
	for _, e := range policy.Evaluate(policy.Request{
		Operation: tc.op, Namespace: "ipp-pre", Name: "app", Kind: kindOf(tc.object), Object: tc.object, User: opal, Platform: hooks.Platform,
	}, store()) {
		offline = append(offline, policy.RuleID(e))
	}
	if got != "LL026" || got != strings.Join(offline, ",") {
		t.Errorf("a namespace assigned but never adopted: the API server says %q, policy.Evaluate %q, want LL026 from both", got, offline)
	}
}

// TestAttacksInProcessDefaultClass: a tenant's identity may not make the
// class its spec.clusterResources approves the cluster's default, which
// the API server would then write into every tenant's claims, pods or
// Ingresses naming none (and the workloads policy allow as the default).
// The API server refuses it itself: the review found the rule in the
// cluster-scoped webhook, which fails open, so while Landlord was down a
// tenant's reconciler made its NFS class the default and every other
// tenant's claims went to the tenant's server. The class without the mark
// is admitted, and the platform may mark one.
func TestAttacksInProcessDefaultClass(t *testing.T) {
	tenant := &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "ipd"}, Spec: v1alpha1.TenantSpec{
		Namespaces: []v1alpha1.TenantNamespace{{Name: "ipd-apps"}},
		ClusterResources: []v1alpha1.ClusterResource{
			{APIGroup: storagev1.GroupName, Kind: "StorageClass", Names: []string{"ipd-nfs"}},
			{APIGroup: schedulingv1.GroupName, Kind: "PriorityClass", Names: []string{"ipd-urgent"}},
		},
	}}
	if err := k8s.Create(ctx, tenant); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, tenant) })
	reconciler := impersonate("system:serviceaccount:ipd-apps:ipd", "system:serviceaccounts", "system:serviceaccounts:ipd-apps", "system:authenticated")
	class := func(annotations map[string]string) *storagev1.StorageClass {
		return &storagev1.StorageClass{TypeMeta: metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"},
			ObjectMeta: metav1.ObjectMeta{Name: "ipd-nfs", Annotations: annotations}, Provisioner: "nfs.csi.k8s.io"}
	}
	priority := func(global bool) *schedulingv1.PriorityClass {
		return &schedulingv1.PriorityClass{TypeMeta: metav1.TypeMeta{APIVersion: "scheduling.k8s.io/v1", Kind: "PriorityClass"},
			ObjectMeta: metav1.ObjectMeta{Name: "ipd-urgent"}, Value: 1000, GlobalDefault: global}
	}
	apply := func(c client.Client, obj client.Object) error {
		return c.Patch(ctx, obj, client.Apply, client.DryRunAll, client.FieldOwner("kustomize-controller"), client.ForceOwnership)
	}
	// The controller grants the approved classes to the reconciler.
	testenv.Eventually(t, 30*time.Second, func() error { return apply(reconciler, class(nil)) })

	gate.shut()
	defer gate.reopen()
	for _, c := range []struct {
		what string
		obj  client.Object
		want string
	}{
		{"the class marked default", class(map[string]string{policy.DefaultStorageClassAnnotation: "true"}), "LL014"},
		{"the class marked default by the beta annotation", class(map[string]string{policy.DefaultStorageClassBetaAnnotation: "true"}), "LL014"},
		{"the priority class made the global default", priority(true), "LL014"},
		{"the class unmarked", class(map[string]string{policy.DefaultStorageClassAnnotation: "false"}), ""},
		{"the priority class", priority(false), ""},
	} {
		err := apply(reconciler, c.obj)
		if got := strings.ToUpper(ruleID.FindString(fmt.Sprint(err))); got != c.want || c.want == "" && err != nil {
			t.Errorf("reconciler writes %s with Landlord down: %v, want %q", c.what, err, c.want)
		}
	}
	if err := apply(k8s, class(map[string]string{policy.DefaultStorageClassAnnotation: "true"})); err != nil {
		t.Errorf("the platform marks the class default: %v, want it admitted", err)
	}
}
