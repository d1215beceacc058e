package policy

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/utils/ptr"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/kinds"
	"github.com/landlord-dev/landlord/internal/render"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// InProcessName names the ValidatingAdmissionPolicy holding the rules the
// API server evaluates itself, and its binding.
const InProcessName = "landlord"

// inProcessRule is one rule evaluated in the API server: valid is true for
// an allowed request; detail is a CEL string expression that follows
// "<field>: Forbidden: <id>: " in its denial. A rule with a kind judges
// only writes of that kind, whose content it reads; the others read
// metadata only.
type inProcessRule struct {
	rule  Rule
	field *field.Path
	// at, where set, is a CEL string expression of the field in place of
	// field: the rules of pod templates find them in several kinds.
	at    string
	kind  schema.GroupKind
	kinds []schema.GroupKind
	// subresource, where set, is judged as the kinds themselves are.
	subresource string
	valid       string
	// detail must not fail where valid holds: the API server evaluates
	// it anyway.
	detail string
}

// reads are the kinds whose content r reads: its kind or kinds, none for
// a rule of metadata only.
func (r inProcessRule) reads() []schema.GroupKind {
	if r.kind.Empty() {
		return r.kinds
	}
	return []schema.GroupKind{r.kind}
}

// expression is r's validation, limited to writes of its kinds, which
// guard says.
func (r inProcessRule) expression(guard string) string {
	if len(r.reads()) == 0 {
		return r.valid
	}
	return fmt.Sprintf(`!%s || (%s)`, guard, r.valid)
}

// message is r's denial. The API server evaluates every message on every
// request it judges, so that of a rule with kinds says nothing of other
// kinds' objects, which it could only fail to read, nor of an object r
// admits.
func (r inProcessRule) message(guard string) string {
	message := fmt.Sprintf("%q + (%s)", r.field.String()+": Forbidden: "+r.rule.ID+": ", r.detail)
	if r.at != "" {
		message = fmt.Sprintf("(%s) + %q + (%s)", r.at, ": Forbidden: "+r.rule.ID+": ", r.detail)
	}
	switch {
	case len(r.reads()) == 0:
		return message
	case r.at != "" && !strings.Contains(r.valid, "authorizer"):
		// Its field is found in what it refuses: only then.
		return fmt.Sprintf(`%s && !(%s) ? %s : ""`, guard, r.valid, message)
	}
	return fmt.Sprintf(`%s ? %s : ""`, guard, message)
}

// judges is a CEL expression true for a write of r's kinds, which r reads.
func (r inProcessRule) judges() string {
	var resources []string
	for _, gk := range r.reads() {
		k, _ := kinds.Lookup(gk)
		resources = append(resources, fmt.Sprintf(`request.resource.group == %q && request.resource.resource == %q`, k.Group, k.Resource))
	}
	return fmt.Sprintf(`((%s) && (!has(request.subResource) || request.subResource in ["", %q]) && object != null)`, strings.Join(resources, " || "), r.subresource)
}

// readsContent reports whether an in-process rule reads the content of
// objects of kind gk, which the offline evaluator then passes whole.
func readsContent(gk schema.GroupKind) bool {
	return slices.ContainsFunc(inProcessPolicies, func(p inProcessPolicy) bool { return slices.Contains(p.kinds, gk) })
}

// The kinds whose content rules run here: LL023 on budgets, LL013, LL017
// and LL021 on Services.
var (
	budget  = schema.GroupKind{Group: "policy", Kind: "PodDisruptionBudget"}
	service = schema.GroupKind{Kind: "Service"}
)

// unchanged is a CEL expression true on an update keeping spec.<f> as it
// was: a violation admitted before the rule existed may stay (the
// ratchet), so that controllers can still remove finalizers.
func unchanged(f string) string {
	return fmt.Sprintf(`(oldObject != null && has(oldObject.spec.%[1]s) && has(object.spec.%[1]s) && oldObject.spec.%[1]s == object.spec.%[1]s)`, f)
}

