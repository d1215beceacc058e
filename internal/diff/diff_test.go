package diff_test

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/diff"
)

func tenant(name string, change func(*v1alpha1.Tenant)) *v1alpha1.Tenant {
	t := &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1alpha1.TenantSpec{
		Namespaces: []v1alpha1.TenantNamespace{{Name: name + "-a"}, {Name: name + "-b"}},
		Quota:      &v1alpha1.Quota{Hard: corev1.ResourceList{"pods": resource.MustParse("10")}},
		Sources:    []v1alpha1.Source{{Name: name, Git: &v1alpha1.GitSource{URL: "https://git.example.com/" + name}}},
	}}
	if change != nil {
		change(t)
	}
	return t
}

func TestCompareDestructive(t *testing.T) {
	used := map[string]corev1.ResourceList{"dev-a": {"pods": resource.MustParse("4")}, "dev-b": {"pods": resource.MustParse("3")}}
	for name, tc := range map[string]struct {
		base, head []*v1alpha1.Tenant
		live       map[string]diff.Live
		want       []string
		changed    bool
	}{
		"unchanged": {base: []*v1alpha1.Tenant{tenant("dev", nil)}, head: []*v1alpha1.Tenant{tenant("dev", nil)}},
		// The render lists namespaces in spec order: objects change, no
		// field does, nothing is destroyed.
		"namespaces reordered": {
			base:    []*v1alpha1.Tenant{tenant("dev", nil)},
			head:    []*v1alpha1.Tenant{tenant("dev", func(t *v1alpha1.Tenant) { slices.Reverse(t.Spec.Namespaces) })},
			changed: true,
		},
		"added": {head: []*v1alpha1.Tenant{tenant("dev", nil)}, changed: true},
		"removed, retained": {
			base: []*v1alpha1.Tenant{tenant("dev", func(t *v1alpha1.Tenant) { t.Spec.DeletionPolicy = v1alpha1.DeletionPolicyRetain })},
			want: []string{"tenant dev is removed (deletionPolicy Retain)", "namespace dev-a is released with its data: dev's bindings and Flux objects there are removed",
				"namespace dev-b is released with its data: dev's bindings and Flux objects there are removed"},
			changed: true,
		},
		"namespace removed, live": {
			base:    []*v1alpha1.Tenant{tenant("dev", nil)},
			head:    []*v1alpha1.Tenant{tenant("dev", func(t *v1alpha1.Tenant) { t.Spec.Namespaces = t.Spec.Namespaces[:1] })},
			live:    map[string]diff.Live{"dev": {Objects: map[string]int{"dev-a": 3, "dev-b": 7}}},
			want:    []string{"namespace dev-b (it holds 7 objects) is deleted with everything in it"},
			changed: true,
		},
		"quota lowered below use": {
			base:    []*v1alpha1.Tenant{tenant("dev", nil)},
			head:    []*v1alpha1.Tenant{tenant("dev", func(t *v1alpha1.Tenant) { t.Spec.Quota.Hard["pods"] = resource.MustParse("3") })},
			live:    map[string]diff.Live{"dev": {QuotaUsed: used}},
			want:    []string{"quota pods is lowered from 10 to 3, below current use: dev-a uses 4"},
			changed: true,
		},
		"quota lowered above use": {
			base:    []*v1alpha1.Tenant{tenant("dev", nil)},
			head:    []*v1alpha1.Tenant{tenant("dev", func(t *v1alpha1.Tenant) { t.Spec.Quota.Hard["pods"] = resource.MustParse("5") })},
			live:    map[string]diff.Live{"dev": {QuotaUsed: used}},
			want:    []string{"quota pods is lowered from 10 to 5"},
			changed: true,
		},
		"tenant-wide quota lowered below the sum of use": {
			base: []*v1alpha1.Tenant{tenant("dev", func(t *v1alpha1.Tenant) { t.Spec.Quota.Scope = v1alpha1.QuotaScopeTenant })},
			head: []*v1alpha1.Tenant{tenant("dev", func(t *v1alpha1.Tenant) {
				t.Spec.Quota.Scope = v1alpha1.QuotaScopeTenant
				t.Spec.Quota.Hard["pods"] = resource.MustParse("5")
			})},
			live:    map[string]diff.Live{"dev": {QuotaUsed: used}},
			want:    []string{"quota pods is lowered from 10 to 5, below current use 7"},
			changed: true,
		},
		"deletion policy": {
			base:    []*v1alpha1.Tenant{tenant("dev", nil)},
			head:    []*v1alpha1.Tenant{tenant("dev", func(t *v1alpha1.Tenant) { t.Spec.DeletionPolicy = v1alpha1.DeletionPolicyRetain })},
			want:    []string{"deletionPolicy changes from Delete to Retain"},
			changed: true,
		},
		"source path": {
			base:    []*v1alpha1.Tenant{tenant("dev", nil)},
			head:    []*v1alpha1.Tenant{tenant("dev", func(t *v1alpha1.Tenant) { t.Spec.Sources[0].Path = "./prod" })},
			want:    []string{"source dev path changes from . to ./prod"},
			changed: true,
		},
		"source removed": {
			base:    []*v1alpha1.Tenant{tenant("dev", nil)},
			head:    []*v1alpha1.Tenant{tenant("dev", func(t *v1alpha1.Tenant) { t.Spec.Sources = nil })},
			want:    []string{"source dev is removed: Flux prunes what it applied"},
			changed: true,
		},
		"cluster role removed": {
			base:    []*v1alpha1.Tenant{tenant("dev", func(t *v1alpha1.Tenant) { t.Spec.ExtraClusterRoles = []string{"crd-view"} })},
			head:    []*v1alpha1.Tenant{tenant("dev", nil)},
			want:    []string{"ClusterRoleBinding of cluster role crd-view is removed"},
			changed: true,
		},
		"namespace moved": {
			base: []*v1alpha1.Tenant{tenant("dev", nil), tenant("ops", nil)},
			head: []*v1alpha1.Tenant{tenant("dev", func(t *v1alpha1.Tenant) { t.Spec.Namespaces = t.Spec.Namespaces[:1] }),
				tenant("ops", func(t *v1alpha1.Tenant) {
					t.Spec.Namespaces = append(t.Spec.Namespaces, v1alpha1.TenantNamespace{Name: "dev-b"})
				})},
			want:    []string{"namespace dev-b moves to tenant ops: its data stays, dev's bindings and Flux objects there are removed"},
			changed: true,
		},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := diff.Compare(diff.Input{Base: map[string][]*v1alpha1.Tenant{"tenants/staging": tc.base},
				Head: map[string][]*v1alpha1.Tenant{"tenants/staging": tc.head}, Live: tc.live})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range r.Destructive {
				got = append(got, d.Message)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("destructive:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if r.Changed() != tc.changed {
				t.Errorf("Changed() = %v, want %v", r.Changed(), tc.changed)
			}
		})
	}
}

