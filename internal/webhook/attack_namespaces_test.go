package webhook_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/webhook"
)

// mergePatch patches the namespace name with a JSON merge patch, as
// `kubectl annotate` does.
func mergePatch(name, patch string) func(client.Client) error {
	return rawPatch(types.MergePatchType, name, patch)
}

func rawPatch(pt types.PatchType, name, patch string) func(client.Client) error {
	return func(c client.Client) error {
		return c.Patch(ctx, ns(name), client.RawPatch(pt, []byte(patch)), dry)
	}
}

// forgeOwnership rewrites the controller's entry in the managed fields of
// the namespace name to claim a platform annotation: the controller would
// then remove it as a field of its own the Tenant no longer sets.
func forgeOwnership(name string) func(client.Client) error {
	return func(c client.Client) error {
		live := &corev1.Namespace{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: name}, live); err != nil {
			return err
		}
		fields := slices.Clone(live.ManagedFields)
		for i, e := range fields {
			if e.Manager == v1alpha1.FieldManager && e.Subresource == "" {
				fields[i].FieldsV1 = &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:annotations":{"f:scheduler.alpha.kubernetes.io/node-selector":{}}}}`)}
			}
		}
		patch, err := json.Marshal([]map[string]any{{"op": "replace", "path": "/metadata/managedFields", "value": fields}})
		if err != nil {
			return err
		}
		return c.Patch(ctx, ns(name), client.RawPatch(types.JSONPatchType, patch), dry)
	}
}

// apply server-side applies the namespace as Flux's kustomize-controller
// does: creating it when it does not exist.
func apply(namespace *corev1.Namespace) func(client.Client) error {
	return func(c client.Client) error {
		obj := namespace.DeepCopy()
		obj.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}
		return c.Patch(ctx, obj, client.Apply, client.FieldOwner("kustomize-controller"), client.ForceOwnership, dry)
	}
}

// annotated is a self-service namespace of blue carrying one annotation.
func annotated(name, key, value string) *corev1.Namespace {
	n := labelledNamespace(name, "blue")
	n.Annotations = map[string]string{key: value}
	return n
}

// TestAttacksNamespaces: a tenant writes on its namespaces only the metadata
// the platform allows (LL025), and no finalizer that would keep one
// Terminating; namespaces not its own answer NotFound (LL009) whether they
// exist or not.
func TestAttacksNamespaces(t *testing.T) {
	const (
		ownLabel      = "self-service namespace with an allowed label"
		ownAnnotation = "allowed annotation on its assigned namespace"
		reapply       = "re-apply its self-service namespace unchanged"
		ownApply      = "apply a self-service namespace"
	)
	withTeam := labelledNamespace("blue-three", "blue")
	withTeam.Labels["team"] = "web"
	runAttacks(t, map[string]attack{
		// Metadata other components trust, on create and on update.
		ownLabel: {as: "reconciler", do: create(withTeam)},
		"self-service namespace with a node selector": {as: "reconciler", do: create(annotated("blue-three", "scheduler.alpha.kubernetes.io/node-selector", "pool=gpu")),
			want: "LL025", near: ownLabel},
		"self-service namespace with default tolerations": {as: "owner", do: create(annotated("blue-three", "scheduler.alpha.kubernetes.io/defaultTolerations", `[{"operator":"Exists"}]`)),
			want: "LL025", near: ownLabel},
		"self-service namespace selected by red's policies": {as: "reconciler", do: create(func() *corev1.Namespace {
			n := labelledNamespace("blue-three", "blue")
			n.Labels["red.example.com/trusted"] = "true"
			return n
		}()), want: "LL025", near: ownLabel},
		ownAnnotation: {as: "reconciler", do: mergePatch("blue-apps", `{"metadata":{"annotations":{"blue.example.com/owner":"web"}}}`)},
		"IAM role on its assigned namespace": {as: "reconciler", do: mergePatch("blue-apps", `{"metadata":{"annotations":{"iam.amazonaws.com/permitted":".*"}}}`),
			want: "LL025", near: ownAnnotation},
		"kiam roles on its self-service namespace": {as: "owner", do: mergePatch("blue-one", `{"metadata":{"annotations":{"iam.amazonaws.com/allowed-roles":"[\"*\"]"}}}`),
			want: "LL025", near: ownAnnotation},
		// The controller removes what its entry lists and the Tenant does
		// not set: a platform annotation moved into it would go.
		"forge Landlord's ownership of a platform annotation": {as: "reconciler", do: forgeOwnership("blue-apps"), want: "LL010", near: ownAnnotation},

		// A finalizer nothing removes keeps a namespace Terminating, out of
		// the count of maxNamespaces.
		reapply: {as: "reconciler", do: apply(labelledNamespace("blue-one", "blue"))},
		"finalizer on its self-service namespace": {as: "reconciler", do: mergePatch("blue-one", `{"metadata":{"finalizers":["blue.example.com/hold"]}}`),
			want: "LL025", near: reapply},
		"landlord's finalizer on its self-service namespace": {as: "owner", do: mergePatch("blue-two", `{"metadata":{"finalizers":["`+v1alpha1.Finalizer+`"]}}`),
			want: "LL025", near: reapply},
		"finalizer on a new self-service namespace": {as: "reconciler", do: create(func() *corev1.Namespace {
			n := labelledNamespace("blue-three", "blue")
			n.Finalizers = []string{"blue.example.com/hold"}
			return n
		}()), want: "LL025", near: ownApply},

		// Namespaces not its own: the same answer whether they exist or not.
		ownApply: {as: "reconciler", do: apply(labelledNamespace("blue-three", "blue"))},
		"patch another tenant's namespace": {as: "reconciler", do: mergePatch("red-apps", `{"metadata":{"annotations":{"blue.example.com/owner":"web"}}}`),
			want: notFound, near: ownAnnotation},
		"apply another tenant's namespace":     {as: "reconciler", do: apply(labelledNamespace("red-apps", "blue")), want: notFound, near: ownApply},
		"apply a namespace outside its prefix": {as: "reconciler", do: apply(labelledNamespace("nowhere", "blue")), want: notFound, near: ownApply},
	})
}