// labelledTenant is the tenant the namespace's label names.
var labelledTenant = fmt.Sprintf("namespaceObject.metadata.labels[%q]", v1alpha1.TenantLabel)

// inProcessRules are the rules needing only the request, the object, its
// namespace's labels (render.PolicyLabels) and the RBAC markers
// render.markers keeps of which identities act for which tenant and which
// namespaces it holds: they are written once, here, and the API server,
// lint and audit all evaluate this CEL.
var inProcessRules = slices.Concat(identityRules, contentRules, fluxRules, sourceRules, workloadRules, podAccountRules)

// inProcessPolicy is one of Landlord's ValidatingAdmissionPolicies: its
// name, its rules in the order of its validations, its build, and the
// kinds its rules read (ruleKinds), whose creates and updates alone it
// matches; none for a policy of every request.
type inProcessPolicy struct {
	name  string
	rules []inProcessRule
	build func(Platform) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding)
	kinds []schema.GroupKind
	// cluster: the policy judges cluster-scoped objects, and only those.
	cluster bool
}

// policyOf is the inProcessPolicy of name, its kinds read off its rules.
func policyOf(name string, rules []inProcessRule, build func(Platform) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding)) inProcessPolicy {
	return inProcessPolicy{name: name, rules: rules, build: build, kinds: ruleKinds(rules)}
}

// matches reports whether p judges a request of kind gk in namespace ns:
// every request of its scope, or the creates and updates of its kinds.
func (p inProcessPolicy) matches(gk schema.GroupKind, ns string, op admissionv1.Operation, object runtime.Object) bool {
	if p.cluster != (ns == "") {
		return false
	}
	return len(p.kinds) == 0 || slices.Contains(p.kinds, gk) && object != nil && (op == admissionv1.Create || op == admissionv1.Update)
}

// inProcessPolicies are the policies of inProcessRules. The identity rules
// judge every request, so they stand alone: the API server evaluates each
// validation and its message on every request a policy matches, and the
// others match only writes of the kinds they read.
var inProcessPolicies = []inProcessPolicy{
	policyOf(InProcessName, identityRules, InProcess),
	policyOf(ContentName, slices.Concat(contentRules, fluxRules), Content),
	policyOf(SourcesName, sourceRules, Sources),
	policyOf(WorkloadsName, workloadRules, Workloads),
	policyOf(PodAccountsName, podAccountRules, PodAccounts),
	{name: ClassesName, rules: classRules, build: Classes, kinds: ruleKinds(classRules), cluster: true},
}

// identityRules are LL010, LL026 and LL028: who may write in a tenant
// namespace, whatever the object says. The platform may, which each asks
// last, only of a write it would refuse.
var identityRules = []inProcessRule{
	{
		rule:  ruleManaged,
		field: field.NewPath("metadata", "labels").Key(v1alpha1.ManagedByLabel),
		valid: fmt.Sprintf(`[object, oldObject].all(o, o == null || !has(o.metadata) || !has(o.metadata.labels) || !(%q in o.metadata.labels) || o.metadata.labels[%[1]q] != %q) || variables.platform`,
			v1alpha1.ManagedByLabel, v1alpha1.ManagedByValue),
		detail: `"the object is managed by Landlord; allowed: writes by " + variables.controller + " only"`,
	},
	{
		rule:   ruleUnheld,
		field:  field.NewPath("metadata", "namespace"),
		valid:  "variables.held || variables.platform",
		detail: `"namespace " + request.namespace + " is labelled for tenant " + ` + labelledTenant + ` + ", which does not hold it; allowed: writes by platform identities"`,
	},
	{
		rule:  ruleForeignTenant,
		field: field.NewPath("metadata", "namespace"),
		// Where the namespace is not held, LL026 alone speaks; a writer
		// holding a wildcard grant is judged by the webhook, which
		// evaluates this rule with exact answers (Wildcard).
		// Ordered for RBAC: an allowed check stops at the first grant, a
		// refused one reads every binding, so the tenant's own writers,
		// the common case, pay two allowed checks. The namespace's own
		// reconciler, Flux applying the tenant's repository there, pays
		// none beyond held's: held asked RBAC of that very account.
		valid: fmt.Sprintf(`!variables.held || request.userInfo.username == %[5]q + request.namespace + ":" + variables.reconciler || `+
			`%[1]s.name(%[3]s).check(%[4]q).allowed() || !%[1]s.check(%[2]q).allowed() || variables.wildcard || variables.platform`,
			identityCheck, render.MemberVerb, labelledTenant, render.ActForVerb, tenancy.ServiceAccountPrefix),
		detail: `"namespace " + request.namespace + " is tenant " + ` + labelledTenant + ` + "'s and the writer acts for another tenant; allowed: writes by tenant " + ` +
			labelledTenant + ` + "'s identities, and theirs in the namespaces of the tenant they act for"`,
	},
}

