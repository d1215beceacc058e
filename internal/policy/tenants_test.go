package policy

import (
	"reflect"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// fakeTenants is an in-memory Tenants: the rules are pure, the cache-backed
// index is tested with the webhook.
type fakeTenants struct {
	tenants []*v1alpha1.Tenant
	// selfService lists, per tenant, the self-service namespaces that exist.
	selfService map[string][]string
	// claimed maps namespaces labelled for a tenant that holds none of
	// them to that tenant.
	claimed map[string]string
	// released maps namespaces a tenant released to that tenant.
	released map[string]string
	// accounts are the ServiceAccounts Landlord made, as namespace/name.
	accounts []string
}

func (f fakeTenants) LandlordAccount(ns, name string) bool {
	return slices.Contains(f.accounts, ns+"/"+name)
}

// optIns are a Tenant's opt-ins, which allowing sets on every test
// Tenant: the rules read them from the Tenant, the API server's from the
// labels and annotations the controller renders of it.
type optIns struct {
	requireResources bool
	workloadIdentity bool
	scheduling       v1alpha1.Scheduling
	storage          v1alpha1.Storage
	ingress          v1alpha1.Ingress
	gateways         v1alpha1.Gateways
	// images is nil where the Tenant bounds no image.
	images *v1alpha1.Images
}

// allowing is f with every Tenant opting in to what o says, and out of
// the rest; with no opt-in at all, f as its Tenants say.
func (f fakeTenants) allowing(o optIns) fakeTenants {
	if reflect.ValueOf(o).IsZero() {
		return f
	}
	tenants := make([]*v1alpha1.Tenant, len(f.tenants))
	for i, t := range f.tenants {
		t = t.DeepCopy()
		t.Spec.RequireResources, t.Spec.AllowWorkloadIdentity = o.requireResources, o.workloadIdentity
		t.Spec.Scheduling, t.Spec.Storage, t.Spec.Ingress, t.Spec.Gateways = &o.scheduling, &o.storage, &o.ingress, &o.gateways
		t.Spec.Images = o.images
		tenants[i] = t
	}
	f.tenants = tenants
	return f
}

func (f fakeTenants) ForNamespace(ns string) *v1alpha1.Tenant {
	for _, t := range f.tenants {
		if slices.Contains(t.NamespaceNames(), ns) || slices.Contains(f.selfService[t.Name], ns) {
			return t
		}
	}
	return nil
}

func (f fakeTenants) Claimant(ns string) string {
	if t := f.ForNamespace(ns); t != nil {
		return t.Name
	}
	return f.claimed[ns]
}

func (f fakeTenants) ForUser(u authenticationv1.UserInfo) []*v1alpha1.Tenant {
	var found []*v1alpha1.Tenant
	for _, t := range f.tenants {
		if ns, name, ok := tenancy.SplitServiceAccount(u.Username); ok && name == t.ReconcilerName() && f.ForNamespace(ns) == t {
			found = append(found, t)
			continue
		}
		if slices.ContainsFunc(t.Spec.Owners, func(o v1alpha1.Owner) bool {
			switch o.Kind {
			case "User":
				return u.Username == o.Name
			case "Group":
				return slices.Contains(u.Groups, o.Name)
			}
			return u.Username == tenancy.ServiceAccountPrefix+o.Namespace+":"+o.Name
		}) {
			found = append(found, t)
		}
	}
	slices.SortFunc(found, func(a, b *v1alpha1.Tenant) int { return strings.Compare(a.Name, b.Name) })
	return found
}

func (f fakeTenants) SelfServiceCount(tenant string) int { return len(f.selfService[tenant]) }

func (f fakeTenants) Released(ns string) string { return f.released[ns] }

// testTenants: dev-team with two assigned namespaces, self-service room
// for one more, allowed sources and namespace metadata; ops with one
// namespace, no self-service and any source; full with its self-service
// allowance used up. A TenantResource stamped the account platform-agent
// into apps.
var testTenants = fakeTenants{
	accounts: []string{"apps/platform-agent"},
	tenants: []*v1alpha1.Tenant{
		{
			ObjectMeta: metav1.ObjectMeta{Name: "dev-team"},
			Spec: v1alpha1.TenantSpec{
				Namespaces:  []v1alpha1.TenantNamespace{{Name: "apps"}, {Name: "apps-jobs"}},
				SelfService: &v1alpha1.SelfService{Prefix: "dev-team-", MaxNamespaces: 2},
				NamespaceMetadata: &v1alpha1.NamespaceMetadata{
					AllowedLabels:      []string{"team"},
					AllowedAnnotations: []string{"example.com/*"},
				},
				Owners: []v1alpha1.Owner{{Kind: "Group", Name: "dev-team"}, {Kind: "ServiceAccount", Name: "deployer", Namespace: "ci"}},
				Sources: []v1alpha1.Source{
					{Name: "dev-team", Git: &v1alpha1.GitSource{URL: "https://git.example.com/org/dev-team", SecretRef: "auth"}, Decryption: &v1alpha1.Decryption{SecretRef: "sops"}},
					{Name: "base", Template: &v1alpha1.GitSource{URL: "https://git.platform.example.com/templates/base"}, TargetNamespace: "apps-jobs"},
				},
				Quota:      &v1alpha1.Quota{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("50")}},
				LimitRange: &v1alpha1.LimitRange{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer}}},
				AllowedSources: []string{
					"https://git.example.com/org/*",
					"oci://registry.example.com/charts/*",
					"ssh://git@git.example.com/team-*/config",
					"https://minio.example.com/dev-team",
				},
				Notifications: &v1alpha1.Notifications{Type: "slack", Address: "https://hooks.example.com/dev-team"},
			},
		},
		{
			ObjectMeta: metav1.ObjectMeta{Name: "ops"},
			Spec: v1alpha1.TenantSpec{
				Namespaces:         []v1alpha1.TenantNamespace{{Name: "ops"}},
				Owners:             []v1alpha1.Owner{{Kind: "User", Name: "alice"}},
				ServiceAccountName: "flux",
				Network:            v1alpha1.Network{AllowServiceTypes: []corev1.ServiceType{corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeExternalName}},
			},
		},
		{
			ObjectMeta: metav1.ObjectMeta{Name: "full"},
			Spec: v1alpha1.TenantSpec{
				Namespaces:            []v1alpha1.TenantNamespace{{Name: "full"}},
				SelfService:           &v1alpha1.SelfService{Prefix: "full-", MaxNamespaces: 1},
				Owners:                []v1alpha1.Owner{{Kind: "User", Name: "carol"}},
				AllowWorkloadIdentity: true,
			},
		},
	},
	selfService: map[string][]string{"dev-team": {"dev-team-x"}, "full": {"full-a"}},
	claimed:     map[string]string{"orphan": "gone"},
	released:    map[string]string{"was-apps": "dev-team"},
}