// TestCompareRenderError names the overlay and tenant that do not render.
func TestCompareRenderError(t *testing.T) {
	bad := tenant("dev", func(t *v1alpha1.Tenant) {
		t.Spec.Namespaces = append(t.Spec.Namespaces, v1alpha1.TenantNamespace{Name: "Not_A_Name"})
	})
	_, err := diff.Compare(diff.Input{Head: map[string][]*v1alpha1.Tenant{"tenants/prod": {bad}}})
	if err == nil || !strings.Contains(err.Error(), "tenants/prod: tenant dev does not render") {
		t.Errorf("err = %v, want one naming the overlay and tenant", err)
	}
}

// TestCompareGuard: a repository that stops passing is destructive; one
// that starts passing is a change.
func TestCompareGuard(t *testing.T) {
	passes := diff.Verdict{Tenant: true}
	fails := func(findings ...string) diff.Verdict { return diff.Verdict{Tenant: true, Findings: findings} }
	for name, tc := range map[string]struct {
		v           diff.Verdicts
		destructive bool
	}{
		"stops passing":      {v: diff.Verdicts{Before: passes, After: fails("x")}, destructive: true},
		"starts passing":     {v: diff.Verdicts{Before: fails("x"), After: passes}},
		"still failing":      {v: diff.Verdicts{Before: fails("x"), After: fails("x", "y")}},
		"new tenant failing": {v: diff.Verdicts{After: fails("x")}},
		"tenant removed":     {v: diff.Verdicts{Before: passes}},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := diff.Compare(diff.Input{Guard: map[string]diff.Verdicts{"dev": tc.v}})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(r.Destructive) > 0; got != tc.destructive {
				t.Errorf("destructive = %v, want %v", got, tc.destructive)
			}
			if !r.Changed() {
				t.Error("a changed verdict is no change")
			}
		})
	}
}
