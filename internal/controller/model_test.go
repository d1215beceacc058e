package controller_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/apply"
	"github.com/landlord-dev/landlord/internal/controller"
	"github.com/landlord-dev/landlord/internal/render"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

var (
	modelSteps = flag.Int("model.steps", 200, "Tenant edits TestConvergenceModel makes")
	modelSeed  = flag.Uint64("model.seed", 1, "seed of TestConvergenceModel's edits")
)

// TestConvergenceModel makes a seeded random sequence of Tenant edits,
// each adding, changing or removing one field, and after each requires
// every rendered object to be exactly what the API server would make of
// applying the render as Landlord: a server-side dry-run apply under
// Landlord's manager changes nothing, so no field Landlord once set and
// the render dropped is left. Landlord's fields are all under its one
// apply entry, guard rails carry no other writer's, and no object of the
// tenant is outside the render. Then a resync sends no write.
// make model runs it longer (2,000 steps, or MODEL_FLAGS).
func TestConvergenceModel(t *testing.T) {
	t.Parallel()
	seed := *modelSeed
	t.Logf("seed %d, %d steps", seed, *modelSteps)
	rng := rand.New(rand.NewPCG(seed, seed))
	tenant := exactTenant("model")
	tenant.Spec.Namespaces = append(tenant.Spec.Namespaces, v1alpha1.TenantNamespace{Name: "model-jobs"})
	create(t, tenant)
	t.Cleanup(func() { deleteTenant(t, tenant.Name) })
	kinds := renderedKinds(t, tenant)

	for step := range *modelSteps {
		var what string
		updateTenant(t, tenant.Name, func(tn *v1alpha1.Tenant) { what = edit(rng, tn) })
		eventually(t, fmt.Sprintf("step %d (%s)", step, what), func() error { return converged(tenant.Name, kinds) })
	}

	mark, err := env.MarkAudit()
	if err != nil {
		t.Fatal(err)
	}
	if err := k8s.Patch(ctx, &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: tenant.Name}},
		client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"example.com/resync":"1"}}}`))); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // the resync's reconcile, and any it would wake
	writes, err := env.WritesSince(mark, tenancy.ControllerUser(tenancy.ControllerNamespace))
	if err != nil {
		t.Fatal(err)
	}
	cur := &v1alpha1.Tenant{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: tenant.Name}, cur); err != nil {
		t.Fatal(err)
	}
	for _, w := range writes {
		if slices.Contains(cur.NamespaceNames(), w.Namespace) || w.Name == tenant.Name {
			t.Errorf("the resync of a converged tenant wrote %+v", w)
		}
	}
}

// edit changes one field of the Tenant at random and says which.
func edit(rng *rand.Rand, t *v1alpha1.Tenant) string {
	pick := func(options ...string) string { return options[rng.IntN(len(options))] }
	s := &t.Spec
	switch rng.IntN(9) {
	case 0:
		key := pick("A", "B", "C", "GONE")
		if s.Variables == nil {
			s.Variables = map[string]string{}
		}
		if _, ok := s.Variables[key]; ok && rng.IntN(2) == 0 {
			delete(s.Variables, key)
			return "variable " + key + " removed"
		}
		s.Variables[key] = pick("x", "y")
		return "variable " + key + " set"
	case 1:
		key := corev1.ResourceName(pick("services", "configmaps", "secrets", "requests.cpu", "limits.memory"))
		if _, ok := s.Quota.Hard[key]; ok && rng.IntN(2) == 0 {
			delete(s.Quota.Hard, key)
			return "quota " + string(key) + " removed"
		}
		s.Quota.Hard[key] = resource.MustParse(pick("1", "2", "3"))
		return "quota " + string(key) + " set"
	case 2:
		all := []corev1.LimitRangeItem{
			{Type: corev1.LimitTypeContainer, Default: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(pick("100m", "200m"))}},
			{Type: corev1.LimitTypePod, Max: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}},
		}
		n := rng.IntN(3)
		if n == 0 {
			s.LimitRange = nil
		} else {
			s.LimitRange = &v1alpha1.LimitRange{Limits: all[:n]}
		}
		return fmt.Sprintf("%d limit range entries", n)
	case 3:
		s.Network.AllowFrom = nil
		for _, ns := range []string{"monitoring", "ingress-nginx", "logging"} {
			if rng.IntN(2) == 0 {
				s.Network.AllowFrom = append(s.Network.AllowFrom, ns)
			}
		}
		return fmt.Sprintf("allowFrom %v", s.Network.AllowFrom)
	case 4:
		if rng.IntN(3) == 0 {
			s.Notifications = nil
			return "no notifications"
		}
		s.Notifications = &v1alpha1.Notifications{Type: "slack", Channel: pick("", "#ops", "#dev"), SecretRef: "slack", EventSeverity: pick("", "info", "error")}
		return fmt.Sprintf("notifications %+v", *s.Notifications)
	case 5, 6:
		if len(s.Sources) == 0 {
			s.Sources = []v1alpha1.Source{{Name: "apps", Git: &v1alpha1.GitSource{URL: "https://git.example.com/model"}}}
			return "source back"
		}
		src := &s.Sources[0]
		switch field := pick("path", "secretRef", "ref", "timeout", "prune", "interval", "targetNamespace", "decryption", "dependsOn"); field {
		case "path":
			src.Path = pick("", "./staging", "./production")
		case "secretRef":
			src.Git.SecretRef = pick("", "git-auth")
		case "ref":
			src.Git.Ref = []*v1alpha1.GitRef{nil, {Branch: "main"}, {Tag: "v1.0.0"}}[rng.IntN(3)]
		case "timeout":
			src.Timeout = []*metav1.Duration{nil, {Duration: time.Minute}}[rng.IntN(2)]
		case "prune":
			src.Prune = []*bool{nil, ptr.To(false), ptr.To(true)}[rng.IntN(3)]
		case "interval":
			src.Interval = []*metav1.Duration{nil, {Duration: 2 * time.Minute}}[rng.IntN(2)]
		case "targetNamespace":
			src.TargetNamespace = pick("", "model-apps", "model-jobs")
		case "decryption":
			src.Decryption = []*v1alpha1.Decryption{nil, {Provider: "sops", SecretRef: "sops-age"}}[rng.IntN(2)]
		case "dependsOn":
			if len(s.Sources) > 1 && len(src.DependsOn) == 0 {
				src.DependsOn = []string{s.Sources[1].Name}
			} else {
				src.DependsOn = nil
			}
		}
		return "source " + s.Sources[0].Name + " changed"
	case 7:
		if len(s.Sources) > 1 {
			for i := range s.Sources {
				s.Sources[i].DependsOn = nil
			}
			s.Sources = s.Sources[:1]
			return "second source removed"
		}
		s.Sources = append(s.Sources, v1alpha1.Source{Name: "infra", Git: &v1alpha1.GitSource{URL: "https://git.example.com/infra"}, Path: "./infra"})
		return "second source added"
	default:
		if rng.IntN(2) == 0 {
			s.PodSecurity = v1alpha1.PodSecurityLevel(pick("restricted", "baseline"))
			return "pod security " + string(s.PodSecurity)
		}
		extra := v1alpha1.Owner{Kind: "User", Name: "model-extra"}
		if i := slices.Index(s.Owners, extra); i >= 0 {
			s.Owners = slices.Delete(s.Owners, i, i+1)
			return "owner removed"
		}
		s.Owners = append(s.Owners, extra)
		return "owner added"
	}
}

// renderedKinds are the kinds the render of a Tenant with every field set
// makes: those checked for objects the render no longer holds.
func renderedKinds(t *testing.T, tenant *v1alpha1.Tenant) []schema.GroupVersionKind {
	objects, err := render.Objects(tenant, render.Holdings{})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []schema.GroupVersionKind
	for _, obj := range objects {
		if gvk := obj.GetObjectKind().GroupVersionKind(); !slices.Contains(kinds, gvk) {
			kinds = append(kinds, gvk)
		}
	}
	return kinds
}

// converged checks the live objects of a reconciled Tenant against its render.
func converged(name string, kinds []schema.GroupVersionKind) error {
	if _, err := condition(name, v1alpha1.ReadyCondition); err != nil {
		return err
	}
	tenant := &v1alpha1.Tenant{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: name}, tenant); err != nil {
		return err
	}
	desired, err := render.Objects(tenant, render.Holdings{})
	if err != nil {
		return err
	}
	rendered := map[string]bool{}
	for _, obj := range desired {
		gvk := obj.GetObjectKind().GroupVersionKind()
		rendered[gvk.Kind+" "+client.ObjectKeyFromObject(obj).String()] = true
		if err := exact(obj); err != nil {
			return fmt.Errorf("%s %s: %w", gvk.Kind, client.ObjectKeyFromObject(obj), err)
		}
	}
	for _, gvk := range kinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := k8s.List(ctx, list, client.MatchingLabels{v1alpha1.TenantLabel: name, v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue}); err != nil {
			return err
		}
		for _, item := range list.Items {
			if id := gvk.Kind + " " + client.ObjectKeyFromObject(&item).String(); !rendered[id] && item.GetDeletionTimestamp() == nil {
				return fmt.Errorf("%s left the render and is still there", id)
			}
		}
	}
	return nil
}

// exact reports how the live object differs from what a forced apply of
// desired under Landlord's manager would make of it.
func exact(desired client.Object) error {
	sent, err := apply.Normalized(desired)
	if err != nil {
		return err
	}
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(sent.GroupVersionKind())
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(sent), live); err != nil {
		return err
	}
	_, isNamespace := desired.(*corev1.Namespace)
	flux := sent.GroupVersionKind().Group == "source.toolkit.fluxcd.io" || sent.GroupVersionKind().Group == "kustomize.toolkit.fluxcd.io"
	for _, e := range live.GetManagedFields() {
		switch {
		case e.Subresource != "":
		case e.Manager == controller.FieldOwner && e.Operation != metav1.ManagedFieldsOperationApply:
			// Landlord's create, handed to its apply only when a change must
			// remove one of its fields: until then the render sets them all.
			created, _, err := apply.Owned(&metav1.ObjectMeta{ManagedFields: []metav1.ManagedFieldsEntry{e}}, controller.FieldOwner)
			if err != nil {
				return err
			}
			if p, unset := apply.Unset(created, sent.Object); unset {
				return fmt.Errorf("%s under a plain write of Landlord's, which the render no longer sets and an apply cannot remove", p)
			}
		case e.Manager != controller.FieldOwner && !isNamespace && !flux:
			return fmt.Errorf("fields of %s (%s) on a guard rail", e.Manager, e.Operation)
		}
	}
	data, err := json.Marshal(sent)
	if err != nil {
		return err
	}
	would := &unstructured.Unstructured{}
	would.SetGroupVersionKind(sent.GroupVersionKind())
	would.SetNamespace(sent.GetNamespace())
	would.SetName(sent.GetName())
	if err := k8s.Patch(ctx, would, client.RawPatch(types.ApplyPatchType, data),
		client.FieldOwner(controller.FieldOwner), client.ForceOwnership, client.DryRunAll); err != nil {
		return fmt.Errorf("dry-run apply: %w", err)
	}
	if a, b := content(live), content(would); !equality.Semantic.DeepEqual(a, b) {
		return fmt.Errorf("an apply of the render would change it:\nlive  %v\napply %v", a, b)
	}
	return nil
}

// content is an object without what every write changes.
func content(u *unstructured.Unstructured) map[string]any {
	c := u.DeepCopy().Object
	unstructured.RemoveNestedField(c, "metadata", "managedFields")
	unstructured.RemoveNestedField(c, "metadata", "resourceVersion")
	unstructured.RemoveNestedField(c, "metadata", "generation")
	unstructured.RemoveNestedField(c, "status")
	return c
}
