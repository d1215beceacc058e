package charts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/policy"
	"github.com/landlord-dev/landlord/internal/tenancy"
	"github.com/landlord-dev/landlord/internal/testenv"
	"github.com/landlord-dev/landlord/internal/webhook"
)

// elsewhere is a namespace a platform team installs the chart in instead
// of landlord-system.
const elsewhere = "platform-landlord"

// TestChartInAnotherNamespace installs the chart in a namespace of the
// platform's choosing: nothing it renders names landlord-system, its
// admission objects are those the controller applies itself there, and a
// controller running there as its service account provisions a tenant
// through its own guards, refuses a Tenant claiming its namespace, and
// names itself in the guard's denials.
func TestChartInAnotherNamespace(t *testing.T) {
	ctx := context.Background()
	rendered, err := renderIn(elsewhere, nil)
	if err != nil {
		t.Fatal(err)
	}
	var objects []client.Object
	for _, u := range rendered {
		if u.GetKind() == "CustomResourceDefinition" {
			continue // the Tenant API reserves landlord-system by name
		}
		data, err := json.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), tenancy.ControllerNamespace) {
			t.Errorf("%s names %s:\n%s", key(u), tenancy.ControllerNamespace, data)
		}
		if ns := u.GetNamespace(); ns != "" && ns != elsewhere {
			t.Errorf("%s is in %s, not the release's namespace", key(u), ns)
		}
		// The controller applies its admission objects itself, which are
		// those rendered (below), pointed at its loopback address here.
		if u.GetKind() != "Deployment" && !strings.HasPrefix(u.GetAPIVersion(), "admissionregistration.k8s.io/") {
			objects = append(objects, u)
		}
	}

	// What the controller applies at start, in that namespace.
	validating, mutating := webhook.Configurations(webhook.Options{Namespace: elsewhere}, nil)
	var want []*unstructured.Unstructured
	for _, obj := range append([]client.Object{validating, mutating}, policy.ValidatingPolicies(policy.Platform{Namespace: elsewhere})...) {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			t.Fatal(err)
		}
		unstructured.RemoveNestedField(u, "metadata", "creationTimestamp")
		want = append(want, &unstructured.Unstructured{Object: u})
	}
	var got []*unstructured.Unstructured
	for _, u := range rendered {
		if strings.HasPrefix(u.GetAPIVersion(), "admissionregistration.k8s.io/") {
			got = append(got, u)
		}
	}
	compare(t, got, want)

	objects = append(objects, &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: elsewhere},
	})
	if _, err := install.Apply(ctx, k8s, io.Discard, objects...); err != nil {
		t.Fatal(err)
	}
	// Other tests applied the chart's configurations, which name the
	// webhooks' Service where this controller names its URL.
	for _, obj := range []client.Object{validating, mutating} {
		if err := client.IgnoreNotFound(k8s.Delete(ctx, obj)); err != nil {
			t.Fatal(err)
		}
	}
	controller, err := env.StartController(ctx, localcluster.ControllerOptions{Bin: controllerBin, Namespace: elsewhere})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = controller.Stop() })

	moved := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "moved"},
		Spec:       v1alpha1.TenantSpec{Namespaces: []v1alpha1.TenantNamespace{{Name: "moved-apps"}}},
	}
	squatter := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "squatter"},
		Spec:       v1alpha1.TenantSpec{Namespaces: []v1alpha1.TenantNamespace{{Name: elsewhere}}},
	}
	for _, tn := range []*v1alpha1.Tenant{moved, squatter} {
		if err := k8s.Create(ctx, tn); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(ctx, tn) })
	}
	// Landlord's own writes (the namespace, its labels, the reconciler's
	// RBAC) pass the guards only if they know the controller by its
	// namespace.
	testenv.Eventually(t, time.Minute, func() error {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(moved), moved); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(moved.Status.Conditions, v1alpha1.ReadyCondition); c == nil || c.Status != metav1.ConditionTrue {
			return fmt.Errorf("tenant moved not Ready: %+v", c)
		}
		return nil
	})
	testenv.Eventually(t, time.Minute, func() error {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(squatter), squatter); err != nil {
			return err
		}
		c := meta.FindStatusCondition(squatter.Status.Conditions, v1alpha1.ReadyCondition)
		if c == nil || !strings.Contains(c.Message, "namespace "+elsewhere+" is where Landlord's controller runs") {
			return fmt.Errorf("tenant squatter's Ready condition %+v does not refuse %s", c, elsewhere)
		}
		return nil
	})
	ns := &corev1.Namespace{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: elsewhere}, ns); err != nil {
		t.Fatal(err)
	}
	if owner, ok := ns.Labels[v1alpha1.TenantLabel]; ok {
		t.Errorf("namespace %s is labelled for tenant %s", elsewhere, owner)
	}

	reconciler, err := client.New(env.ConfigFor("system:serviceaccount:moved-apps:moved", "system:serviceaccounts", "system:authenticated"), client.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	forged := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "moved-apps", Name: "forged",
		Labels: map[string]string{v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue}}}
	err = reconciler.Create(ctx, forged)
	if want := "allowed: writes by " + tenancy.ControllerUser(elsewhere) + " only"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("the tenant's reconciler forging Landlord's label: %v, want a denial saying %q", err, want)
	}
}
