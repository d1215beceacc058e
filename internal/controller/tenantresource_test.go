package controller_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// manifest is obj as a TenantResource lists it.
func manifest(t *testing.T, obj map[string]any) v1alpha1.Manifest {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var m v1alpha1.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTenantResourceStampsPlatformObjects stamps a ConfigMap of cluster
// facts, a NetworkPolicy and a copied pull secret into every namespace of
// the tenants a TenantResource selects: variables substituted, drift and
// source changes followed, the tenant kept from changing them, a tenant's
// own object of the same name never written over, and everything pruned
// when the declaration lets go. The tenant beside it, not selected, gets
// nothing.
func TestTenantResourceStampsPlatformObjects(t *testing.T) {
	t.Parallel()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenancy.ControllerNamespace}}
	if err := k8s.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	source := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: tenancy.ControllerNamespace, Name: "stamp-registry"},
		Type:       corev1.SecretTypeDockerConfigJson,
		Data:       map[string][]byte{corev1.DockerConfigJsonKey: []byte(`{"auths":{"registry.example":{"auth":"b25lOnR3bw=="}}}`)},
	}
	if err := k8s.Create(ctx, source); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, source) })

	selected := newTenant("stamp-a", "stamp-a1", "stamp-a2")
	selected.Labels = map[string]string{"stamp-test": "gold"}
	selected.Spec.Variables = map[string]string{"REGION": "eu-west"}
	other := newTenant("stamp-b", "stamp-b1")
	for _, tenant := range []*v1alpha1.Tenant{selected, other} {
		create(t, tenant)
		t.Cleanup(func() { deleteTenant(t, tenant.Name) })
		waitReady(t, tenant.Name)
	}
	// The tenant made a ConfigMap of that name first: it stays the tenant's.
	own := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "stamp-a2", Name: "cluster-facts"}, Data: map[string]string{"owner": "tenant"}}
	if err := k8s.Create(ctx, own); err != nil {
		t.Fatal(err)
	}

	tr := &v1alpha1.TenantResource{
		ObjectMeta: metav1.ObjectMeta{Name: "stamp-platform"},
		Spec: v1alpha1.TenantResourceSpec{
			TenantSelector: metav1.LabelSelector{MatchLabels: map[string]string{"stamp-test": "gold"}},
			Objects: []v1alpha1.Manifest{
				manifest(t, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cluster-facts"},
					"data": map[string]any{"tenant": "${TENANT_NAME}", "namespace": "${TENANT_NAMESPACE}", "region": "${REGION}"}}),
				manifest(t, map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": "platform-agent"}}),
				manifest(t, map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": map[string]any{"name": "platform-egress"},
					"spec": map[string]any{"podSelector": map[string]any{}, "policyTypes": []any{"Egress"}, "egress": []any{map[string]any{"ports": []any{map[string]any{"port": 53, "protocol": "UDP"}}}}}}),
			},
			Secrets: []v1alpha1.SecretCopy{{Name: source.Name, As: "pull-secret"}},
		},
	}
	if err := k8s.Create(ctx, tr); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, tr) })

	facts := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "stamp-a1", Name: "cluster-facts"}}
	eventually(t, "cluster facts stamped with the tenant's variables", func() error {
		if err := exists(facts); err != nil {
			return err
		}
		want := map[string]string{"tenant": "stamp-a", "namespace": "stamp-a1", "region": "eu-west"}
		if fmt.Sprint(facts.Data) != fmt.Sprint(want) || facts.Labels[v1alpha1.TenantResourceLabel] != tr.Name {
			return fmt.Errorf("data %v labels %v, want %v from %s", facts.Data, facts.Labels, want, tr.Name)
		}
		return nil
	})
	copied := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "stamp-a2", Name: "pull-secret"}}
	eventually(t, "the pull secret copied", func() error {
		if err := exists(copied); err != nil {
			return err
		}
		if copied.Type != source.Type || string(copied.Data[corev1.DockerConfigJsonKey]) != string(source.Data[corev1.DockerConfigJsonKey]) {
			return fmt.Errorf("copy %s %q, want the source's", copied.Type, copied.Data)
		}
		return nil
	})
	for _, obj := range []client.Object{
		&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "stamp-a1", Name: "platform-egress"}},
		&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "stamp-a2", Name: "platform-egress"}},
	} {
		if err := exists(obj); err != nil {
			t.Error(err)
		}
	}
	eventually(t, "the tenant's own ConfigMap reported, not taken over", func() error {
		c, err := condition(selected.Name, v1alpha1.ReadyCondition)
		if err != nil {
			return err
		}
		if c.Reason != "NotAdopted" || !strings.Contains(c.Message, "ConfigMap stamp-a2/cluster-facts") {
			return fmt.Errorf("Ready %s %s: %s", c.Status, c.Reason, c.Message)
		}
		return nil
	})
	if err := exists(own); err != nil || own.Data["owner"] != "tenant" || own.Labels[v1alpha1.ManagedByLabel] != "" {
		t.Errorf("the tenant's ConfigMap was written over: %v %v %v", err, own.Data, own.Labels)
	}
	for _, obj := range []client.Object{
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "stamp-b1", Name: "cluster-facts"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "stamp-b1", Name: "pull-secret"}},
	} {
		if err := gone(obj); err != nil {
			t.Errorf("a tenant the TenantResource does not select: %v", err)
		}
	}

	// A stamped account is the platform's: no tenant pod runs as it and no
	// token of it is minted (LL012); the tenant's own account still serves.
	agent := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "stamp-a1", Name: "platform-agent"}}
	eventually(t, "the account stamped", func() error { return exists(agent) })
	owner := impersonate("alice", "stamp-a-owners")
	for name, account := range map[string]string{"stamped": "platform-agent", "own": "default"} {
		// Restricted, so that Pod Security admits it and the guard judges it.
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "stamp-a1", Name: "as-" + name}, Spec: corev1.PodSpec{
			ServiceAccountName: account,
			SecurityContext:    &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{Name: "app", Image: "example.com/app:1", SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}}},
		}}
		token := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "stamp-a1", Name: "token-" + name, Annotations: map[string]string{corev1.ServiceAccountNameKey: account}},
			Type: corev1.SecretTypeServiceAccountToken}
		for _, obj := range []client.Object{pod, token} {
			err := owner.Create(ctx, obj, client.DryRunAll)
			if refused := err != nil && strings.Contains(err.Error(), "LL012"); refused != (name == "stamped") || name == "own" && err != nil {
				t.Errorf("the owner's %T as the %s account %s: err = %v", obj, name, account, err)
			}
		}
	}

	// The tenant may not change what the platform stamped.
	for _, as := range []client.Client{impersonate("alice", "stamp-a-owners"), impersonate("system:serviceaccount:stamp-a1:stamp-a")} {
		// A patch, not an update: the guard must answer, whatever the
		// object's resourceVersion since it was read.
		changed := facts.DeepCopy()
		changed.Data["region"] = "anywhere"
		if err := as.Patch(ctx, changed, client.MergeFrom(facts)); err == nil || !strings.Contains(err.Error(), "LL010") {
			t.Errorf("a tenant changed a stamped ConfigMap: err = %v", err)
		}
		if err := as.Delete(ctx, copied.DeepCopy()); err == nil || !strings.Contains(err.Error(), "LL010") {
			t.Errorf("a tenant deleted a copied Secret: err = %v", err)
		}
	}
	// Neighbour: its own objects beside them stay its own to write.
	mine := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "stamp-a1", Name: "app-config"}, Data: map[string]string{"a": "b"}}
	if err := impersonate("alice", "stamp-a-owners").Create(ctx, mine); err != nil {
		t.Errorf("the tenant's own ConfigMap beside the stamps: %v", err)
	}

	// Drift and a rotated source are followed.
	if err := k8s.Delete(ctx, copied.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the deleted copy restored", func() error { return exists(copied.DeepCopy()) })
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(source), source); err != nil {
			return err
		}
		source.Data[corev1.DockerConfigJsonKey] = []byte(`{"auths":{"registry.example":{"auth":"dGhyZWU6Zm91cg=="}}}`)
		return k8s.Update(ctx, source)
	})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the rotated source copied", func() error {
		got := &corev1.Secret{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(copied), got); err != nil {
			return err
		}
		if !strings.Contains(string(got.Data[corev1.DockerConfigJsonKey]), "dGhyZWU6Zm91cg==") {
			return fmt.Errorf("copy still %q", got.Data[corev1.DockerConfigJsonKey])
		}
		return nil
	})

	// A declaration that drops an object, then one that lets the tenant go.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(tr), tr); err != nil {
			return err
		}
		tr.Spec.Objects = tr.Spec.Objects[:1]
		return k8s.Update(ctx, tr)
	})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the dropped NetworkPolicy pruned", func() error {
		return gone(&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "stamp-a1", Name: "platform-egress"}})
	})
	updateTenant(t, selected.Name, func(t *v1alpha1.Tenant) { t.Labels = nil })
	eventually(t, "every stamp pruned once the tenant is not selected", func() error {
		for _, obj := range []client.Object{facts.DeepCopy(), copied.DeepCopy()} {
			if err := gone(obj); err != nil {
				return err
			}
		}
		return nil
	})
	for _, obj := range []client.Object{own, mine} {
		if err := exists(obj); err != nil {
			t.Errorf("pruning the stamps took the tenant's own: %v", err)
		}
	}
	waitReady(t, selected.Name)
}

// TestTenantResourceRefusesWhatTheGuardDoesNotWatch: a kind the guard does
// not keep from tenants, or a namespace set by hand, is refused at
// admission with the field named; its neighbour, a ConfigMap, is not.
func TestTenantResourceRefusesWhatTheGuardDoesNotWatch(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		obj  map[string]any
		want string
	}{
		"a Deployment": {map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "x"}}, "spec.objects[] must be a v1 ConfigMap"},
		"a namespace":  {map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x", "namespace": "kube-system"}}, "spec.objects[].metadata must set a name and no namespace"},
		"a ConfigMap":  {map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}}, ""},
	} {
		tr := &v1alpha1.TenantResource{
			ObjectMeta: metav1.ObjectMeta{Name: "refused-" + strings.ReplaceAll(strings.ToLower(name), " ", "-")},
			Spec: v1alpha1.TenantResourceSpec{
				TenantSelector: metav1.LabelSelector{MatchLabels: map[string]string{"selects": "nothing"}},
				Objects:        []v1alpha1.Manifest{manifest(t, tc.obj)},
			},
		}
		err := k8s.Create(ctx, tr, client.DryRunAll)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
	}
}
