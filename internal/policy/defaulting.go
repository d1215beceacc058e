package policy

import (
	"fmt"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// NoServiceAccount is true for a Kustomization or HelmRelease that names no
// serviceAccountName: the default's match condition, in the API server's
// policy and the mutating webhook alike, so that the webhook is asked only
// where the API server did not default it.
const NoServiceAccount = `!has(object.spec.serviceAccountName) || object.spec.serviceAccountName == ""`

// Defaulting is the MutatingAdmissionPolicy setting Default's value, the
// tenant's reconciler as its namespace's label names it, and its binding,
// for API servers that serve MutatingAdmissionPolicy (Kubernetes 1.36).
func Defaulting() (*admissionregistrationv1.MutatingAdmissionPolicy, *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
	meta := policyMeta()
	reconciler := fmt.Sprintf("namespaceObject.metadata.labels[%q]", v1alpha1.ReconcilerLabel)
	policy := &admissionregistrationv1.MutatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "MutatingAdmissionPolicy"},
		ObjectMeta: meta,
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{
				NamespaceSelector: tenantNamespaces(v1alpha1.ReconcilerLabel),
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{
					defaulted(kustomizev1.GroupVersion.Group, "kustomizations"),
					defaulted(helmv2.GroupVersion.Group, "helmreleases"),
				},
			},
			MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "no-service-account", Expression: NoServiceAccount}},
			Mutations: []admissionregistrationv1.Mutation{{
				PatchType: admissionregistrationv1.PatchTypeJSONPatch,
				JSONPatch: &admissionregistrationv1.JSONPatch{
					// Both kinds require spec, so "add" creates the field.
					Expression: fmt.Sprintf(`[JSONPatch{op: "add", path: "/spec/serviceAccountName", value: %s}]`, reconciler),
				},
			}},
			FailurePolicy:      ptr.To(admissionregistrationv1.Fail),
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
		},
	}
	binding := &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "MutatingAdmissionPolicyBinding"},
		ObjectMeta: meta,
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: InProcessName},
	}
	return policy, binding
}

func defaulted(group, resource string) admissionregistrationv1.NamedRuleWithOperations {
	return admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{
			APIGroups: []string{group}, APIVersions: []string{"*"}, Resources: []string{resource},
			Scope: ptr.To(admissionregistrationv1.NamespacedScope),
		},
	}}
}