// Identities of the tests.
var (
	reconciler    = authenticationv1.UserInfo{Username: "system:serviceaccount:apps:dev-team"}
	owner         = authenticationv1.UserInfo{Username: "bob", Groups: []string{"dev-team", "system:authenticated"}}
	opsReconciler = authenticationv1.UserInfo{Username: "system:serviceaccount:ops:flux"}
	carol         = authenticationv1.UserInfo{Username: "carol"}
	controller    = authenticationv1.UserInfo{Username: tenancy.ControllerUser(tenancy.ControllerNamespace)}
	masters       = authenticationv1.UserInfo{Username: "admin", Groups: []string{"system:masters"}}
	fluxKustomize = authenticationv1.UserInfo{Username: "system:serviceaccount:flux-system:kustomize-controller"}
	nsController  = authenticationv1.UserInfo{Username: "system:serviceaccount:kube-system:namespace-controller"}
	stranger      = authenticationv1.UserInfo{Username: "eve", Groups: []string{"system:authenticated"}}
	kubelet       = authenticationv1.UserInfo{Username: "system:node:worker-1", Groups: []string{"system:nodes", "system:authenticated"}}
)

// ruleIDs is the sorted, comma-joined set of rule ids of errs.
func ruleIDs(errs field.ErrorList) string {
	ids := make([]string, 0, len(errs))
	for _, e := range errs {
		ids = append(ids, RuleID(e))
	}
	slices.Sort(ids)
	return strings.Join(slices.Compact(ids), ",")
}