// ruleDisruption is rule LL023, declared here beside its CEL and listed in Rules.
var ruleDisruption = Rule{"LL023", "disruption-budget", "a PodDisruptionBudget that allows no eviction, whatever the replicas, blocks every drain of the nodes its pods run on, and a pod annotation node autoscalers read as never evict keeps its node from being scaled down or replaced: both hold back the platform's upgrades and other tenants' pods"}

// contentRules are LL023 on budgets, and LL013, LL017 and LL021 on
// Services.
var contentRules = []inProcessRule{
	{
		rule:  ruleDisruption,
		field: field.NewPath("spec", "maxUnavailable"),
		kind:  budget,
		// An int-or-string: 0 and "0%" allow no eviction.
		valid:  `!has(object.spec.maxUnavailable) || !(object.spec.maxUnavailable == 0 || object.spec.maxUnavailable == "0%") || ` + unchanged("maxUnavailable"),
		detail: `"maxUnavailable " + string(object.spec.maxUnavailable) + " allows no eviction; allowed: at least 1 or 1%"`,
	},
	{
		rule:  ruleDisruption,
		field: field.NewPath("spec", "minAvailable"),
		kind:  budget,
		// A whole number at or above the replicas blocks drains too, but
		// only the live replicas tell.
		valid: `!has(object.spec.minAvailable) || type(object.spec.minAvailable) != string || !object.spec.minAvailable.matches("^[0-9]+%$") || ` +
			`int(object.spec.minAvailable.substring(0, size(object.spec.minAvailable) - 1)) < 100 || ` + unchanged("minAvailable"),
		detail: `"minAvailable " + object.spec.minAvailable + " keeps every pod; allowed: below 100%, or a number of pods"`,
	},
	{
		rule:   ruleServiceType,
		field:  field.NewPath("spec", "type"),
		kind:   service,
		valid:  `!has(object.spec.type) || !(object.spec.type in ` + exposing + `) || object.spec.type in variables.serviceTypes || ` + unchanged("type"),
		detail: `"type " + object.spec.type + " exposes tenant " + ` + labelledTenant + ` + " outside the cluster; allowed: " + ([` + fmt.Sprintf("%q", corev1.ServiceTypeClusterIP) + `] + variables.serviceTypes).join(", ")`,
	},
	{
		rule:   ruleExternalName,
		field:  field.NewPath("spec", "type"),
		kind:   service,
		valid:  fmt.Sprintf(`!has(object.spec.type) || object.spec.type != %[1]q || %[1]q in variables.serviceTypes || `, corev1.ServiceTypeExternalName) + unchanged("type"),
		detail: `"tenant " + ` + labelledTenant + ` + " may not alias other names; allowed: ClusterIP, or ExternalName where spec.network.allowServiceTypes lists it"`,
	},
	{
		rule:   ruleExternalIPs,
		field:  field.NewPath("spec", "externalIPs"),
		kind:   service,
		valid:  `!has(object.spec.externalIPs) || size(object.spec.externalIPs) == 0 || ` + unchanged("externalIPs"),
		detail: `"external IPs are denied; allowed: unset"`,
	},
}

