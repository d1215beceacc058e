package audit_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/audit"
	"github.com/landlord-dev/landlord/internal/policy"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// TestAuditTenantRole: the platform's labelled role of its CRD's kind
// passes, named with the kind no rule judges; with the policy's binding
// deleted, a role that mints tokens joins the tenant role, and the audit
// fails on both.
func TestAuditTenantRole(t *testing.T) {
	roleCheck := func() audit.Check { return checkOf(t, "role") }
	labels := map[string]string{v1alpha1.AggregateToTenantLabel: "true"}
	monitors := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "audit-monitors", Labels: labels}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"monitoring.coreos.com"}, Resources: []string{"servicemonitors"}, Verbs: []string{"get", "create"}},
	}}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	testenv.Eventually(t, time.Minute, func() error { // the controller applies the policy
		return k8s.Get(ctx, client.ObjectKey{Name: policy.TenantRoleName}, binding)
	})
	if err := k8s.Create(ctx, monitors); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, monitors) })
	if c := roleCheck(); c.Result != audit.Pass || !strings.Contains(c.Detail, "no rule of Landlord's judges: servicemonitors.monitoring.coreos.com (audit-monitors)") {
		t.Errorf("the platform's role of its CRD: %s %s", c.Result, c.Detail)
	}

	if err := k8s.Delete(ctx, binding); err != nil {
		t.Fatal(err)
	}
	tokens := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "audit-tokens", Labels: labels}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"serviceaccounts/token"}, Verbs: []string{"create"}},
	}}
	testenv.Eventually(t, 30*time.Second, func() error { return k8s.Create(ctx, tokens) }) // once the API server drops the binding
	t.Cleanup(func() { _ = k8s.Delete(ctx, tokens) })
	// The controller writes the binding again as it starts: until it is
	// done, it is deleted again.
	testenv.Eventually(t, 30*time.Second, func() error {
		if err := k8s.Delete(ctx, binding.DeepCopy()); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		c := roleCheck()
		for _, want := range []string{
			"ValidatingAdmissionPolicyBinding " + policy.TenantRoleName + " is missing",
			"ClusterRole audit-tokens grants create on serviceaccounts/token",
		} {
			if c.Result != audit.Fail || !strings.Contains(c.Detail, want) {
				return fmt.Errorf("%s %s, want a FAIL saying %q", c.Result, c.Detail, want)
			}
		}
		return nil
	})
}

// TestAuditPolicies: Landlord's admission policies pass as the controller
// applies them; with the sources policy's binding deleted and a validation
// of the content policy edited, the audit fails naming both.
func TestAuditPolicies(t *testing.T) {
	policyCheck := func() audit.Check { return checkOf(t, "admission") }
	content := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	workloads := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	testenv.Eventually(t, time.Minute, func() error { // the controller applies them
		return errors.Join(k8s.Get(ctx, client.ObjectKey{Name: policy.ContentName}, content), k8s.Get(ctx, client.ObjectKey{Name: policy.SourcesName}, binding),
			k8s.Get(ctx, client.ObjectKey{Name: policy.WorkloadsName}, workloads))
	})
	if c := policyCheck(); c.Result != audit.Pass {
		t.Fatalf("as applied: %s %s", c.Result, c.Detail)
	}

	// Put back as they were, for the package's other tests.
	t.Cleanup(func() {
		binding.ResourceVersion = ""
		_ = k8s.Create(ctx, binding)
		for _, restored := range []*admissionregistrationv1.ValidatingAdmissionPolicy{content, workloads} {
			live := &admissionregistrationv1.ValidatingAdmissionPolicy{}
			if k8s.Get(ctx, client.ObjectKeyFromObject(restored), live) == nil {
				live.Spec = restored.Spec
				_ = k8s.Update(ctx, live)
			}
		}
	})
	// The controller writes them again as it starts: until it is done,
	// the damage is done again.
	validations := len(content.Spec.Validations)
	testenv.Eventually(t, 30*time.Second, func() error {
		if err := k8s.Delete(ctx, binding.DeepCopy()); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		live := &admissionregistrationv1.ValidatingAdmissionPolicy{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: policy.ContentName}, live); err != nil {
			return err
		}
		live.Spec.Validations[0].Expression = "true"
		if err := k8s.Update(ctx, live); err != nil {
			return err
		}
		// A variable switches rules off as surely: every image allowed.
		lax := &admissionregistrationv1.ValidatingAdmissionPolicy{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(workloads), lax); err != nil {
			return err
		}
		variables := 0
		for i, v := range lax.Spec.Variables {
			if !slices.Contains(policy.PlatformVariables, v.Name) {
				variables++
			}
			if v.Name == "anyImage" {
				lax.Spec.Variables[i].Expression = "true"
			}
		}
		if err := k8s.Update(ctx, lax); err != nil {
			return err
		}
		c := policyCheck()
		for _, want := range []string{
			"ValidatingAdmissionPolicyBinding " + policy.SourcesName + " is missing",
			"ValidatingAdmissionPolicy " + policy.ContentName + " holds " + fmt.Sprint(validations-1) + " of its " + fmt.Sprint(validations) + " validations as rendered",
			"ValidatingAdmissionPolicy " + policy.WorkloadsName + " holds " + fmt.Sprint(variables-1) + " of its " + fmt.Sprint(variables) + " variables as rendered",
		} {
			if c.Result != audit.Fail || !strings.Contains(c.Detail, want) {
				return fmt.Errorf("%s %s, want a FAIL saying %q", c.Result, c.Detail, want)
			}
		}
		return nil
	})
}

// checkOf runs the audit and returns its check of kind.
func checkOf(t *testing.T, kind string) audit.Check {
	t.Helper()
	checks, err := (&audit.Auditor{Client: k8s, Config: env.Config, FluxNamespace: "no-flux"}).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if c.Kind == kind {
			return c
		}
	}
	t.Fatalf("no %s check", kind)
	return audit.Check{}
}
