package policy

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// withMeta is a copy of ns with annotations and finalizers added.
func withMeta(ns *corev1.Namespace, annotations map[string]string, finalizers ...string) *corev1.Namespace {
	ns = ns.DeepCopy()
	if len(annotations) > 0 && ns.Annotations == nil {
		ns.Annotations = map[string]string{}
	}
	for k, v := range annotations {
		ns.Annotations[k] = v
	}
	ns.Finalizers = append(ns.Finalizers, finalizers...)
	return ns
}

// landlordFields is the controller's entry of a namespace it made.
const landlordFields = `{"f:metadata":{"f:labels":{"f:landlord.dev/tenant":{}}}}`

// withFields is a copy of ns whose managed fields hold the controller's
// entry, raw.
func withFields(ns *corev1.Namespace, raw string) *corev1.Namespace {
	ns = ns.DeepCopy()
	ns.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: v1alpha1.FieldManager, Operation: metav1.ManagedFieldsOperationApply,
		APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(raw)}}}
	return ns
}

// ownNamespace is dev-team's self-service namespace as Flux applied it,
// before the controller adopted it.
func ownNamespace() *corev1.Namespace {
	return newNamespace("dev-team-x", map[string]string{
		v1alpha1.TenantLabel:               "dev-team",
		corev1.LabelMetadataName:           "dev-team-x",
		"kustomize.toolkit.fluxcd.io/name": "dev-team", "kustomize.toolkit.fluxcd.io/namespace": "apps",
	})
}

// platformAnnotated is dev-team's assigned namespace on which the platform
// pinned the tenant's pods to its node pool.
func platformAnnotated() *corev1.Namespace {
	return withMeta(newTenantNamespace("apps", v1alpha1.NamespaceOriginPlatform),
		map[string]string{"scheduler.alpha.kubernetes.io/node-selector": "pool=dev-team"}, "backup.example.com/protect")
}

