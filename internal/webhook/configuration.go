package webhook

import (
	"context"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/apply"
	"github.com/landlord-dev/landlord/internal/kinds"
	"github.com/landlord-dev/landlord/internal/policy"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations;mutatingwebhookconfigurations,verbs=create
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations;mutatingwebhookconfigurations,resourceNames=landlord,verbs=get;update;patch
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingadmissionpolicies;validatingadmissionpolicybindings;mutatingadmissionpolicies;mutatingadmissionpolicybindings,verbs=create
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingadmissionpolicies;validatingadmissionpolicybindings;mutatingadmissionpolicies;mutatingadmissionpolicybindings,resourceNames=landlord;landlord-content;landlord-sources;landlord-workloads;landlord-pod-accounts;landlord-classes;landlord-tenant-role,verbs=get;update;patch

// Name of both webhook configurations, and of the server's paths.
const (
	ConfigurationName = "landlord"
	// DefaultServiceName is the Service in front of the controller's
	// webhook server in cluster.
	DefaultServiceName = "landlord-webhook"
	ValidatePath       = "/validate"
	MutatePath         = "/mutate"
	// fieldOwner is the controller's one server-side apply manager.
	fieldOwner = "landlord"
)

// Configurations returns the validating and mutating webhook configurations
// pointing at the server described by opts, with caBundle when not nil.
func Configurations(opts Options, caBundle []byte) (*admissionregistrationv1.ValidatingWebhookConfiguration, *admissionregistrationv1.MutatingWebhookConfiguration) {
	opts.setDefaults()
	guard, timeout := ptr.To(opts.FailurePolicy), ptr.To(opts.TimeoutSeconds)
	meta := metav1.ObjectMeta{Name: ConfigurationName, Labels: map[string]string{v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue}}
	if opts.CertManager {
		meta.Annotations = map[string]string{"cert-manager.io/inject-ca-from": opts.Namespace + "/" + opts.ServiceName}
	}
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: meta,
		Webhooks: []admissionregistrationv1.ValidatingWebhook{
			{
				Name:                    "objects.landlord.dev",
				ClientConfig:            clientConfig(opts, ValidatePath, caBundle),
				Rules:                   tenantObjectRules(allOperations),
				NamespaceSelector:       tenantNamespaces(),
				MatchConditions:         []admissionregistrationv1.MatchCondition{notWorkloadControllers()},
				FailurePolicy:           guard,
				SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
				TimeoutSeconds:          timeout,
				AdmissionReviewVersions: []string{"v1"},
			},
			{
				// The in-process rules cannot tell which tenant a writer
				// holding a wildcard grant acts for (policy.Wildcard): the
				// webhook evaluates them with exact answers.
				Name:         "wildcard.landlord.dev",
				ClientConfig: clientConfig(opts, ValidatePath, caBundle),
				// What the in-process policy matches.
				Rules: []admissionregistrationv1.RuleWithOperations{
					rule([]admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll}, admissionregistrationv1.NamespacedScope, "*", "*/*"),
				},
				NamespaceSelector: tenantNamespaces(),
				// One expression: match conditions are all evaluated, and
				// the authorizer check, which reads every ClusterRoleBinding
				// when it is refused, must run only for what the others leave.
				MatchConditions: []admissionregistrationv1.MatchCondition{{
					Name:       "wildcard-grant-of-no-platform",
					Expression: fmt.Sprintf("%s && %s && %s", notPlatform(opts.Platform).Expression, notRouted(), policy.Wildcard()),
				}},
				FailurePolicy:           guard,
				SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
				TimeoutSeconds:          timeout,
				AdmissionReviewVersions: []string{"v1"},
			},
			{
				// Label selectors cannot OR: released namespaces, which lost
				// the tenant label, get their own entry, every kind routed,
				// since nothing but the platform may write there (LL024).
				Name:         "released.landlord.dev",
				ClientConfig: clientConfig(opts, ValidatePath, caBundle),
				Rules: []admissionregistrationv1.RuleWithOperations{
					rule(allOperations, admissionregistrationv1.NamespacedScope, "*", "*"),
				},
				NamespaceSelector:       releasedNamespaces(),
				MatchConditions:         []admissionregistrationv1.MatchCondition{notPlatform(opts.Platform)},
				FailurePolicy:           guard,
				SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
				TimeoutSeconds:          timeout,
				AdmissionReviewVersions: []string{"v1"},
			},
			{
				Name:         "namespaces.landlord.dev",
				ClientConfig: clientConfig(opts, ValidatePath, caBundle),
				Rules: []admissionregistrationv1.RuleWithOperations{
					// Status and finalize rewrite labels and finalizers too.
					rule(allOperations, admissionregistrationv1.ClusterScope, "", "namespaces", "namespaces/status", "namespaces/finalize"),
				},
				// Platform identities never wait on the webhook for a namespace.
				MatchConditions:         []admissionregistrationv1.MatchCondition{notPlatform(opts.Platform)},
				FailurePolicy:           guard,
				SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
				TimeoutSeconds:          timeout,
				AdmissionReviewVersions: []string{"v1"},
			},
			{
				// A second wall behind RBAC, which grants tenants no other
				// cluster-scoped write: it ignores failures, so that the
				// platform's cluster-wide writes never wait on Landlord.
				Name:         "cluster.landlord.dev",
				ClientConfig: clientConfig(opts, ValidatePath, caBundle),
				Rules: []admissionregistrationv1.RuleWithOperations{
					rule(allOperations, admissionregistrationv1.ClusterScope, "*", "*"),
				},
				MatchConditions: []admissionregistrationv1.MatchCondition{
					notPlatform(opts.Platform),
					{Name: "not-namespaces", Expression: `!(request.resource.group == "" && request.resource.resource == "namespaces")`},
					// Access and token reviews persist nothing and answer `kubectl auth can-i`.
					{Name: "not-reviews", Expression: `!(request.resource.group in ["authorization.k8s.io", "authentication.k8s.io"])`},
				},
				FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
				SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
				TimeoutSeconds:          timeout,
				AdmissionReviewVersions: []string{"v1"},
			},
		},
	}
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: meta,
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:         "defaults.landlord.dev",
			ClientConfig: clientConfig(opts, MutatePath, caBundle),
			Rules: []admissionregistrationv1.RuleWithOperations{
				rule(createUpdate, admissionregistrationv1.NamespacedScope, "kustomize.toolkit.fluxcd.io", "kustomizations"),
				rule(createUpdate, admissionregistrationv1.NamespacedScope, "helm.toolkit.fluxcd.io", "helmreleases"),
			},
			NamespaceSelector: tenantNamespaces(),
			// Where the API server's MutatingAdmissionPolicy defaulted it
			// (policy.Defaulting), the webhook is not asked.
			MatchConditions:         []admissionregistrationv1.MatchCondition{{Name: "no-service-account", Expression: policy.NoServiceAccount}},
			FailurePolicy:           guard,
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			TimeoutSeconds:          timeout,
			ReinvocationPolicy:      ptr.To(admissionregistrationv1.NeverReinvocationPolicy),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
	return validating, mutating
}

