package policy

import (
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// ruleGateway is rule LL030, declared here beside it and listed in Rules.
var ruleGateway = Rule{"LL030", "gateway-api", "a Gateway API route or listener answers for its hostnames on a Gateway every tenant may share: a tenant attaches only to the Gateways the Tenant allows and its own, claims only the hostnames it allows and no other tenant holds, never every hostname of a shared listener, and runs Gateways only of the classes the Tenant allows, at addresses the platform assigns"}

// gatewayGroup is the Gateway API's group, which parent references
// default to.
const gatewayGroup = gatewayv1.GroupName

// gatewayContent judges the Gateway API's kinds; ok is false for others.
func gatewayContent(obj runtime.Object, s scope) (errs field.ErrorList, ok bool) {
	spec := field.NewPath("spec")
	rules := spec.Child("rules")
	switch o := obj.(type) {
	case *gatewayv1.HTTPRoute:
		errs := route(o.Namespace, o.Spec.CommonRouteSpec, o.Spec.Hostnames, true, s)
		for i, r := range o.Spec.Rules {
			for j, b := range r.BackendRefs {
				errs = append(errs, backend(b.BackendObjectReference, rules.Index(i).Child("backendRefs").Index(j))...)
				errs = append(errs, httpMirrors(b.Filters, rules.Index(i).Child("backendRefs").Index(j).Child("filters"))...)
			}
			errs = append(errs, httpMirrors(r.Filters, rules.Index(i).Child("filters"))...)
		}
		return errs, true
	case *gatewayv1.GRPCRoute:
		errs := route(o.Namespace, o.Spec.CommonRouteSpec, o.Spec.Hostnames, true, s)
		for i, r := range o.Spec.Rules {
			for j, b := range r.BackendRefs {
				errs = append(errs, backend(b.BackendObjectReference, rules.Index(i).Child("backendRefs").Index(j))...)
				errs = append(errs, grpcMirrors(b.Filters, rules.Index(i).Child("backendRefs").Index(j).Child("filters"))...)
			}
			errs = append(errs, grpcMirrors(r.Filters, rules.Index(i).Child("filters"))...)
		}
		return errs, true
	case *gatewayv1.TLSRoute:
		errs := route(o.Namespace, o.Spec.CommonRouteSpec, o.Spec.Hostnames, true, s)
		for i, r := range o.Spec.Rules {
			errs = append(errs, backends(r.BackendRefs, rules.Index(i).Child("backendRefs"))...)
		}
		return errs, true
	case *gatewayv1.TCPRoute:
		errs := route(o.Namespace, o.Spec.CommonRouteSpec, nil, false, s)
		for i, r := range o.Spec.Rules {
			errs = append(errs, backends(r.BackendRefs, rules.Index(i).Child("backendRefs"))...)
		}
		return errs, true
	case *gatewayv1.UDPRoute:
		errs := route(o.Namespace, o.Spec.CommonRouteSpec, nil, false, s)
		for i, r := range o.Spec.Rules {
			errs = append(errs, backends(r.BackendRefs, rules.Index(i).Child("backendRefs"))...)
		}
		return errs, true
	case *gatewayv1.ListenerSet:
		ref := o.Spec.ParentRef
		errs := parent(o.Namespace, ptr.Deref(ref.Group, gatewayGroup), ptr.Deref(ref.Kind, "Gateway"), ref.Namespace, string(ref.Name), spec.Child("parentRef"), s)
		for i, l := range o.Spec.Listeners {
			errs = append(errs, listener(l.Protocol, l.Hostname, spec.Child("listeners").Index(i), s)...)
		}
		return errs, true
	case *gatewayv1.Gateway:
		return gateway(o, s), true
	}
	return nil, false
}

// route judges a route's parents and, for the kinds that have them, its
// hostnames: none at all answers for every hostname of the listener,
// which only the tenant's own Gateways may leave to their listeners. A
// TCP or UDP route has none, and takes a shared listener's every
// hostname or its port: it attaches to the tenant's own Gateways only.
func route(ns string, common gatewayv1.CommonRouteSpec, hostnames []gatewayv1.Hostname, named bool, s scope) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if d := common.UseDefaultGateways; d != "" && d != gatewayv1.GatewayDefaultScopeNone {
		errs = append(errs, forbidden(ruleGateway, spec.Child("useDefaultGateways"), "the cluster's default Gateways are the platform's and answer for every hostname; allowed: None, and parentRefs"))
	}
	shared := false
	for i, p := range common.ParentRefs {
		group, kind := ptr.Deref(p.Group, gatewayGroup), ptr.Deref(p.Kind, "Gateway")
		errs = append(errs, parent(ns, group, kind, p.Namespace, string(p.Name), spec.Child("parentRefs").Index(i), s)...)
		shared = shared || !s.sameTenant(string(ptr.Deref(p.Namespace, gatewayv1.Namespace(ns))))
	}
	if !named {
		if shared {
			errs = append(errs, forbidden(ruleGateway, spec.Child("parentRefs"),
				"a TCP or UDP route takes every hostname of a shared Gateway's listener, or its whole port; allowed: the tenant's own Gateways"))
		}
		return errs
	}
	if len(hostnames) == 0 && shared {
		errs = append(errs, forbidden(ruleGateway, spec.Child("hostnames"),
			"a route without hostnames answers for every hostname of the shared Gateway's listener; allowed: "+allowedHostnames(s)))
	}
	for i, h := range hostnames {
		errs = append(errs, claimedHostname(ruleGateway, string(h), spec.Child("hostnames").Index(i), s)...)
	}
	return errs
}