// TestNamespaceRules judges namespace writes: the metadata a tenant may
// write (LL025), the finalizers it may add, and how writes to namespaces
// not its own are answered (LL009, hidden).
func TestNamespaceRules(t *testing.T) {
	selfService := func(mutate func(*corev1.Namespace)) *corev1.Namespace {
		ns := newNamespace("dev-team-y", map[string]string{v1alpha1.TenantLabel: "dev-team", corev1.LabelMetadataName: "dev-team-y"})
		mutate(ns)
		return ns
	}
	for name, tc := range map[string]testCase{
		// What Kubernetes, kubectl and Flux write passes with no allow-list.
		"self-service namespace applied by flux": {req: create(reconciler, "", selfService(func(ns *corev1.Namespace) {
			ns.Labels["kustomize.toolkit.fluxcd.io/name"] = "dev-team"
			ns.Labels["kustomize.toolkit.fluxcd.io/namespace"] = "apps"
		}))},
		"self-service namespace installed by helm-controller": {req: create(reconciler, "", selfService(func(ns *corev1.Namespace) {
			ns.Labels["helm.toolkit.fluxcd.io/name"] = "web"
			ns.Labels["helm.toolkit.fluxcd.io/namespace"] = "apps"
		}))},
		"self-service namespace applied by kubectl": {req: create(owner, "", selfService(func(ns *corev1.Namespace) {
			ns.Annotations = map[string]string{corev1.LastAppliedConfigAnnotation: "{}"}
		}))},
		"self-service namespace with allowed keys": {req: create(owner, "", selfService(func(ns *corev1.Namespace) {
			ns.Labels["team"] = "a"
			ns.Annotations = map[string]string{"example.com/owner": "a", "example.com/cost-centre": "42"}
		}))},
		"self-service namespace with a tolerations default": {req: create(owner, "", selfService(func(ns *corev1.Namespace) {
			ns.Annotations = map[string]string{"scheduler.alpha.kubernetes.io/defaultTolerations": `[{"operator":"Exists"}]`}
		})), want: "LL025"},
		"self-service namespace with an openshift node selector": {req: create(owner, "", selfService(func(ns *corev1.Namespace) {
			ns.Annotations = map[string]string{"openshift.io/node-selector": "pool=gpu"}
		})), want: "LL025"},
		"self-service namespace with kube2iam roles": {req: create(reconciler, "", selfService(func(ns *corev1.Namespace) {
			ns.Annotations = map[string]string{"iam.amazonaws.com/permitted": ".*"}
		})), want: "LL025"},
		"self-service namespace with kiam roles": {req: create(reconciler, "", selfService(func(ns *corev1.Namespace) {
			ns.Annotations = map[string]string{"iam.amazonaws.com/allowed-roles": `["*"]`}
		})), want: "LL025"},
		"self-service namespace with another tenant's policy label": {req: create(reconciler, "", selfService(func(ns *corev1.Namespace) {
			ns.Labels["ops.example.com/allow-from"] = "true"
		})), want: "LL025"},
		"self-service namespace with a key below an allowed prefix's sibling": {req: create(reconciler, "", selfService(func(ns *corev1.Namespace) {
			ns.Annotations = map[string]string{"evil-example.com/owner": "a"}
		})), want: "LL025"},
		"self-service namespace with a finalizer": {req: create(reconciler, "", selfService(func(ns *corev1.Namespace) {
			ns.Finalizers = []string{"example.com/hold"}
		})), want: "LL025"},
		"self-service namespace with landlord's finalizer": {req: create(reconciler, "", selfService(func(ns *corev1.Namespace) {
			ns.Finalizers = []string{v1alpha1.Finalizer}
		})), want: "LL025"},
		"self-service namespace with kubernetes' spec finalizer": {req: create(reconciler, "", selfService(func(ns *corev1.Namespace) {
			ns.Spec.Finalizers = []corev1.FinalizerName{corev1.FinalizerKubernetes}
		}))},
		"self-service namespace with another spec finalizer": {req: create(reconciler, "", selfService(func(ns *corev1.Namespace) {
			ns.Spec.Finalizers = []corev1.FinalizerName{corev1.FinalizerKubernetes, "example.com/hold"}
		})), want: "LL025"},

		// Updates of its own namespaces: only what changes is judged.
		"own namespace re-applied": {req: update(reconciler, "", ownNamespace(), ownNamespace())},
		"own namespace annotated with an allowed key": {req: update(reconciler, "", ownNamespace(),
			withMeta(ownNamespace(), map[string]string{"example.com/owner": "b"}))},
		"own namespace given a node selector": {req: update(reconciler, "", ownNamespace(),
			withMeta(ownNamespace(), map[string]string{"scheduler.alpha.kubernetes.io/node-selector": "pool=gpu"})), want: "LL025"},
		"own namespace given a finalizer": {req: update(owner, "", ownNamespace(), withMeta(ownNamespace(), nil, "example.com/hold")), want: "LL025"},
		"own namespace given the garbage collector's finalizer": {req: update(owner, "", ownNamespace(),
			withMeta(ownNamespace(), nil, metav1.FinalizerDeleteDependents))},
		"own namespace rid of a finalizer": {req: update(owner, "", withMeta(ownNamespace(), nil, "example.com/hold"), ownNamespace())},
		"own namespace rid of flux's label": {req: update(owner, "", ownNamespace(), func() *corev1.Namespace {
			ns := ownNamespace()
			delete(ns.Labels, "kustomize.toolkit.fluxcd.io/name")
			return ns
		}())},
		"assigned namespace annotated beside the platform's node selector": {req: update(reconciler, "", platformAnnotated(),
			withMeta(platformAnnotated(), map[string]string{"example.com/owner": "b"}))},
		"assigned namespace given an IAM role": {req: update(reconciler, "", platformAnnotated(),
			withMeta(platformAnnotated(), map[string]string{"iam.amazonaws.com/permitted": "arn:aws:iam::1:role/admin"})), want: "LL025"},
		"assigned namespace's node selector changed": {req: update(owner, "", platformAnnotated(),
			withMeta(platformAnnotated(), map[string]string{"scheduler.alpha.kubernetes.io/node-selector": "pool=gpu"})), want: "LL025"},
		"assigned namespace's node selector removed": {req: update(owner, "", platformAnnotated(), func() *corev1.Namespace {
			ns := platformAnnotated()
			delete(ns.Annotations, "scheduler.alpha.kubernetes.io/node-selector")
			return ns
		}()), want: "LL025"},
		"assigned namespace rid of the platform's finalizer": {req: update(owner, "", platformAnnotated(), func() *corev1.Namespace {
			ns := platformAnnotated()
			ns.Finalizers = nil
			return ns
		}()), want: "LL010"},
		"assigned namespace given a finalizer": {req: update(owner, "", platformAnnotated(), withMeta(platformAnnotated(), nil, "example.com/hold")), want: "LL025"},
		"pod security not unlocked by any pattern": {req: update(owner, "", ownNamespace(), func() *corev1.Namespace {
			ns := ownNamespace()
			ns.Labels["pod-security.kubernetes.io/enforce"] = "privileged"
			return ns
		}()), want: "LL009"},
		// The API server's policy reads which Service types a namespace allows from its label.
		"owner lets its namespace expose NodePorts": {req: update(owner, "", ownNamespace(), func() *corev1.Namespace {
			ns := ownNamespace()
			ns.Labels[v1alpha1.ServiceTypesLabel] = "NodePort"
			return ns
		}()), want: "LL009"},
		"self-service namespace created allowing LoadBalancers": {req: create(owner, "", newNamespace("dev-team-lb", map[string]string{
			v1alpha1.TenantLabel: "dev-team", v1alpha1.ServiceTypesLabel: "LoadBalancer",
		})), want: "LL009"},
		// The API server's policy reads the tenant's allowedSources from its
		// namespaces' annotations, which no allow-list opens.
		"owner widens its allowedSources": {req: update(owner, "", ownNamespace(), func() *corev1.Namespace {
			ns := ownNamespace()
			ns.Annotations = map[string]string{v1alpha1.AllowedSourcesAnnotation: "https://*", v1alpha1.SourceRegexpsAnnotation: ".*"}
			return ns
		}()), want: "LL009"},
		"self-service namespace created with its own allowedSources": {req: create(owner, "", withMeta(newNamespace("dev-team-src", map[string]string{
			v1alpha1.TenantLabel: "dev-team",
		}), map[string]string{v1alpha1.SourceRegexpsAnnotation: ".*"})), want: "LL009"},
		"platform lets a namespace expose NodePorts": {req: update(masters, "", ownNamespace(), func() *corev1.Namespace {
			ns := ownNamespace()
			ns.Labels[v1alpha1.ServiceTypesLabel] = "NodePort"
			return ns
		}())},
		// The controller removes what its managed-fields entries list and the
		// Tenant does not set: a tenant may not write them.
		"platform annotation moved into Landlord's fields": {req: update(owner, "", withFields(platformAnnotated(), landlordFields),
			withFields(platformAnnotated(), `{"f:metadata":{"f:annotations":{"f:scheduler.alpha.kubernetes.io/node-selector":{}},"f:labels":{"f:landlord.dev/tenant":{}}}}`)), want: "LL010"},
		"Landlord's fields left as they are": {req: update(owner, "", withFields(platformAnnotated(), landlordFields), withFields(platformAnnotated(), landlordFields))},
		// Labelled for a tenant that does not hold it: frozen.
		"namespace of a gone tenant deleted":            {req: remove(stranger, "", newNamespace("ghost-apps", map[string]string{v1alpha1.TenantLabel: "ghost"})), want: "LL026"},
		"namespace of a gone tenant deleted by masters": {req: remove(masters, "", newNamespace("ghost-apps", map[string]string{v1alpha1.TenantLabel: "ghost"}))},
		// A platform identity and a stranger are not held to a tenant's allow-list.
		"node selector set by the platform": {req: update(masters, "", newTenantNamespace("apps", v1alpha1.NamespaceOriginPlatform), platformAnnotated())},
		"node selector on a platform namespace by a stranger": {req: update(stranger, "", newNamespace("monitoring", nil),
			withMeta(newNamespace("monitoring", nil), map[string]string{"scheduler.alpha.kubernetes.io/node-selector": "pool=infra"}))},

		// Namespaces not its own are hidden, created or updated, existing or not.
		"another tenant's namespace patched":        {req: update(reconciler, "", newNamespace("ops", map[string]string{v1alpha1.TenantLabel: "ops"}), newNamespace("ops", map[string]string{v1alpha1.TenantLabel: "ops"})), want: "LL009"},
		"platform namespace patched":                {req: update(reconciler, "", newNamespace("kube-system", nil), newNamespace("kube-system", nil)), want: "LL009"},
		"unknown name applied":                      {req: create(reconciler, "", newNamespace("nowhere", nil)), want: "LL009"},
		"another tenant's future namespace applied": {req: create(owner, "", newNamespace("ops", nil)), want: "LL009"},
		"prefixed name created without the label":   {req: create(owner, "", newNamespace("dev-team-y", nil)), want: "LL009"},
	} {
		t.Run(name, func(t *testing.T) {
			errs := Evaluate(tc.req, testTenants)
			if got := ruleIDs(errs); got != tc.want {
				t.Fatalf("rules = %q, want %q: %v", got, tc.want, errs)
			}
			for _, e := range errs {
				if !strings.Contains(e.Detail, "allowed") && !strings.Contains(e.Detail, "supported values") || e.Field == "" {
					t.Errorf("violation names no field or no allowed values: %v", e)
				}
			}
		})
	}
}

