package policy

import (
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/landlord-dev/landlord/internal/kinds"
)

// TestInProcessRulesReadMetadataOnly: offline, the in-process rules see
// objects reduced to their metadata (metadataOf) but for the kinds a rule
// reads whole, which they must not notice: every case of the policy table
// gets the same violations from the whole objects, as the API server
// passes them.
func TestInProcessRulesReadMetadataOnly(t *testing.T) {
	judged := 0
	for name, tc := range testCases {
		thin := inProcess(tc.req, testTenants)
		full := judgeInProcess(tc.req, testTenants, tc.req.Object, tc.req.OldObject)
		if thin.ToAggregate() == nil && full.ToAggregate() == nil {
			continue
		}
		judged++
		if thin.ToAggregate() == nil || full.ToAggregate() == nil || thin.ToAggregate().Error() != full.ToAggregate().Error() {
			t.Errorf("%s: metadata only %v, whole objects %v", name, thin, full)
		}
	}
	if judged == 0 {
		t.Fatal("no case of the table breaks an in-process rule: the comparison proves nothing")
	}
	t.Logf("%d cases refused by in-process rules, alike either way", judged)
}

// TestContentRulesMatchTheRoutes: a namespaced kind the registry judges
// reaches the webhook (kinds.Kind.InProcess false) exactly when a rule of
// the webhook's reads its content, and a kind an in-process rule reads is
// one the webhook no longer receives: the routes follow the rules, never
// a second list.
func TestContentRulesMatchTheRoutes(t *testing.T) {
	s := scope{ns: "apps", tenant: testTenants.tenants[0], tenants: testTenants, allow: allowancesOf(testTenants.tenants[0]), shared: sharedOf(Request{})}
	for _, k := range kinds.Select(func(k kinds.Kind) bool { return k.Judged && k.Namespaced }) {
		_, judged := content(k.New(), s)
		if judged == k.InProcess {
			t.Errorf("%s: a webhook rule reads its content: %v, yet kinds.Kind.InProcess is %v", k.GroupKind(), judged, k.InProcess)
		}
	}
	for _, r := range inProcessRules {
		if k, ok := kinds.Lookup(r.kind); !r.kind.Empty() && (!ok || !k.InProcess) {
			t.Errorf("%s reads %s in the API server, which the registry still routes to the webhook", r.rule.ID, r.kind)
		}
	}
}

// TestInProcessPolicyCompiles: every variable, validation and message of
// each policy compiles in the API server's environment of the oldest
// Kubernetes Landlord supports, 1.30, as a new expression there. A
// message that failed to would surface offline as a refusal naming the
// rule, which tables asking only for the rule would take for the rule's
// own.
func TestInProcessPolicyCompiles(t *testing.T) {
	compiler, err := cel.NewCompositedCompiler(environment.MustBaseEnvSet(OldestKubernetes))
	if err != nil {
		t.Fatal(err)
	}
	for _, policy := range inProcessPolicies {
		vap, _ := policy.build(Platform{})
		vars := cel.OptionalVariableDeclarations{HasAuthorizer: true, HasParams: vap.Spec.ParamKind != nil}
		p := struct {
			vap   *admissionregistrationv1.ValidatingAdmissionPolicy
			rules []inProcessRule
		}{vap, policy.rules}
		for _, v := range p.vap.Spec.Variables {
			if r := compiler.CompileAndStoreVariable(&validating.Variable{Name: v.Name, Expression: v.Expression}, vars, environment.NewExpressions); r.Error != nil {
				t.Errorf("%s: variable %s: %v", p.vap.Name, v.Name, r.Error)
			}
		}
		for i, v := range p.vap.Spec.Validations {
			rule := p.rules[i].rule.ID
			if r := compiler.CompileCELExpression(&validating.ValidationCondition{Expression: v.Expression}, vars, environment.NewExpressions); r.Error != nil {
				t.Errorf("%s: %s: validation: %v", p.vap.Name, rule, r.Error)
			}
			// The API server declares no authorizer for messages.
			if r := compiler.CompileCELExpression(&validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}, cel.OptionalVariableDeclarations{HasParams: vars.HasParams}, environment.NewExpressions); r.Error != nil {
				t.Errorf("%s: %s: message: %v", p.vap.Name, rule, r.Error)
			}
		}
	}
}
