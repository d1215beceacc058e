package controller_test

import (
	"fmt"
	"slices"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	notificationv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

// exactTenant sets a field of every kind a removal can take away.
func exactTenant(name string) *v1alpha1.Tenant {
	tenant := newTenant(name, name+"-apps")
	tenant.Spec.Variables = map[string]string{"CLUSTER": "test", "GONE": "soon"}
	tenant.Spec.Quota.Hard[corev1.ResourceServices] = resource.MustParse("3")
	tenant.Spec.LimitRange = &v1alpha1.LimitRange{Limits: []corev1.LimitRangeItem{
		{Type: corev1.LimitTypeContainer, Default: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}},
		{Type: corev1.LimitTypePod, Max: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}},
	}}
	tenant.Spec.Network.AllowFrom = []string{"monitoring"}
	tenant.Spec.Notifications = &v1alpha1.Notifications{Type: "slack", Channel: "#ops", SecretRef: "slack", EventSeverity: "error"}
	tenant.Spec.Sources = []v1alpha1.Source{{
		Name:            "apps",
		Git:             &v1alpha1.GitSource{URL: "https://git.example.com/" + name, SecretRef: "git-auth", Ref: &v1alpha1.GitRef{Branch: "main"}},
		Path:            "./staging",
		Timeout:         &metav1.Duration{Duration: 90e9},
		Decryption:      &v1alpha1.Decryption{Provider: "sops", SecretRef: "sops-age"},
		TargetNamespace: name + "-apps",
	}}
	return tenant
}