// TestHidden checks which denials the guard answers as NotFound: every
// write by a tenant to a namespace not its own, whether the name exists
// (update) or not (a create, as server-side apply makes one), and nothing
// else.
func TestHidden(t *testing.T) {
	for name, tc := range map[string]struct {
		req  Request
		want bool
	}{
		"existing namespace of another tenant": {req: update(reconciler, "", newNamespace("ops", nil), newNamespace("ops", nil)), want: true},
		"existing platform namespace":          {req: update(owner, "", newNamespace("kube-system", nil), newNamespace("kube-system", nil)), want: true},
		"name outside the prefix":              {req: create(reconciler, "", newNamespace("kube-systen", nil)), want: true},
		"name of a tenant without self-service": {req: create(opsReconciler, "", newNamespace("ops-2", map[string]string{v1alpha1.TenantLabel: "ops"})),
			want: true},
		"own namespace given a node selector": {req: update(reconciler, "", ownNamespace(),
			withMeta(ownNamespace(), map[string]string{"scheduler.alpha.kubernetes.io/node-selector": "pool=gpu"}))},
		"own name without the label":               {req: create(owner, "", newNamespace("dev-team-y", nil))},
		"own assigned namespace created":           {req: create(owner, "", newNamespace("apps", nil))},
		"own assigned namespace deleted":           {req: remove(reconciler, "", newTenantNamespace("apps", v1alpha1.NamespaceOriginPlatform))},
		"another tenant's namespace by a stranger": {req: update(stranger, "", newNamespace("ops", map[string]string{v1alpha1.TenantLabel: "ops"}), newNamespace("ops", nil))},
	} {
		t.Run(name, func(t *testing.T) {
			errs := Evaluate(tc.req, testTenants)
			if got := Hidden(errs); got != tc.want || len(errs) == 0 {
				t.Fatalf("Hidden = %v, want %v: %v", got, tc.want, errs)
			}
			if tc.want && errs[0].Type != field.ErrorTypeNotFound {
				t.Errorf("hidden denial of type %s", errs[0].Type)
			}
		})
	}
}