// TestAttacksNamespaceOracle: self-service grants patch and create on every
// namespace, so the guard must answer a tenant's write to a namespace that
// exists and is not its own exactly as the apiserver answers one to a name
// that does not exist. Through server-side apply (Flux, kubectl apply
// --server-side) and create, both go through the guard and read the same.
// Through merge patches the apiserver answers a missing name before any
// webhook: code, reason and details still match, and the message differs
// only by the prefix the apiserver puts on every webhook's denial.
func TestAttacksNamespaceOracle(t *testing.T) {
	attackWorld(t)
	tenant := identities["reconciler"]
	const missing = "no-such-namespace"
	if err := k8s.Get(ctx, client.ObjectKey{Name: missing}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
		t.Fatalf("namespace %s: %v, want it missing", missing, err)
	}
	const team = `{"metadata":{"labels":{"team":"web"}}}`
	writes := map[string]func(name string) func(client.Client) error{
		"merge patch": func(name string) func(client.Client) error { return rawPatch(types.MergePatchType, name, team) },
		"strategic patch": func(name string) func(client.Client) error {
			return rawPatch(types.StrategicMergePatchType, name, team)
		},
		"server-side apply": func(name string) func(client.Client) error { return apply(labelledNamespace(name, "blue")) },
		"create":            func(name string) func(client.Client) error { return create(labelledNamespace(name, "blue")) },
	}
	// The platform still reads the rule: the denial counts as LL009.
	before := webhook.DenialCount("blue", "LL009")
	patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"web"}}}`))
	if err := tenant.Patch(ctx, ns("red-apps"), patch); !apierrors.IsNotFound(err) {
		t.Fatalf("patch red-apps: %v, want NotFound", err)
	}
	if after := webhook.DenialCount("blue", "LL009"); after != before+1 {
		t.Errorf("landlord_admission_denials_total{tenant=blue,rule=LL009} went from %v to %v", before, after)
	}
	for how, write := range writes {
		for _, existing := range []string{"red-apps", "kube-system"} {
			t.Run(how+" "+existing, func(t *testing.T) {
				got := statusOf(t, write(existing)(tenant), existing)
				want := statusOf(t, write(missing)(tenant), missing)
				if got.Code != want.Code || got.Reason != want.Reason || !equality.Semantic.DeepEqual(got.Details, want.Details) {
					t.Fatalf("existing %s answered %d %s %+v, missing %s answered %d %s %+v", existing,
						got.Code, got.Reason, got.Details, missing, want.Code, want.Reason, want.Details)
				}
				if got.Code != 404 || got.Reason != metav1.StatusReasonNotFound {
					t.Fatalf("existing %s answered %d %s, want 404 NotFound", existing, got.Code, got.Reason)
				}
				if how == "merge patch" || how == "strategic patch" {
					got.Message = strings.TrimPrefix(got.Message, `admission webhook "namespaces.landlord.dev" denied the request: `)
				}
				if got.Message != want.Message {
					t.Errorf("existing %s answered %q, missing %s answered %q", existing, got.Message, missing, want.Message)
				}
			})
		}
	}
}

// answer is what a client reads of a denial.
type answer struct {
	Code    int32
	Reason  metav1.StatusReason
	Details metav1.StatusDetails
	Message string
}

// statusOf is the answer err carries, with the namespace's name replaced so
// that answers about two names compare.
func statusOf(t *testing.T, err error, name string) answer {
	t.Helper()
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("namespace %s: got %v, want an API status", name, err)
	}
	s := status.Status()
	a := answer{Code: s.Code, Reason: s.Reason, Message: strings.ReplaceAll(s.Message, `"`+name+`"`, `"NAME"`)}
	if s.Details != nil {
		a.Details = *s.Details
		if a.Details.Name == name {
			a.Details.Name = "NAME"
		}
	}
	return a
}
