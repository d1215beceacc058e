// Package policy holds Landlord's isolation rules as pure functions: no
// client, no I/O, no clock. The admission webhook, `landlord lint` and
// `landlord audit` all call Evaluate.
package policy

import (
	"slices"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// Tenants answers who holds what; tenancy.Resolver implements it over an
// informer cache (the guard), a fleet read from disk (lint) or a live list.
type Tenants interface {
	// ForNamespace returns the Tenant holding namespace ns, or nil.
	ForNamespace(ns string) *v1alpha1.Tenant
	// Claimant is the tenant an existing namespace's label names, held or
	// not, "" for none.
	Claimant(ns string) string
	// ForUser lists, by name, the Tenants whose identity the requester is:
	// their reconciler in a namespace they hold, or one of their owners.
	ForUser(user authenticationv1.UserInfo) []*v1alpha1.Tenant
	// SelfServiceCount is how many self-service namespaces the named tenant
	// holds now.
	SelfServiceCount(tenant string) int
	// Released is the tenant an existing namespace's released label names,
	// "" for none.
	Released(ns string) string
	// LandlordAccount reports whether Landlord made the ServiceAccount of
	// that name in ns.
	LandlordAccount(ns, name string) bool
}

// Request is one write to judge.
type Request struct {
	Operation admissionv1.Operation // CREATE, UPDATE, DELETE
	Namespace string                // "" for cluster-scoped objects
	Object    runtime.Object        // decoded, typed (nil on DELETE)
	OldObject runtime.Object        // decoded, typed (nil on CREATE)
	// Kind and Name identify the object whatever its kind, decoded or not:
	// approved cluster resources are judged by them.
	Kind schema.GroupKind
	Name string
	User authenticationv1.UserInfo
	// Platform are the platform's admins beyond system:masters.
	Platform Platform
	// Shared answers for the Ingresses and default classes of the cluster;
	// nil knows none.
	Shared Shared
}

// Evaluate returns every violation of the request; empty means allowed.
//
// Who is judged: platform identities (see identify) are never held to the
// identity rules LL009, LL010 and LL014; every other rule judges the content
// of objects in tenant namespaces whoever writes them but the platform
// where the API server evaluates it (inProcessRules, whose policy the
// platform never reaches), since Flux writes a tenant's Git content as the
// tenant's reconciler anyway. Objects in
// namespaces no tenant owns are not judged, except Namespaces and
// cluster-scoped writes by tenants. An update is denied only for violations
// the old object did not have.
func Evaluate(req Request, tenants Tenants) field.ErrorList {
	if frozen := released(req, tenants); len(frozen) > 0 {
		return frozen
	}
	if isNamespace(req.Object) || isNamespace(req.OldObject) {
		ns := namespaceOf(req)
		return namespaceRules(req, identify(req.User, tenants, req.Platform, namespaceFocus(ns, tenants)), tenants)
	}
	owner := tenants.ForNamespace(req.Namespace)
	who := identify(req.User, tenants, req.Platform, nameOf(owner))
	if req.Namespace == "" {
		return slices.Concat(clusterScoped(who, req, tenants), tenantRole(req), inProcess(req, tenants))
	}
	// Appended last: the content rules name what is wrong with the
	// object, these who may not write it there at all.
	inProcess := inProcess(req, tenants)
	if owner == nil {
		return inProcess // a platform namespace, or one no tenant holds: LL026 froze it
	}
	if req.Operation == admissionv1.Delete || req.Object == nil {
		return inProcess
	}
	s := scope{ns: req.Namespace, tenant: owner, tenants: tenants, allow: allowancesOf(owner), writer: who, shared: sharedOf(req)}
	found, _ := content(req.Object, s)
	if req.Operation == admissionv1.Update && req.OldObject != nil {
		// Ratchet: an update may keep a violation it did not introduce, so
		// that controllers can still remove finalizers from objects admitted
		// before a rule existed; audit reports those.
		before, _ := content(req.OldObject, s)
		found = ratchet(found, before, req.Object, req.OldObject)
	}
	return append(found, inProcess...)
}

// namespaceFocus is the tenant a Namespace write concerns: its holder, or
// the tenant its label names.
func namespaceFocus(ns *corev1.Namespace, tenants Tenants) string {
	if t := tenants.ForNamespace(ns.Name); t != nil {
		return t.Name
	}
	return ns.Labels[v1alpha1.TenantLabel]
}

func nameOf(t *v1alpha1.Tenant) string {
	if t == nil {
		return ""
	}
	return t.Name
}

// unheld is rule LL026: a namespace labelled for a tenant that does not
// hold it (unknown, deleted, or not yet known to the guard) is frozen for
// everyone but the platform, never left open.
func unheld(f *field.Path, ns, claimant string) field.ErrorList {
	return field.ErrorList{forbidden(ruleUnheld, f,
		"namespace "+ns+" is labelled for tenant "+claimant+", which does not hold it; allowed: writes by platform identities")}
}

// scope is what the content rules know of the object's place.
type scope struct {
	ns      string
	tenant  *v1alpha1.Tenant
	tenants Tenants
	allow   allowances
	writer  identity
	shared  Shared
}

// sameTenant reports whether ns belongs to the tenant of the scope.
func (s scope) sameTenant(ns string) bool {
	if ns == "" || ns == s.ns {
		return true
	}
	o := s.tenants.ForNamespace(ns)
	return o != nil && o.Name == s.tenant.Name
}

// allowances are the Tenant's opt-ins the rules read, each off unless the
// spec turns it on.
type allowances struct {
	ingress  v1alpha1.Ingress
	gateways v1alpha1.Gateways
}

// allowancesOf reads a Tenant's opt-ins.
func allowancesOf(t *v1alpha1.Tenant) allowances {
	return allowances{
		ingress:  ptr.Deref(t.Spec.Ingress, v1alpha1.Ingress{}),
		gateways: ptr.Deref(t.Spec.Gateways, v1alpha1.Gateways{}),
	}
}

// content applies the rules that judge what an object says; ok is false
// for a kind none of them judges, which kinds.Kind.InProcess keeps out of
// the webhook's routes (TestContentRulesMatchTheRoutes).
func content(obj runtime.Object, s scope) (errs field.ErrorList, ok bool) {
	if errs, ok := gatewayContent(obj, s); ok {
		return errs, true
	}
	switch o := obj.(type) {
	case *corev1.Secret:
		return append(tokenSecret(o, s), secretFetches(o, s)...), true
	case *rbacv1.RoleBinding:
		return roleBinding(o, s), true
	case *networkingv1.Ingress:
		return ingress(o, s), true
	}
	return nil, false
}

// Rule is one isolation rule.
type Rule struct {
	ID     string
	Name   string
	Reason string
}

// Rules lists every rule, in id order.
var Rules = []Rule{
	ruleServiceAccount, ruleCrossNamespace, ruleTargetNamespace, ruleKubeConfig,
	ruleWorkloadIdentity, ruleNotification, ruleImageAutomation, ruleSources,
	ruleNamespaces, ruleManaged, ruleBindingSubjects, ruleReconciler,
	ruleServiceType, ruleClusterScoped, ruleBindingRole, ruleResources, ruleExternalIPs,
	ruleRoleGrants, ruleScheduling, ruleStorage, ruleExternalName, ruleIngress, ruleDisruption,
	ruleReleased, ruleNamespaceMetadata, ruleUnheld, ruleFetches, ruleForeignTenant, ruleImages, ruleGateway,
}

var (
	ruleServiceAccount   = Rule{"LL001", "flux-service-account", "Flux applies a Kustomization or HelmRelease with the rights of its service account, which must be set so that they are the tenant's"}
	ruleCrossNamespace   = Rule{"LL002", "cross-namespace-reference", "a reference to another namespace would let a tenant use sources or dependencies it does not own"}
	ruleTargetNamespace  = Rule{"LL003", "target-namespace", "Flux must apply and store a tenant's releases only in that tenant's namespaces"}
	ruleKubeConfig       = Rule{"LL004", "remote-kubeconfig", "a kubeConfig points Flux at another cluster or at stolen credentials"}
	ruleWorkloadIdentity = Rule{"LL005", "workload-identity", "cloud providers and service-account impersonation lend a tenant an identity the platform did not give it"}
	ruleNotification     = Rule{"LL006", "notification-scope", "receivers and alerts naming other tenants' objects trigger or watch their reconciles"}
	ruleImageAutomation  = Rule{"LL007", "image-automation-scope", "image automation across namespaces reads or writes other tenants' repositories"}
	ruleSources          = Rule{"LL008", "allowed-sources", "a tenant syncs only from the repositories the platform allowed"}
	ruleNamespaces       = Rule{"LL009", "namespace-self-service", "namespaces, their tenant and pod-security labels and Landlord's annotations are the platform's, except self-service ones within the tenant's allowance"}
	ruleManaged          = Rule{"LL010", "managed-objects", "the quota, limits, network policy, bindings, reconciler and variables Landlord manages are the guard rails themselves"}
	ruleBindingSubjects  = Rule{"LL011", "rolebinding-subjects", "binding identities of other namespaces would open a tenant's namespace to other tenants"}
	ruleReconciler       = Rule{"LL012", "reconciler-identity", "a pod or token of the reconciler, or of an account a TenantResource stamps, would hand the platform's grants to any workload"}
	ruleServiceType      = Rule{"LL013", "service-type", "NodePort and LoadBalancer services expose a tenant outside the cluster's network isolation"}
	ruleClusterScoped    = Rule{"LL014", "cluster-scoped-write", "cluster-scoped objects are shared by every tenant and belong to the platform"}
	ruleBindingRole      = Rule{"LL015", "rolebinding-role", "a RoleBinding may grant only the tenant role or the built-in admin, edit and view roles, never a platform ClusterRole"}
	ruleExternalIPs      = Rule{"LL017", "service-external-ips", "spec.externalIPs lets a Service intercept traffic to any address (CVE-2020-8554)"}
	ruleExternalName     = Rule{"LL021", "external-name-service", "an ExternalName Service is a DNS alias to any name, another tenant's Services included, which ingress controllers and gateways then proxy to"}
	ruleRoleGrants       = Rule{"LL018", "role-grants", "the roles a Tenant binds are judged by the rules they grant: token creation, impersonation, escalate and bind, and cluster-wide secrets, kubelets and writes, hand a tenant other identities"}
	ruleForeignTenant    = Rule{"LL028", "foreign-tenant-write", "a tenant identity writes only in its own tenant's namespaces, whatever RBAC it was given by mistake or by an extra cluster role"}
	ruleUnheld           = Rule{"LL026", "unheld-namespace", "a namespace labelled for a tenant that does not hold it is frozen, so that a cache miss or a deleted tenant never opens it"}
)

// The constructors below are the only makers of violations: each carries
// its rule's id in Origin, where RuleID reads it, and at the head of its
// message, where people read it.

// forbidden is a violation of rule r at p; detail names the allowed values.
func forbidden(r Rule, p *field.Path, detail string) *field.Error {
	return field.Forbidden(p, r.ID+": "+detail).WithOrigin(r.ID)
}

// required is a violation of rule r by a field missing at p.
func required(r Rule, p *field.Path, detail string) *field.Error {
	return field.Required(p, r.ID+": "+detail).WithOrigin(r.ID)
}

// invalid is a violation of rule r by value v at p.
func invalid(r Rule, p *field.Path, v any, detail string) *field.Error {
	return field.Invalid(p, v, r.ID+": "+detail).WithOrigin(r.ID)
}

// notSupported is a violation of rule r by value v at p, allowed listing
// what is.
func notSupported(r Rule, p *field.Path, v any, detail string, allowed []string) *field.Error {
	e := field.NotSupported(p, v, allowed)
	e.Detail = r.ID + ": " + detail + "; " + e.Detail
	return e.WithOrigin(r.ID)
}

// oneOf is a violation of rule r by v at p, listing allowed, or saying
// none is when the list is empty.
func oneOf(r Rule, p *field.Path, v, detail string, allowed []string) *field.Error {
	if len(allowed) == 0 {
		return invalid(r, p, v, detail+"; allowed: unset")
	}
	return notSupported(r, p, v, detail, allowed)
}

// RuleID is the id of the rule a violation of Evaluate breaks, "" for any
// other error.
func RuleID(err *field.Error) string {
	if err == nil || !slices.ContainsFunc(Rules, func(r Rule) bool { return r.ID == err.Origin }) {
		return ""
	}
	return err.Origin
}
