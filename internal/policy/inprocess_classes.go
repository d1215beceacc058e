package policy

import (
	"fmt"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	networkingv1 "k8s.io/api/networking/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/internal/render"
)

// ClassesName names the ValidatingAdmissionPolicy of the rule on the
// cluster's default classes, and its binding.
const ClassesName = "landlord-classes"

// The classes a Tenant's spec.clusterResources may approve whose default
// the API server writes into every tenant's objects naming none.
var (
	storageClassKind  = schema.GroupKind{Group: storagev1.GroupName, Kind: "StorageClass"}
	ingressClassKind  = schema.GroupKind{Group: networkingv1.GroupName, Kind: "IngressClass"}
	priorityClassKind = schema.GroupKind{Group: schedulingv1.GroupName, Kind: "PriorityClass"}
)

// classRules are LL014 on an approved class made the cluster's default:
// every other tenant's claim, Ingress or pod naming no class would be the
// tenant's to provision, route or outrank. The check needs only the
// object and who writes it, so the API server makes it, and it holds
// while Landlord is down; the webhook's other approval checks fail open.
var classRules = slices.Concat(defaultMarkers(storageClassKind, StorageDefaultKeys), defaultMarkers(ingressClassKind, IngressDefaultKeys), []inProcessRule{{
	rule:   ruleClusterScoped,
	field:  field.NewPath("globalDefault"),
	kind:   priorityClassKind,
	valid:  `!variables.tenantWriter || !object.?globalDefault.orValue(false)`,
	detail: defaultDetail,
}})

// defaultMarkers refuse a tenant's class of kind that one of keys, the
// annotations the API server reads (NewestDefault), marks the default.
func defaultMarkers(kind schema.GroupKind, keys []string) []inProcessRule {
	rules := make([]inProcessRule, len(keys))
	for i, key := range keys {
		rules[i] = inProcessRule{
			rule:   ruleClusterScoped,
			field:  field.NewPath("metadata", "annotations").Key(key),
			kind:   kind,
			valid:  fmt.Sprintf(`!variables.tenantWriter || !(has(object.metadata.annotations) && %[1]q in object.metadata.annotations && object.metadata.annotations[%[1]q] == "true")`, key),
			detail: defaultDetail,
		}
	}
	return rules
}

// defaultDetail is the denial of a tenant's class made the default.
const defaultDetail = `"a tenant may not make an approved class the cluster's default for every tenant; allowed: unset or false"`

// Classes is the ValidatingAdmissionPolicy of classRules and its binding:
// creates and updates of the classes, by anyone SparedCEL does not spare.
// The rules judge a tenant's identity (a member of a Tenant, told by the
// markers the controller renders) that is not the platform's; a writer
// holding a wildcard grant is the webhook's, which knows whom it acts for.
func Classes(platform Platform) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	variables := append(inProcessVariables(platform), admissionregistrationv1.Variable{
		Name:       "tenantWriter",
		Expression: fmt.Sprintf(`!variables.platform && %s.check(%q).allowed() && !variables.wildcard`, identityCheck, render.MemberVerb),
	})
	// Every class, in no namespace: the empty selector, as the API server
	// stores an unset one.
	match := &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{}, ResourceRules: writesOf(classRules, admissionregistrationv1.ClusterScope)}
	return newPolicy(ClassesName, match, notSpared(platform), variables, classRules)
}