// exposing are the Service types that reach a tenant from outside the
// cluster's network isolation.
var exposing = fmt.Sprintf("[%q, %q]", corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer)

// PlatformVariables name the variables of the policies that spell the
// platform's identities, which the controller's flags set.
var PlatformVariables = []string{"platform", "controller"}

// inProcessVariables are what several rules read, evaluated once a request
// where a rule reads them.
func inProcessVariables(platform Platform) []admissionregistrationv1.Variable {
	return append([]admissionregistrationv1.Variable{
		{Name: "platform", Expression: platform.CEL()},
		{Name: "controller", Expression: strconv.Quote(platform.Controller())},
	}, namespaceVariables...)
}

// notSpared is the match condition of the policies Kubernetes' own
// controllers, kubelets and Landlord's controller never reach.
func notSpared(platform Platform) []admissionregistrationv1.MatchCondition {
	return []admissionregistrationv1.MatchCondition{{Name: "not-spared", Expression: "!(" + platform.SparedCEL() + ")"}}
}

// namespaceVariables are what the namespace and the markers say.
var namespaceVariables = []admissionregistrationv1.Variable{
	// reconciler: the account the namespace's label names, "" for none.
	{Name: "reconciler", Expression: namespaceLabel(v1alpha1.ReconcilerLabel, `""`)},
	// held: the tenant the namespace is labelled for holds it, which its
	// reconciler there says by acting for it.
	{Name: "held", Expression: tenantHolds("request.namespace")},
	// serviceTypes: those beyond ClusterIP the tenant allows, which the
	// controller lists on each of its namespaces.
	{Name: "serviceTypes", Expression: namespaceLabel(v1alpha1.ServiceTypesLabel, `""`) + `.split(".").filter(t, t != "")`},
	// workloadIdentity: the tenant allows its objects' own service
	// accounts to lend them a cloud identity.
	{Name: "workloadIdentity", Expression: namespaceLabel(v1alpha1.WorkloadIdentityLabel, `""`) + ` == "true"`},
	// wildcard: the writer's grants answer yes to every question about
	// tenants, so RBAC cannot tell which tenant it acts for.
	{Name: "wildcard", Expression: Wildcard()},
}

// namespaceLabel is a CEL expression for the value of the request
// namespace's label key, otherwise where it has none.
func namespaceLabel(key, otherwise string) string {
	return fmt.Sprintf(`(has(namespaceObject.metadata.labels) && %[1]q in namespaceObject.metadata.labels ? namespaceObject.metadata.labels[%[1]q] : %[2]s)`, key, otherwise)
}

// Wildcard is a CEL expression true for a writer holding a wildcard
// grant: the webhook judges that writer's requests in tenant namespaces,
// as the in-process rules cannot.
func Wildcard() string {
	return fmt.Sprintf(`%s.name(%q).check(%q).allowed()`, identityCheck, render.WildcardProbe, render.ActForVerb)
}

// identityCheck starts the authorizer checks of render's identity markers
// as the writer.
var identityCheck = markerCheck("authorizer")

// markerCheck starts an authorizer check of render's markers as who, an
// authorizer expression.
func markerCheck(who string) string {
	return fmt.Sprintf(`%s.group(%q).resource(%q)`, who, v1alpha1.GroupVersion.Group, render.IdentityResource)
}

// InProcess is the ValidatingAdmissionPolicy of the identity rules and
// its binding: every namespaced request but reads, subresources and
// CONNECT included, in a tenant namespace by anyone SparedCEL does not
// spare; the rules spare the whole platform.
func InProcess(platform Platform) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	match := &admissionregistrationv1.MatchResources{
		NamespaceSelector: tenantNamespaces(),
		// Subresources and CONNECT too: a token, a scale, an eviction or
		// an exec in another tenant's namespace is a write there, and a
		// status update may strip Landlord's label.
		ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"},
				Scope: ptr.To(admissionregistrationv1.NamespacedScope),
			},
		}}},
	}
	return newPolicy(InProcessName, match, notSpared(platform), inProcessVariables(platform), identityRules)
}