var (
	allOperations = []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete}
	createUpdate  = []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
)

// tenantObjectRules route the kinds the policy judges in tenant
// namespaces (kinds.Kind.Judged) by their content: those the in-process
// rules alone judge (kinds.Kind.InProcess) never leave the API server.
// By group in the registry's order; subresources are left out, so status
// writes never wait on the webhook.
func tenantObjectRules(ops []admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
	var rules []admissionregistrationv1.RuleWithOperations
	for _, g := range byGroup(judgedByContent) {
		rules = append(rules, rule(ops, admissionregistrationv1.NamespacedScope, g.group, g.resources...))
	}
	return rules
}

// judgedByContent are the namespaced kinds rules judge beyond the
// in-process ones.
func judgedByContent(k kinds.Kind) bool { return k.Judged && k.Namespaced && !k.InProcess }

// notRouted leaves out the kinds tenantObjectRules route already, which the
// objects webhook judges whoever writes them.
func notRouted() string {
	var kinds []string
	for _, g := range byGroup(judgedByContent) {
		kinds = append(kinds, fmt.Sprintf("(request.resource.group == %q && request.resource.resource in %s)", g.group, policy.CELList(g.resources)))
	}
	return fmt.Sprintf("!(%s)", strings.Join(kinds, " || "))
}

// groupResources are the resources of one API group.
type groupResources struct {
	group     string
	resources []string
}

// byGroup gathers the resources of the kinds keep accepts by API group, in
// the registry's order.
func byGroup(keep func(kinds.Kind) bool) []groupResources {
	var out []groupResources
	for _, k := range kinds.Select(keep) {
		i := slices.IndexFunc(out, func(g groupResources) bool { return g.group == k.Group })
		if i < 0 {
			out = append(out, groupResources{group: k.Group})
			i = len(out) - 1
		}
		if !slices.Contains(out[i].resources, k.Resource) {
			out[i].resources = append(out[i].resources, k.Resource)
		}
	}
	return out
}

func rule(ops []admissionregistrationv1.OperationType, scope admissionregistrationv1.ScopeType, group string, resources ...string) admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{
		Operations: ops,
		Rule: admissionregistrationv1.Rule{
			APIGroups: []string{group}, APIVersions: []string{"*"}, Resources: resources, Scope: ptr.To(scope),
		},
	}
}