// TestRemovalsLeaveTheCluster: what leaves a Tenant leaves the live
// objects in one reconcile, map keys and optional fields included, and
// what another writer adds to a guard rail is taken back.
func TestRemovalsLeaveTheCluster(t *testing.T) {
	t.Parallel()
	tenant := exactTenant("exact")
	ns := "exact-apps"
	create(t, tenant)
	t.Cleanup(func() { deleteTenant(t, tenant.Name) })
	eventually(t, "provisioned", func() error {
		_, err := condition(tenant.Name, v1alpha1.ReadyCondition)
		return err
	})
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: render.QuotaName}}
	vars := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: v1alpha1.VariablesConfigMap}}

	steps := []struct {
		name   string
		edit   func(*v1alpha1.Tenant)
		obj    client.Object
		absent func(client.Object) error
	}{
		{"a quota key", func(t *v1alpha1.Tenant) { delete(t.Spec.Quota.Hard, corev1.ResourceServices) }, quota,
			func(o client.Object) error {
				return absentKey(o.(*corev1.ResourceQuota).Spec.Hard, corev1.ResourceServices)
			}},
		{"a variable", func(t *v1alpha1.Tenant) { delete(t.Spec.Variables, "GONE") }, vars,
			func(o client.Object) error { return absentKey(o.(*corev1.ConfigMap).Data, "GONE") }},
		{"a limit range entry", func(t *v1alpha1.Tenant) { t.Spec.LimitRange.Limits = t.Spec.LimitRange.Limits[:1] },
			&corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: render.LimitRangeName}},
			func(o client.Object) error {
				if n := len(o.(*corev1.LimitRange).Spec.Limits); n != 1 {
					return fmt.Errorf("%d limits", n)
				}
				return nil
			}},
		{"a namespace network.allowFrom lets in", func(t *v1alpha1.Tenant) { t.Spec.Network.AllowFrom = nil },
			&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: render.NetworkPolicyName}},
			func(o client.Object) error {
				for _, rule := range o.(*networkingv1.NetworkPolicy).Spec.Ingress {
					for _, peer := range rule.From {
						if peer.NamespaceSelector != nil && peer.NamespaceSelector.MatchLabels[corev1.LabelMetadataName] == "monitoring" {
							return fmt.Errorf("monitoring still let in")
						}
					}
				}
				return nil
			}},
		{"the notifications' channel", func(t *v1alpha1.Tenant) { t.Spec.Notifications.Channel = "" },
			&notificationv1beta3.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: render.NotificationsName}},
			func(o client.Object) error {
				if c := o.(*notificationv1beta3.Provider).Spec.Channel; c != "" {
					return fmt.Errorf("channel %q", c)
				}
				return nil
			}},
		{"a source's secret and ref", func(t *v1alpha1.Tenant) { t.Spec.Sources[0].Git.SecretRef, t.Spec.Sources[0].Git.Ref = "", nil },
			&sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "apps"}},
			func(o client.Object) error {
				if spec := o.(*sourcev1.GitRepository).Spec; spec.SecretRef != nil || spec.Reference != nil {
					return fmt.Errorf("secretRef %v, ref %v", spec.SecretRef, spec.Reference)
				}
				return nil
			}},
		{"a source's timeout, decryption and target", func(t *v1alpha1.Tenant) {
			s := &t.Spec.Sources[0]
			s.Timeout, s.Decryption, s.TargetNamespace = nil, nil, ""
		}, &kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "apps"}},
			func(o client.Object) error {
				if spec := o.(*kustomizev1.Kustomization).Spec; spec.Timeout != nil || spec.Decryption != nil || spec.TargetNamespace != "" {
					return fmt.Errorf("timeout %v, decryption %v, target %q", spec.Timeout, spec.Decryption, spec.TargetNamespace)
				}
				return nil
			}},
	}
	for _, step := range steps {
		t.Run("removed "+step.name, func(t *testing.T) {
			updateTenant(t, tenant.Name, step.edit)
			eventually(t, step.name+" gone from the live object", func() error {
				if err := exists(step.obj); err != nil {
					return err
				}
				return step.absent(step.obj)
			})
		})
	}

	t.Run("removed a key of a TenantResource's object", func(t *testing.T) {
		tr := &v1alpha1.TenantResource{
			ObjectMeta: metav1.ObjectMeta{Name: "exact-facts"},
			Spec: v1alpha1.TenantResourceSpec{
				TenantSelector: metav1.LabelSelector{MatchLabels: map[string]string{"exact-test": "facts"}},
				Objects: []v1alpha1.Manifest{manifest(t, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "facts"},
					"data": map[string]any{"region": "eu", "gone": "soon"}})},
			},
		}
		if err := k8s.Create(ctx, tr); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(ctx, tr) })
		updateTenant(t, tenant.Name, func(t *v1alpha1.Tenant) { t.Labels = map[string]string{"exact-test": "facts"} })
		facts := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "facts"}}
		eventually(t, "stamped", func() error {
			if err := exists(facts); err != nil {
				return err
			}
			if facts.Data["gone"] != "soon" {
				return fmt.Errorf("data %v", facts.Data)
			}
			return nil
		})
		patch := `{"spec":{"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"facts"},"data":{"region":"eu"}}]}}`
		if err := k8s.Patch(ctx, tr, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the key gone from the stamped object", func() error {
			if err := exists(facts); err != nil {
				return err
			}
			return absentKey(facts.Data, "gone")
		})
	})

	t.Run("removed an approved cluster resource's name", func(t *testing.T) {
		updateTenant(t, tenant.Name, func(t *v1alpha1.Tenant) {
			t.Spec.ClusterResources = []v1alpha1.ClusterResource{{APIGroup: "storage.k8s.io", Kind: "StorageClass", Names: []string{"exact-fast", "exact-slow"}}}
		})
		names := func() ([]string, error) {
			roles := &rbacv1.ClusterRoleList{}
			if err := k8s.List(ctx, roles, client.MatchingLabels{v1alpha1.TenantLabel: tenant.Name}); err != nil {
				return nil, err
			}
			var out []string
			for _, r := range roles.Items {
				for _, rule := range r.Rules {
					if slices.Contains(rule.Resources, "storageclasses") {
						out = append(out, rule.ResourceNames...)
					}
				}
			}
			return out, nil
		}
		eventually(t, "both names granted", func() error {
			got, err := names()
			if err == nil && !slices.Contains(got, "exact-slow") {
				err = fmt.Errorf("names %v", got)
			}
			return err
		})
		updateTenant(t, tenant.Name, func(t *v1alpha1.Tenant) { t.Spec.ClusterResources[0].Names = []string{"exact-fast"} })
		eventually(t, "the removed name no longer granted", func() error {
			got, err := names()
			if err == nil && (slices.Contains(got, "exact-slow") || !slices.Contains(got, "exact-fast")) {
				err = fmt.Errorf("names %v", got)
			}
			return err
		})
	})

	// An admin's write, under a manager of its own, on guard rails.
	added := map[string]struct {
		obj    client.Object
		patch  string
		absent func(client.Object) error
	}{
		"quota key": {quota, `{"spec":{"hard":{"configmaps":"100"}}}`, func(o client.Object) error {
			return absentKey(o.(*corev1.ResourceQuota).Spec.Hard, corev1.ResourceConfigMaps)
		}},
		// The neighbour: a label another writer adds stays its own.
		"variable, beside its label": {vars, `{"data":{"EXTRA":"x"},"metadata":{"labels":{"example.com/extra":"x"}}}`, func(o client.Object) error {
			if o.GetLabels()["example.com/extra"] != "x" {
				return fmt.Errorf("the other writer's label was taken too: %v", o.GetLabels())
			}
			return absentKey(o.(*corev1.ConfigMap).Data, "EXTRA")
		}},
	}
	for name, a := range added {
		t.Run("another writer's "+name, func(t *testing.T) {
			target := a.obj.DeepCopyObject().(client.Object)
			if err := k8s.Patch(ctx, target, client.RawPatch(types.MergePatchType, []byte(a.patch)), client.FieldOwner("platform-admin")); err != nil {
				t.Fatal(err)
			}
			eventually(t, name+" taken back", func() error {
				if err := exists(target); err != nil {
					return err
				}
				return a.absent(target)
			})
		})
	}
}

func absentKey[K ~string, V any](m map[K]V, key K) error {
	if _, ok := m[key]; ok {
		return fmt.Errorf("%s still held: %v", key, m[key])
	}
	return nil
}
