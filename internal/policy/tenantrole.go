package policy

import (
	"context"
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

// TenantRoleName names the ValidatingAdmissionPolicy that judges the
// ClusterRoles aggregated into the tenant role, and its binding.
const TenantRoleName = "landlord-tenant-role"

// tenantRoleRules are LL018 on a ClusterRole labelled
// v1alpha1.AggregateToTenantLabel, whose rules Kubernetes' aggregation
// controller adds to every tenant's role as soon as it is admitted: only
// the platform writes one, it aggregates nothing itself (what it would
// gather later is judged by nobody), and it holds none of the grants
// RoleGrants refuses everywhere, spelled in CEL from the same table.
func tenantRoleRules() []inProcessRule {
	rules := field.NewPath("rules")
	out := []inProcessRule{
		{
			rule:  ruleRoleGrants,
			field: field.NewPath("metadata", "labels").Key(v1alpha1.AggregateToTenantLabel),
			valid: "variables.platform",
			detail: `"ClusterRole " + object.metadata.name + ` + fmt.Sprintf("%q",
				" adds its rules to every tenant's role; allowed: the platform's identities"),
		},
		{
			rule:  ruleRoleGrants,
			field: field.NewPath("aggregationRule"),
			valid: "!has(object.aggregationRule)",
			detail: `"ClusterRole " + object.metadata.name + ` + fmt.Sprintf("%q",
				" aggregates other roles, whose rules would reach every tenant's role unjudged; allowed: rules of its own"),
		},
	}
	for _, g := range everywhere {
		out = append(out, inProcessRule{
			rule:   ruleRoleGrants,
			field:  rules,
			valid:  fmt.Sprintf("!(%s) || !object.rules.exists(r, %s)", present("object.rules"), grantCEL(g)),
			detail: `"ClusterRole " + object.metadata.name + ` + fmt.Sprintf("%q", grantDetail(g, false)),
		})
	}
	return out
}

// grantCEL is a CEL expression true for a PolicyRule r holding g, as
// RoleGrants matches it.
func grantCEL(g grant) string {
	verbs := []string{`v == "*"`, fmt.Sprintf("v in %s", CELList(g.verbs))}
	for _, p := range g.verbPrefixes {
		verbs = append(verbs, fmt.Sprintf("v.startsWith(%q)", p))
	}
	// Lists a client sent as null are present and null.
	match := fmt.Sprintf(`%s && size(r.resources) > 0 && r.verbs.exists(v, %s)`, present("r.resources"), strings.Join(verbs, " || "))
	if g.groups[0] != "*any*" {
		match += fmt.Sprintf(` && %s && r.apiGroups.exists(a, a == "*" || a in %s)`, present("r.apiGroups"), CELList(g.groups))
	}
	if g.resources[0] != "*any*" {
		match += fmt.Sprintf(" && r.resources.exists(x, %s)", resourceCEL("x", g.resources))
	}
	if slices.Equal(g.verbs, []string{"bind"}) {
		// bindsOnlyBindable
		match += fmt.Sprintf(` && !(r.verbs == ["bind"] && r.apiGroups == [%q] && r.resources == ["clusterroles"] && %s && size(r.resourceNames) > 0 && r.resourceNames.all(n, n in %s))`,
			rbacv1.GroupName, present("r.resourceNames"), CELList(render.BindableClusterRoles))
	}
	return match
}

// present is a CEL expression true where the field f holds a value.
func present(f string) string {
	return fmt.Sprintf("has(%s) && %[1]s != null", f)
}

// resourceCEL is a CEL expression true for a rule's resource x that
// anyResource counts as one of want: itself, "*", and the wildcards of
// its subresource.
func resourceCEL(x string, want []string) string {
	have := []string{"*"}
	var prefixes []string
	for _, w := range want {
		name, sub, ok := strings.Cut(w, "/")
		switch {
		case !ok:
			have = append(have, w)
		case sub == "*":
			have = append(have, name, "*/*")
			prefixes = append(prefixes, name+"/")
		default:
			have = append(have, w, name+"/*", "*/"+sub, "*/*")
		}
	}
	slices.Sort(have)
	alternatives := []string{fmt.Sprintf("%s in %s", x, CELList(slices.Compact(have)))}
	for _, p := range prefixes {
		alternatives = append(alternatives, fmt.Sprintf("%s.startsWith(%q)", x, p))
	}
	return strings.Join(alternatives, " || ")
}

// TenantRole is the ValidatingAdmissionPolicy of tenantRoleRules and its
// binding: every create and update of a ClusterRole that carries
// v1alpha1.AggregateToTenantLabel, whoever writes it.
func TenantRole(platform Platform) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	label := v1alpha1.AggregateToTenantLabel
	match := &admissionregistrationv1.MatchResources{
		// Old or new object labelled; the condition keeps the new.
		ObjectSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: label, Operator: metav1.LabelSelectorOpIn, Values: []string{"true"}}}},
		ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{rbacv1.GroupName}, APIVersions: []string{"*"}, Resources: []string{"clusterroles"},
				Scope: ptr.To(admissionregistrationv1.ClusterScope),
			},
		}}},
	}
	conditions := []admissionregistrationv1.MatchCondition{{Name: "aggregated",
		Expression: fmt.Sprintf("has(object.metadata.labels) && %q in object.metadata.labels && object.metadata.labels[%[1]q] == \"true\"", label)}}
	return newPolicy(TenantRoleName, match, conditions, []admissionregistrationv1.Variable{{Name: "platform", Expression: platform.CEL()}}, tenantRoleRules())
}

