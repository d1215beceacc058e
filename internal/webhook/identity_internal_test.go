package webhook

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	celplugin "k8s.io/apiserver/pkg/admission/plugin/cel"
	apiwebhook "k8s.io/apiserver/pkg/admission/plugin/webhook"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/landlord-dev/landlord/internal/policy"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// TestPlatformIdentityAgrees: the webhooks' "not-platform" match
// condition, compiled and evaluated as the API server does (its webhook
// accessor, condition compiler and base CEL environment), skips exactly
// the identities policy.Platform.Includes calls the platform, on one table
// of identities, for every webhook that carries it.
func TestPlatformIdentityAgrees(t *testing.T) {
	platform := policy.Platform{Users: []string{"ops@example.com"}, Groups: []string{"platform-admins"}}
	identities := map[string]authenticationv1.UserInfo{
		"a tenant's user":                       {Username: "alice", Groups: []string{"team-a", "system:authenticated"}},
		"a break-glass admin":                   {Username: "root", Groups: []string{"system:masters"}},
		"Landlord":                              {Username: tenancy.ControllerUser(tenancy.ControllerNamespace)},
		"another account of Landlord's":         {Username: "system:serviceaccount:landlord-system:default"},
		"kube-system's namespace controller":    {Username: "system:serviceaccount:kube-system:namespace-controller"},
		"flux-system's kustomize-controller":    {Username: "system:serviceaccount:flux-system:kustomize-controller"},
		"a namespace named like kube-system":    {Username: "system:serviceaccount:kube-systemx:default"},
		"a malformed kube-system account":       {Username: "system:serviceaccount:kube-system:a:b"},
		"kube-system with no account name":      {Username: "system:serviceaccount:kube-system:"},
		"a tenant's service account":            {Username: "system:serviceaccount:team-a:deployer", Groups: []string{"system:serviceaccounts"}},
		"a kubelet":                             {Username: "system:node:node-1", Groups: []string{"system:nodes", "system:authenticated"}},
		"a node name outside system:nodes":      {Username: "system:node:node-1", Groups: []string{"system:authenticated"}},
		"the system:nodes group, another name":  {Username: "mallory", Groups: []string{"system:nodes"}},
		"anonymous":                             {Username: "system:anonymous", Groups: []string{"system:unauthenticated"}},
		"some other system: user":               {Username: "system:kube-aggregator"},
		"the scheduler":                         {Username: "system:kube-scheduler"},
		"kube-controller-manager":               {Username: "system:kube-controller-manager"},
		"the API server":                        {Username: "system:apiserver"},
		"kube-proxy":                            {Username: "system:kube-proxy"},
		"a --platform-users entry":              {Username: "ops@example.com"},
		"a --platform-groups member":            {Username: "bob", Groups: []string{"platform-admins"}},
		"a name like a --platform-groups entry": {Username: "platform-admins"},
	}

	validating, _ := Configurations(Options{Namespace: "landlord-system", Platform: platform}, nil)
	compiler := celplugin.NewConditionCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	carrying := 0
	for _, wh := range validating.Webhooks {
		var condition *admissionregistrationv1.MatchCondition
		for i := range wh.MatchConditions {
			if wh.MatchConditions[i].Name == "not-platform" {
				condition = &wh.MatchConditions[i]
			}
		}
		if condition == nil {
			continue
		}
		carrying++
		only := wh.DeepCopy()
		only.MatchConditions = []admissionregistrationv1.MatchCondition{*condition}
		matcher := apiwebhook.NewValidatingWebhookAccessor(wh.Name, validating.Name, only).GetCompiledMatcher(compiler)
		for name, u := range identities {
			ns := &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: "x"}}
			attrs := admission.NewAttributesRecord(ns, nil, corev1.SchemeGroupVersion.WithKind("Namespace"), "", "x",
				corev1.SchemeGroupVersion.WithResource("namespaces"), "", admission.Create, &metav1.CreateOptions{}, false,
				&user.DefaultInfo{Name: u.Username, Groups: u.Groups})
			result := matcher.Match(context.Background(), &admission.VersionedAttributes{Attributes: attrs, VersionedKind: attrs.GetKind(), VersionedObject: ns}, nil, nil)
			if result.Error != nil {
				t.Fatalf("%s, %s: %v", wh.Name, name, result.Error)
			}
			if sent, platformInGo := result.Matches, platform.Includes(u); sent == platformInGo {
				t.Errorf("%s, %s (%s %v): the webhook is called: %v, but the policy's platform: %v", wh.Name, name, u.Username, u.Groups, sent, platformInGo)
			}
		}
	}
	if carrying < 3 {
		t.Errorf("%d webhooks carry the not-platform condition, want the released, namespaces and cluster ones", carrying)
	}
}
