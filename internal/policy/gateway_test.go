package policy

import (
	"maps"
	"strings"

	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// devGateways lets dev-team attach to the platform's public Gateway, run
// Gateways of class tenant-gw, and claim devHosts' hostnames.
var devGateways = optIns{
	ingress:  devHosts.ingress,
	gateways: v1alpha1.Gateways{Allowed: []string{"gateway-system/public"}, Classes: []string{"tenant-gw"}},
}

// parentRef names a Gateway in ns, "" for the route's own namespace.
func parentRef(ns, name string) gatewayv1.ParentReference {
	ref := gatewayv1.ParentReference{Name: gatewayv1.ObjectName(name)}
	if ns != "" {
		ref.Namespace = ptr.To(gatewayv1.Namespace(ns))
	}
	return ref
}

func newHTTPRoute(parent gatewayv1.ParentReference, hosts ...string) *gatewayv1.HTTPRoute {
	r := &gatewayv1.HTTPRoute{ObjectMeta: objectMeta("web", "apps")}
	r.Spec.ParentRefs = []gatewayv1.ParentReference{parent}
	for _, h := range hosts {
		r.Spec.Hostnames = append(r.Spec.Hostnames, gatewayv1.Hostname(h))
	}
	return r
}

func newGateway(class string, hosts ...string) *gatewayv1.Gateway {
	g := &gatewayv1.Gateway{ObjectMeta: objectMeta("edge", "apps"), Spec: gatewayv1.GatewaySpec{GatewayClassName: gatewayv1.ObjectName(class)}}
	for _, h := range hosts {
		l := gatewayv1.Listener{Name: "https", Port: 443, Protocol: gatewayv1.HTTPSProtocolType}
		if h != "" {
			l.Hostname = ptr.To(gatewayv1.Hostname(h))
		}
		g.Spec.Listeners = append(g.Spec.Listeners, l)
	}
	return g
}

func newListenerSet(parent string, host string) *gatewayv1.ListenerSet {
	ns, name, _ := strings.Cut(parent, "/")
	ls := &gatewayv1.ListenerSet{ObjectMeta: objectMeta("web", "apps")}
	ls.Spec.ParentRef = gatewayv1.ParentGatewayReference{Name: gatewayv1.ObjectName(name), Namespace: ptr.To(gatewayv1.Namespace(ns))}
	ls.Spec.Listeners = []gatewayv1.ListenerEntry{{Name: "https", Port: 443, Protocol: gatewayv1.HTTPSProtocolType, Hostname: ptr.To(gatewayv1.Hostname(host))}}
	return ls
}

// gatewayCases are LL030; they join testCases.
var gatewayCases = map[string]testCase{
	"route on the platform's allowed Gateway":   {req: withShared(create(reconciler, "apps", newHTTPRoute(parentRef("gateway-system", "public"), "web.dev.example.com"))), allow: devGateways},
	"route on a platform Gateway not allowed":   {req: withShared(create(reconciler, "apps", newHTTPRoute(parentRef("gateway-system", "internal"), "web.dev.example.com"))), allow: devGateways, want: "LL030"},
	"route on another tenant's Gateway":         {req: withShared(create(reconciler, "apps", newHTTPRoute(parentRef("ops", "edge"), "web.dev.example.com"))), allow: devGateways, want: "LL030"},
	"route on its own Gateway":                  {req: withShared(create(reconciler, "apps", newHTTPRoute(parentRef("apps-jobs", "edge")))), allow: devGateways},
	"route on a mesh Service of another tenant": {req: withShared(create(reconciler, "apps", newHTTPRoute(gatewayv1.ParentReference{Group: ptr.To(gatewayv1.Group("")), Kind: ptr.To(gatewayv1.Kind("Service")), Name: "db", Namespace: ptr.To(gatewayv1.Namespace("ops"))}, "web.dev.example.com"))), allow: devGateways, want: "LL030"},
	"route on a mesh Service of its own":        {req: withShared(create(reconciler, "apps", newHTTPRoute(gatewayv1.ParentReference{Group: ptr.To(gatewayv1.Group("")), Kind: ptr.To(gatewayv1.Kind("Service")), Name: "db"}))), allow: devGateways},
	"route of every hostname on a shared one":   {req: withShared(create(reconciler, "apps", newHTTPRoute(parentRef("gateway-system", "public")))), allow: devGateways, want: "LL030"},
	"route of another tenant's hostname":        {req: withShared(create(reconciler, "apps", newHTTPRoute(parentRef("gateway-system", "public"), "shop.example.com"))), allow: devGateways, want: "LL030"},
	"route of a hostname outside its patterns":  {req: withShared(create(reconciler, "apps", newHTTPRoute(parentRef("gateway-system", "public"), "www.example.org"))), allow: devGateways, want: "LL030"},
	"route of its own other namespace's host":   {req: withShared(create(reconciler, "apps", newHTTPRoute(parentRef("gateway-system", "public"), "api.example.com"))), allow: devGateways},
	"grpc route of another tenant's hostname":   {req: withShared(create(reconciler, "apps", &gatewayv1.GRPCRoute{ObjectMeta: objectMeta("rpc", "apps"), Spec: gatewayv1.GRPCRouteSpec{CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{parentRef("gateway-system", "public")}}, Hostnames: []gatewayv1.Hostname{"shop.example.com"}}})), allow: devGateways, want: "LL030"},
	"tcp route on a Gateway not allowed":        {req: withShared(create(reconciler, "apps", &gatewayv1.TCPRoute{ObjectMeta: objectMeta("db", "apps"), Spec: gatewayv1.TCPRouteSpec{CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{parentRef("gateway-system", "internal")}}}})), allow: devGateways, want: "LL030"},
	"tcp route on the allowed shared Gateway":   {req: withShared(create(reconciler, "apps", &gatewayv1.TCPRoute{ObjectMeta: objectMeta("db", "apps"), Spec: gatewayv1.TCPRouteSpec{CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{parentRef("gateway-system", "public")}}}})), allow: devGateways, want: "LL030"},
	"tcp route on its own Gateway":              {req: withShared(create(reconciler, "apps", &gatewayv1.TCPRoute{ObjectMeta: objectMeta("db", "apps"), Spec: gatewayv1.TCPRouteSpec{CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{parentRef("apps-jobs", "edge")}}}})), allow: devGateways},
	"route on the default Gateways": {req: withShared(create(reconciler, "apps", func() *gatewayv1.HTTPRoute {
		r := newHTTPRoute(parentRef("apps", "edge"))
		r.Spec.ParentRefs, r.Spec.UseDefaultGateways = nil, gatewayv1.GatewayDefaultScopeAll
		return r
	}())), allow: devGateways, want: "LL030"},
	"route to another kind of backend": {req: withShared(create(reconciler, "apps", func() *gatewayv1.HTTPRoute {
		r := newHTTPRoute(parentRef("gateway-system", "public"), "web.dev.example.com")
		r.Spec.Rules = []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{
			Group: ptr.To(gatewayv1.Group("networking.istio.io")), Kind: ptr.To(gatewayv1.Kind("Hostname")), Name: "db.ops.svc.cluster.local", Port: ptr.To(gatewayv1.PortNumber(5432))}}}}}}
		return r
	}())), allow: devGateways, want: "LL030"},
	"route mirroring to another kind": {req: withShared(create(reconciler, "apps", func() *gatewayv1.HTTPRoute {
		r := newHTTPRoute(parentRef("gateway-system", "public"), "web.dev.example.com")
		r.Spec.Rules = []gatewayv1.HTTPRouteRule{{Filters: []gatewayv1.HTTPRouteFilter{{Type: gatewayv1.HTTPRouteFilterRequestMirror, RequestMirror: &gatewayv1.HTTPRequestMirrorFilter{
			BackendRef: gatewayv1.BackendObjectReference{Group: ptr.To(gatewayv1.Group("networking.istio.io")), Kind: ptr.To(gatewayv1.Kind("Hostname")), Name: "sink.ops.svc.cluster.local"}}}}}}
		return r
	}())), allow: devGateways, want: "LL030"},
	"route to its Service": {req: withShared(create(reconciler, "apps", func() *gatewayv1.HTTPRoute {
		r := newHTTPRoute(parentRef("gateway-system", "public"), "web.dev.example.com")
		r.Spec.Rules = []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{
			Kind: ptr.To(gatewayv1.Kind("Service")), Name: "web", Port: ptr.To(gatewayv1.PortNumber(80))}}}}}}
		return r
	}())), allow: devGateways},
	"Gateway as a default Gateway": {req: withShared(create(reconciler, "apps", func() *gatewayv1.Gateway {
		g := newGateway("tenant-gw", "*.dev.example.com")
		g.Spec.DefaultScope = gatewayv1.GatewayDefaultScopeAll
		return g
	}())), allow: devGateways, want: "LL030"},
	"Gateway asking its load balancer's address": {req: withShared(create(reconciler, "apps", func() *gatewayv1.Gateway {
		g := newGateway("tenant-gw", "*.dev.example.com")
		g.Spec.Infrastructure = &gatewayv1.GatewayInfrastructure{Annotations: map[gatewayv1.AnnotationKey]gatewayv1.AnnotationValue{"metallb.io/loadBalancerIPs": "203.0.113.7"}}
		return g
	}())), allow: devGateways, want: "LL030"},
	"Gateway patched by its own parameters": {req: withShared(create(reconciler, "apps", func() *gatewayv1.Gateway {
		g := newGateway("tenant-gw", "*.dev.example.com")
		g.Spec.Infrastructure = &gatewayv1.GatewayInfrastructure{ParametersRef: &gatewayv1.LocalParametersReference{Kind: "ConfigMap", Name: "gw-options"}}
		return g
	}())), allow: devGateways, want: "LL030"},
	"Gateway labelling what it makes": {req: withShared(create(reconciler, "apps", func() *gatewayv1.Gateway {
		g := newGateway("tenant-gw", "*.dev.example.com")
		g.Spec.Infrastructure = &gatewayv1.GatewayInfrastructure{Labels: map[gatewayv1.LabelKey]gatewayv1.LabelValue{"team": "dev"}}
		return g
	}())), allow: devGateways},
	"Gateway of an allowed class":              {req: withShared(create(reconciler, "apps", newGateway("tenant-gw", "*.dev.example.com"))), allow: devGateways},
	"Gateway of the platform's class":          {req: withShared(create(reconciler, "apps", newGateway("public", "*.dev.example.com"))), allow: devGateways, want: "LL030"},
	"Gateway without Gateways allowed":         {req: withShared(create(reconciler, "apps", newGateway("tenant-gw", "*.dev.example.com"))), allow: devHosts, want: "LL030"},
	"Gateway listening for every hostname":     {req: withShared(create(reconciler, "apps", newGateway("tenant-gw", ""))), allow: devGateways, want: "LL030"},
	"Gateway listening for another's hostname": {req: withShared(create(reconciler, "apps", newGateway("tenant-gw", "shop.example.com"))), allow: devGateways, want: "LL030"},
	"Gateway at an address of its choosing": {req: withShared(create(reconciler, "apps", func() *gatewayv1.Gateway {
		g := newGateway("tenant-gw", "*.dev.example.com")
		g.Spec.Addresses = []gatewayv1.GatewaySpecAddress{{Value: "203.0.113.7"}}
		return g
	}())), allow: devGateways, want: "LL030"},
	"listener set on the allowed Gateway":        {req: withShared(create(reconciler, "apps", newListenerSet("gateway-system/public", "web.dev.example.com"))), allow: devGateways},
	"listener set on a Gateway not allowed":      {req: withShared(create(reconciler, "apps", newListenerSet("gateway-system/internal", "web.dev.example.com"))), allow: devGateways, want: "LL030"},
	"listener set for another tenant's hostname": {req: withShared(create(reconciler, "apps", newListenerSet("gateway-system/public", "shop.example.com"))), allow: devGateways, want: "LL030"},
}

func init() { maps.Copy(testCases, gatewayCases) }