// workloadControllers are kube-controller-manager's controllers that write
// in tenant namespaces only copies of templates the webhook judged when they
// were admitted (Pods of a ReplicaSet, ReplicaSets of a Deployment, Jobs of
// a CronJob) or deletions (namespace, garbage and finished-Job collectors),
// under --use-service-account-credentials, and kube-controller-manager's
// own user, which all of them share without it.
var workloadControllers = []string{
	"system:kube-controller-manager",
	tenancy.ServiceAccountPrefix + "kube-system:replicaset-controller",
	tenancy.ServiceAccountPrefix + "kube-system:replication-controller",
	tenancy.ServiceAccountPrefix + "kube-system:deployment-controller",
	tenancy.ServiceAccountPrefix + "kube-system:statefulset-controller",
	tenancy.ServiceAccountPrefix + "kube-system:daemon-set-controller",
	tenancy.ServiceAccountPrefix + "kube-system:job-controller",
	tenancy.ServiceAccountPrefix + "kube-system:cronjob-controller",
	tenancy.ServiceAccountPrefix + "kube-system:namespace-controller",
	tenancy.ServiceAccountPrefix + "kube-system:generic-garbage-collector",
	tenancy.ServiceAccountPrefix + "kube-system:pod-garbage-collector",
	tenancy.ServiceAccountPrefix + "kube-system:ttl-after-finished-controller",
}

// notWorkloadControllers keeps the cluster's own controllers off the
// fail-closed webhook, so that with Landlord down a Deployment admitted
// earlier still gets its Pods and a deleted namespace still empties.
func notWorkloadControllers() admissionregistrationv1.MatchCondition {
	return admissionregistrationv1.MatchCondition{
		Name:       "not-workload-controllers",
		Expression: fmt.Sprintf("!(request.userInfo.username in %s)", policy.CELList(workloadControllers)),
	}
}

// tenantNamespaces selects the namespaces carrying the tenant label.
func tenantNamespaces() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: v1alpha1.TenantLabel, Operator: metav1.LabelSelectorOpExists},
	}}
}

// releasedNamespaces selects the namespaces a tenant released.
func releasedNamespaces() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: v1alpha1.ReleasedLabel, Operator: metav1.LabelSelectorOpExists},
	}}
}

// notPlatform skips the identities the policy never judges on namespaces
// and cluster-scoped objects (policy.Platform.Includes, spelled in CEL):
// break-glass admins, the platform's configured admins, Kubernetes' and
// Flux's controllers, kubelets and Landlord itself.
func notPlatform(platform policy.Platform) admissionregistrationv1.MatchCondition {
	return admissionregistrationv1.MatchCondition{Name: "not-platform", Expression: "!(" + platform.CEL() + ")"}
}

// clientConfig points at the in-cluster Service, or at URLBase when set.
func clientConfig(opts Options, path string, caBundle []byte) admissionregistrationv1.WebhookClientConfig {
	if opts.URLBase != "" {
		return admissionregistrationv1.WebhookClientConfig{URL: ptr.To(strings.TrimSuffix(opts.URLBase, "/") + path), CABundle: caBundle}
	}
	return admissionregistrationv1.WebhookClientConfig{
		Service: &admissionregistrationv1.ServiceReference{
			Name: opts.ServiceName, Namespace: opts.Namespace, Path: ptr.To(path), Port: ptr.To[int32](443),
		},
		CABundle: caBundle,
	}
}

// register server-side applies both configurations and the policies, with
// caBundle when not nil; a nil caBundle leaves the one cert-manager
// injects alone. The policies hold the cluster's default classes as r
// reads them.
func register(ctx context.Context, r client.Reader, c client.Client, opts Options, caBundle []byte) error {
	platform := opts.Platform
	var err error
	if platform.Defaults, err = policy.ClusterDefaults(ctx, r); err != nil {
		return err
	}
	validating, mutating := Configurations(opts, caBundle)
	objects := append(policy.ValidatingPolicies(platform), validating, mutating)
	served, err := mutatingPoliciesServed(c)
	if err != nil {
		return err
	}
	if served {
		defaulting, defaultingBinding := policy.Defaulting()
		objects = append(objects, defaulting, defaultingBinding)
	}
	if err := apply.Objects(ctx, c, fieldOwner, objects...); err != nil {
		return fmt.Errorf("registering the webhooks: %w", err)
	}
	return nil
}

// mutatingPoliciesServed reports whether the API server serves
// MutatingAdmissionPolicy (GA in Kubernetes 1.36); before, the mutating
// webhook alone sets the reconciler default.
func mutatingPoliciesServed(c client.Client) (bool, error) {
	_, err := c.RESTMapper().RESTMapping(admissionregistrationv1.SchemeGroupVersion.WithKind("MutatingAdmissionPolicy").GroupKind(), admissionregistrationv1.SchemeGroupVersion.Version)
	if meta.IsNoMatchError(err) {
		return false, nil
	}
	return err == nil, err
}