// newPolicy is the ValidatingAdmissionPolicy of name denying what rules
// refuse of the requests match and conditions select, failing closed, and
// its binding.
func newPolicy(name string, match *admissionregistrationv1.MatchResources, conditions []admissionregistrationv1.MatchCondition,
	variables []admissionregistrationv1.Variable, rules []inProcessRule) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	meta := policyMeta()
	meta.Name = name
	vap := &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: meta,
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: match,
			MatchConditions:  conditions,
			Variables:        variables,
			FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
		},
	}
	vap.Spec.Variables, vap.Spec.Validations = validations(variables, rules)
	return vap, denyBinding(meta)
}

// denyBinding binds the policy of meta's name everywhere it matches,
// denying what it refuses.
func denyBinding(meta metav1.ObjectMeta) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: meta,
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        meta.Name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
}

// validations are rules as a policy's validations, each denial its
// rule's, and variables with the kinds each rule judges: a variable a
// set of kinds, which the API server evaluates once a request, where a
// guard spelled in each validation and message would be evaluated in
// each.
func validations(variables []admissionregistrationv1.Variable, rules []inProcessRule) ([]admissionregistrationv1.Variable, []admissionregistrationv1.Validation) {
	variables = slices.Clone(variables)
	guards := map[string]string{}
	out := make([]admissionregistrationv1.Validation, len(rules))
	for i, r := range rules {
		guard := ""
		if len(r.reads()) > 0 {
			judges := r.judges()
			if guards[judges] == "" {
				guards[judges] = fmt.Sprintf("judges%d", len(guards))
				variables = append(variables, admissionregistrationv1.Variable{Name: guards[judges], Expression: judges})
			}
			guard = "variables." + guards[judges]
		}
		out[i] = admissionregistrationv1.Validation{Expression: r.expression(guard), MessageExpression: r.message(guard), Reason: ptr.To(metav1.StatusReasonForbidden)}
	}
	return variables, out
}

// policyMeta is the metadata of Landlord's admission policies and their
// bindings.
func policyMeta() metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: InProcessName, Labels: map[string]string{v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue}}
}

// tenantNamespaces selects the namespaces labelled for a tenant, and
// carrying the labels extra names.
func tenantNamespaces(extra ...string) *metav1.LabelSelector {
	selector := &metav1.LabelSelector{}
	for _, key := range append([]string{v1alpha1.TenantLabel}, extra...) {
		selector.MatchExpressions = append(selector.MatchExpressions, metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpExists})
	}
	return selector
}

// ContentName names the ValidatingAdmissionPolicy of the rules that read
// the content of Services, budgets and Flux's appliers, notifications and
// image automation, and its binding.
const ContentName = "landlord-content"

// Content is the ValidatingAdmissionPolicy of contentRules and fluxRules
// and its binding: creates and updates of their kinds in tenant
// namespaces, by anyone SparedCEL does not spare, the platform's admins
// and Flux's controllers included.
func Content(platform Platform) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	return kindPolicy(ContentName, slices.Concat(contentRules, fluxRules), notSpared(platform), inProcessVariables(platform))
}

// kindPolicy is the policy of rules, each of a kind, and its binding: it
// matches creates and updates of those kinds in tenant namespaces.
func kindPolicy(name string, rules []inProcessRule, conditions []admissionregistrationv1.MatchCondition, variables []admissionregistrationv1.Variable) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	match := &admissionregistrationv1.MatchResources{NamespaceSelector: tenantNamespaces(), ResourceRules: writesOf(rules, admissionregistrationv1.NamespacedScope)}
	return newPolicy(name, match, conditions, variables, rules)
}