// ValidatingPolicies are Landlord's ValidatingAdmissionPolicies for
// platform, each followed by its binding: those of the in-process rules and
// the tenant role's.
func ValidatingPolicies(platform Platform) []client.Object {
	var objects []client.Object
	for _, p := range inProcessPolicies {
		vap, binding := p.build(platform)
		objects = append(objects, vap, binding)
	}
	role, roleBinding := TenantRole(platform)
	return append(objects, role, roleBinding)
}

// AggregatedRole is TenantRole's verdict on role as the platform writes
// it: what the API server would refuse it for now.
func AggregatedRole(role *rbacv1.ClusterRole) field.ErrorList {
	admin := authenticationv1.UserInfo{Username: "system:admin", Groups: []string{"system:masters"}}
	return tenantRole(Request{Operation: admissionv1.Create, Name: role.Name, Object: role, User: admin})
}

// clusterRoleKind is the kind TenantRole judges.
var clusterRoleKind = schema.GroupKind{Group: rbacv1.GroupName, Kind: "ClusterRole"}

// tenantRole evaluates TenantRole offline on a ClusterRole write, as the
// API server does.
func tenantRole(req Request) field.ErrorList {
	role, ok := req.Object.(*rbacv1.ClusterRole)
	if !ok || req.Kind != clusterRoleKind && !req.Kind.Empty() || role.Labels[v1alpha1.AggregateToTenantLabel] != "true" {
		return nil
	}
	gvk := rbacv1.SchemeGroupVersion.WithKind("ClusterRole")
	gvr := rbacv1.SchemeGroupVersion.WithResource("clusterroles")
	u := &user.DefaultInfo{Name: req.User.Username, UID: req.User.UID, Groups: req.User.Groups}
	var old runtime.Object // untyped nil on a create
	if o, ok := req.OldObject.(*rbacv1.ClusterRole); ok && o != nil {
		old = o
	}
	attrs := admission.NewAttributesRecord(role, old, gvk, "", role.Name, gvr, "", admission.Operation(req.Operation), nil, false, u)
	versioned := &admission.VersionedAttributes{Attributes: attrs, VersionedObject: role, VersionedOldObject: old, VersionedKind: gvk}
	rules := tenantRoleRules()
	result := compiledPolicy(TenantRoleName, req.Platform, TenantRole).Validate(context.Background(), gvr, versioned, nil, nil, celconfig.RuntimeCELCostBudget, nil)
	return decisions(result, rules)
}

// decisions turns a policy's denials into errors of its rules, in order.
func decisions(result validating.ValidateResult, rules []inProcessRule) field.ErrorList {
	var errs field.ErrorList
	for i, d := range result.Decisions {
		if d.Action != validating.ActionDeny {
			continue
		}
		r := rules[min(i, len(rules)-1)]
		at, detail, ok := strings.Cut(d.Message, ": Forbidden: "+r.rule.ID+": ")
		if d.Evaluation == validating.EvalError || !ok || r.at == "" && at != r.field.String() {
			errs = append(errs, forbidden(r.rule, r.path(), "could not be evaluated, so the API server refuses: "+d.Message))
			continue
		}
		errs = append(errs, forbidden(r.rule, field.NewPath(at), detail))
	}
	return errs
}