// parent allows a Gateway, ListenerSet or Service (a mesh) of the
// tenant's own namespaces, and the platform's Gateways spec.gateways
// lists.
func parent(ns string, group gatewayv1.Group, kind gatewayv1.Kind, namespace *gatewayv1.Namespace, name string, p *field.Path, s scope) field.ErrorList {
	target := string(ptr.Deref(namespace, gatewayv1.Namespace(ns)))
	own := group == gatewayGroup && (kind == "Gateway" || kind == "ListenerSet") || group == "" && kind == "Service"
	if own && s.sameTenant(target) {
		return nil
	}
	if group == gatewayGroup && kind == "Gateway" && slices.Contains(s.allow.gateways.Allowed, target+"/"+name) {
		return nil
	}
	return field.ErrorList{invalid(ruleGateway, p, target+"/"+name, "tenant "+s.tenant.Name+" may not attach to "+string(kind)+" "+target+"/"+name+
		"; allowed: Gateways, ListenerSets and Services of its own namespaces"+allowedGateways(s))}
}

// gateway judges a Gateway of the tenant's own: a class the Tenant
// allows, no address of its choosing, and listeners as listener judges
// them.
func gateway(g *gatewayv1.Gateway, s scope) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if class := string(g.Spec.GatewayClassName); !slices.Contains(s.allow.gateways.Classes, class) {
		errs = append(errs, oneOf(ruleGateway, spec.Child("gatewayClassName"), class, "tenant "+s.tenant.Name+" may not run Gateways of this class: Gateways are the platform's", s.allow.gateways.Classes))
	}
	if len(g.Spec.Addresses) > 0 {
		errs = append(errs, forbidden(ruleGateway, spec.Child("addresses"), "an address of the tenant's choosing may be another's; allowed: unset, the address the implementation assigns"))
	}
	if d := g.Spec.DefaultScope; d != "" && d != gatewayv1.GatewayDefaultScopeNone {
		errs = append(errs, forbidden(ruleGateway, spec.Child("defaultScope"), "a default Gateway takes every tenant's routes that ask for one; allowed: None"))
	}
	if in := g.Spec.Infrastructure; in != nil {
		// Implementations copy them onto the Service they make, where load
		// balancer controllers read an address or a subnet of any tenant's.
		if len(in.Annotations) > 0 {
			errs = append(errs, forbidden(ruleGateway, spec.Child("infrastructure", "annotations"), "load balancer controllers read an address of the tenant's choosing from them; allowed: unset"))
		}
		if in.ParametersRef != nil {
			errs = append(errs, forbidden(ruleGateway, spec.Child("infrastructure", "parametersRef"), "implementations patch what they make for the Gateway from it; allowed: unset, the class's own parameters"))
		}
	}
	for i, l := range g.Spec.Listeners {
		errs = append(errs, listener(l.Protocol, l.Hostname, spec.Child("listeners").Index(i), s)...)
	}
	return errs
}

// listener judges a listener's hostname: one the tenant may claim, and
// required where the protocol routes by hostname, since a listener without
// one answers for every hostname on its port.
func listener(protocol gatewayv1.ProtocolType, hostname *gatewayv1.Hostname, p *field.Path, s scope) field.ErrorList {
	if hostname == nil || *hostname == "" {
		if protocol == gatewayv1.TCPProtocolType || protocol == gatewayv1.UDPProtocolType {
			return nil
		}
		return field.ErrorList{forbidden(ruleGateway, p.Child("hostname"), "a "+string(protocol)+" listener without a hostname answers for every hostname on its port; allowed: "+allowedHostnames(s))}
	}
	return claimedHostname(ruleGateway, string(*hostname), p.Child("hostname"), s)
}

// backend allows Services: another kind a backend may name, such as
// Istio's Hostname, reaches any address, other tenants' Services
// included, with no ReferenceGrant asked, as an ExternalName Service
// would (LL021).
func backend(ref gatewayv1.BackendObjectReference, p *field.Path) field.ErrorList {
	if ptr.Deref(ref.Group, "") == "" && ptr.Deref(ref.Kind, "Service") == "Service" {
		return nil
	}
	return field.ErrorList{invalid(ruleGateway, p, string(ptr.Deref(ref.Group, ""))+"/"+string(ptr.Deref(ref.Kind, "")),
		"a backend of another kind than Service reaches what the implementation resolves it to, another tenant's Services included; allowed: Services")}
}

func backends(refs []gatewayv1.BackendRef, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, b := range refs {
		errs = append(errs, backend(b.BackendObjectReference, p.Index(i))...)
	}
	return errs
}

// httpMirrors and grpcMirrors judge the backends filters copy requests to.
func httpMirrors(filters []gatewayv1.HTTPRouteFilter, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, f := range filters {
		if f.RequestMirror != nil {
			errs = append(errs, backend(f.RequestMirror.BackendRef, p.Index(i).Child("requestMirror", "backendRef"))...)
		}
	}
	return errs
}

func grpcMirrors(filters []gatewayv1.GRPCRouteFilter, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, f := range filters {
		if f.RequestMirror != nil {
			errs = append(errs, backend(f.RequestMirror.BackendRef, p.Index(i).Child("requestMirror", "backendRef"))...)
		}
	}
	return errs
}

// allowedGateways names spec.gateways.allowed, for messages.
func allowedGateways(s scope) string {
	if len(s.allow.gateways.Allowed) == 0 {
		return " (spec.gateways.allowed lists no Gateway of the platform's)"
	}
	return ", and the Gateways " + quoteList(s.allow.gateways.Allowed)
}