// writesOf matches the creates and updates, in scope, of the kinds rules
// read.
func writesOf(rules []inProcessRule, scope admissionregistrationv1.ScopeType) []admissionregistrationv1.NamedRuleWithOperations {
	var match []admissionregistrationv1.NamedRuleWithOperations
	for _, gk := range ruleKinds(rules) {
		k, _ := kinds.Lookup(gk)
		match = append(match, admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{k.Group}, APIVersions: []string{"*"}, Resources: []string{k.Resource},
				Scope: ptr.To(scope),
			},
		}})
	}
	return match
}

// ruleKinds are the kinds rules read, in order of first mention.
func ruleKinds(rules []inProcessRule) []schema.GroupKind {
	var out []schema.GroupKind
	for _, r := range rules {
		for _, gk := range r.reads() {
			if !slices.Contains(out, gk) {
				out = append(out, gk)
			}
		}
	}
	return out
}

// OldestKubernetes is the oldest Kubernetes whose API server serves
// Landlord's policies: ValidatingAdmissionPolicy and its authorizer checks
// are GA in 1.30. The policies are compiled offline in its CEL
// environment, so that they use no library a newer one added.
var OldestKubernetes = version.MajorMinor(1, 30)

// validators are Landlord's policies compiled for each platform, as the
// API server compiles them.
var validators sync.Map // name, users and groups -> func() validating.Validator

// compiledPolicy is the policy build makes for platform, compiled once.
func compiledPolicy(name string, platform Platform, build func(Platform) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding)) validating.Validator {
	key := strings.Join([]string{name, strings.Join(platform.Users, "\n"), strings.Join(platform.Groups, "\n"), platform.Namespace,
		platform.Defaults.PriorityClass, platform.Defaults.StorageClass}, "\x00")
	// Compiling takes about a second of CPU: the requests that arrive
	// together after a start wait for one compilation instead of each running
	// their own.
	once, _ := validators.LoadOrStore(key, sync.OnceValue(func() validating.Validator {
		vap, _ := build(platform)
		return compile(vap)
	}))
	return once.(func() validating.Validator)()
}

// compile builds a policy's validator from k8s.io/apiserver's parts, the
// way its ValidatingAdmissionPolicy plugin does.
func compile(vap *admissionregistrationv1.ValidatingAdmissionPolicy) validating.Validator {
	spec := vap.Spec
	compiler, err := cel.NewCompositedCompiler(environment.MustBaseEnvSet(OldestKubernetes))
	if err != nil {
		return validating.NewValidator(nil, nil, nil, nil, spec.FailurePolicy, err)
	}
	vars := cel.OptionalVariableDeclarations{HasParams: spec.ParamKind != nil, HasAuthorizer: true}
	messageVars := cel.OptionalVariableDeclarations{HasParams: spec.ParamKind != nil}
	variables := make([]cel.NamedExpressionAccessor, len(spec.Variables))
	for i, v := range spec.Variables {
		variables[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	compiler.CompileAndStoreVariables(variables, vars, environment.StoredExpressions)
	conditions := make([]cel.ExpressionAccessor, len(spec.MatchConditions))
	for i := range spec.MatchConditions {
		conditions[i] = (*matchconditions.MatchCondition)(&spec.MatchConditions[i])
	}
	validations := make([]cel.ExpressionAccessor, len(spec.Validations))
	messages := make([]cel.ExpressionAccessor, len(spec.Validations))
	for i, v := range spec.Validations {
		validations[i] = &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason}
		messages[i] = &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}
	}
	matcher := matchconditions.NewMatcher(compiler.CompileCondition(conditions, vars, environment.StoredExpressions), spec.FailurePolicy, "policy", "validate", vap.Name)
	verdicts := compiler.CompileCondition(validations, vars, environment.StoredExpressions)
	none := compiler.CompileCondition(nil, vars, environment.StoredExpressions)
	return messagesOnDenial{
		verdicts: validating.NewValidator(verdicts, matcher, none, compiler.CompileCondition(nil, messageVars, environment.StoredExpressions), spec.FailurePolicy, nil),
		messages: validating.NewValidator(verdicts, matcher, none, compiler.CompileCondition(messages, messageVars, environment.StoredExpressions), spec.FailurePolicy, nil),
	}
}

// messagesOnDenial evaluates a policy's messages only where it refuses:
// the API server evaluates them on every request, but offline, where lint
// and audit judge whole fleets, only the verdicts differ.
type messagesOnDenial struct{ verdicts, messages validating.Validator }

func (m messagesOnDenial) Validate(ctx context.Context, gvr schema.GroupVersionResource, attrs *admission.VersionedAttributes, params runtime.Object, ns *corev1.Namespace,
	budget int64, authz authorizer.Authorizer) validating.ValidateResult {
	result := m.verdicts.Validate(ctx, gvr, attrs, params, ns, budget, authz)
	if slices.ContainsFunc(result.Decisions, func(d validating.PolicyDecision) bool { return d.Action != validating.ActionAdmit }) {
		return m.messages.Validate(ctx, gvr, attrs, params, ns, budget, authz)
	}
	return result
}

func (m messagesOnDenial) CompileError() error { return m.messages.CompileError() }

// inProcess evaluates the in-process rules on req offline, with what the
// API server would find: the namespace's tenant label, and the markers of
// tenants.ForUser and tenants.ForNamespace.
func inProcess(req Request, tenants Tenants) field.ErrorList {
	gvk, _ := kindOf(req)
	if !slices.ContainsFunc(inProcessPolicies, func(p inProcessPolicy) bool {
		return p.matches(gvk.GroupKind(), req.Namespace, req.Operation, req.Object)
	}) {
		return nil // most cluster-scoped objects: no policy matches them
	}
	if readsContent(gvk.GroupKind()) {
		return judgeInProcess(req, tenants, req.Object, req.OldObject)
	}
	return judgeInProcess(req, tenants, metadataOf(req.Object), metadataOf(req.OldObject))
}

// judgeInProcess is inProcess on object and old in place of the request's.
func judgeInProcess(req Request, tenants Tenants, object, old runtime.Object) field.ErrorList {
	var ns *corev1.Namespace // none for a cluster-scoped object
	if req.Namespace != "" {
		holder := tenants.ForNamespace(req.Namespace)
		label := nameOf(holder)
		if label == "" {
			label = tenants.Claimant(req.Namespace)
		}
		if label == "" {
			return nil // outside the policies' namespace selector
		}
		ns = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: req.Namespace, Labels: map[string]string{v1alpha1.TenantLabel: label}}}
		if holder != nil {
			ns.Labels, ns.Annotations = render.PolicyLabels(holder), render.PolicyAnnotations(holder)
			ns.Annotations[v1alpha1.StampedAccountsAnnotation] = strings.Join(stampedAccounts(req.Namespace, object, tenants), "\n")
		}
	}
	platform := req.Platform
	platform.Defaults = sharedOf(req).Defaults()
	gvk, gvr := kindOf(req)
	u := &user.DefaultInfo{Name: req.User.Username, UID: req.User.UID, Groups: req.User.Groups}
	attrs := admission.NewAttributesRecord(object, old, gvk, req.Namespace, req.Name, gvr, "", admission.Operation(req.Operation), nil, false, u)
	versioned := &admission.VersionedAttributes{Attributes: attrs, VersionedObject: object, VersionedOldObject: old, VersionedKind: gvk}
	var errs field.ErrorList
	for _, p := range inProcessPolicies {
		if !p.matches(gvk.GroupKind(), req.Namespace, req.Operation, object) {
			continue
		}
		result := compiledPolicy(p.name, platform, p.build).Validate(context.Background(), gvr, versioned, nil, ns, celconfig.RuntimeCELCostBudget, markers{tenants})
		errs = append(errs, decisions(result, p.rules)...)
	}
	return errs
}

// stampedAccounts are the accounts obj names that a TenantResource
// stamped into ns, which the controller lists on the namespace: offline,
// the store knows them one by one.
func stampedAccounts(ns string, obj runtime.Object, tenants Tenants) []string {
	var names []string
	var walk func(v any)
	walk = func(v any) {
		switch node := v.(type) {
		case map[string]any:
			for key, value := range node {
				if name, ok := value.(string); ok && (key == "serviceAccountName" || key == "serviceAccount") && tenants.LandlordAccount(ns, name) {
					names = append(names, name)
				}
				walk(value)
			}
		case []any:
			for _, value := range node {
				walk(value)
			}
		}
	}
	if obj != nil {
		walk(asJSON(obj))
	}
	return names
}

// metadataOf is obj reduced to its metadata, which is all the in-process
// rules without a kind read (TestInProcessRulesReadMetadataOnly): the API
// server's conversion of a whole object costs more than the rules. Nil
// for none.
func metadataOf(obj runtime.Object) runtime.Object {
	m, ok := obj.(metav1.Object)
	if !ok || obj == nil {
		return nil
	}
	meta := metav1.ObjectMeta{
		Name: m.GetName(), GenerateName: m.GetGenerateName(), Namespace: m.GetNamespace(), UID: m.GetUID(),
		Labels: m.GetLabels(), Annotations: m.GetAnnotations(), OwnerReferences: m.GetOwnerReferences(), Finalizers: m.GetFinalizers(),
	}
	return &metav1.PartialObjectMetadata{ObjectMeta: meta}
}

// kindOf is the request's kind and resource, from the registry where it
// knows the kind.
func kindOf(req Request) (schema.GroupVersionKind, schema.GroupVersionResource) {
	for _, k := range kinds.All {
		if k.GroupKind() == req.Kind || req.Kind.Empty() && k.New != nil && sameType(k.New(), req.Object, req.OldObject) {
			return k.GroupVersionKind, k.GroupVersion().WithResource(k.Resource)
		}
	}
	for _, obj := range []runtime.Object{req.Object, req.OldObject} {
		if obj != nil && !obj.GetObjectKind().GroupVersionKind().Empty() {
			gvk := obj.GetObjectKind().GroupVersionKind()
			return gvk, gvk.GroupVersion().WithResource(strings.ToLower(gvk.Kind) + "s")
		}
	}
	return req.Kind.WithVersion(""), schema.GroupVersionResource{Group: req.Kind.Group}
}

// sameType reports whether the first of objects that is set has the Go
// type of typed, for requests that do not name their kind.
func sameType(typed runtime.Object, objects ...runtime.Object) bool {
	for _, obj := range objects {
		if obj != nil {
			return reflect.TypeOf(obj) == reflect.TypeOf(typed)
		}
	}
	return false
}

// markers answers the authorizer checks of the in-process rules as RBAC
// answers them for render's markers: a writer acts for the tenants
// tenants.ForUser names.
type markers struct{ tenants Tenants }

func (m markers) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if !a.IsResourceRequest() || a.GetAPIGroup() != v1alpha1.GroupVersion.Group || a.GetResource() != render.IdentityResource || a.GetSubresource() != "" {
		return authorizer.DecisionNoOpinion, "", nil
	}
	u := authenticationv1.UserInfo{Username: a.GetUser().GetName(), Groups: a.GetUser().GetGroups()}
	is := func(t *v1alpha1.Tenant) bool { return t != nil && t.Name == a.GetName() }
	var allowed bool
	switch a.GetVerb() {
	case render.MemberVerb:
		allowed = a.GetName() == "" && len(m.tenants.ForUser(u)) > 0
	case render.ActForVerb:
		allowed = slices.ContainsFunc(m.tenants.ForUser(u), is)
	}
	if allowed {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// path is r's field, or for a field found by the API server the object's
// spec, where it cannot be found.
func (r inProcessRule) path() *field.Path {
	if r.field == nil {
		return field.NewPath("spec")
	}
	return r.field
}
