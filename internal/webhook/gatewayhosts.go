package webhook

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=gateways;listenersets;httproutes;grpcroutes;tlsroutes,verbs=list;watch

// claimHostKey indexes the Gateway API's objects by the hostnames they
// claim, lowercased.
const claimHostKey = "spec.claimedHostnames"

// hostClaim is a Gateway API kind whose objects claim hostnames.
type hostClaim struct {
	kind string
	// listener kinds claim hostnames for the routes that attach to them.
	listener bool
	obj      client.Object
	list     func() client.ObjectList
	hosts    func(client.Object) []string
	// strip keeps of an object what hosts reads.
	strip func(client.Object) client.Object
}

// hostClaims are the kinds whose hostnames LL022 and LL030 hold against
// other tenants, beside Ingresses.
var hostClaims = []hostClaim{
	{"HTTPRoute", false, &gatewayv1.HTTPRoute{}, func() client.ObjectList { return &gatewayv1.HTTPRouteList{} },
		func(o client.Object) []string { return routeHosts(o.(*gatewayv1.HTTPRoute).Spec.Hostnames) },
		func(o client.Object) client.Object {
			return &gatewayv1.HTTPRoute{ObjectMeta: keptMeta(o), Spec: gatewayv1.HTTPRouteSpec{Hostnames: o.(*gatewayv1.HTTPRoute).Spec.Hostnames}}
		}},
	{"GRPCRoute", false, &gatewayv1.GRPCRoute{}, func() client.ObjectList { return &gatewayv1.GRPCRouteList{} },
		func(o client.Object) []string { return routeHosts(o.(*gatewayv1.GRPCRoute).Spec.Hostnames) },
		func(o client.Object) client.Object {
			return &gatewayv1.GRPCRoute{ObjectMeta: keptMeta(o), Spec: gatewayv1.GRPCRouteSpec{Hostnames: o.(*gatewayv1.GRPCRoute).Spec.Hostnames}}
		}},
	{"TLSRoute", false, &gatewayv1.TLSRoute{}, func() client.ObjectList { return &gatewayv1.TLSRouteList{} },
		func(o client.Object) []string { return routeHosts(o.(*gatewayv1.TLSRoute).Spec.Hostnames) },
		func(o client.Object) client.Object {
			return &gatewayv1.TLSRoute{ObjectMeta: keptMeta(o), Spec: gatewayv1.TLSRouteSpec{Hostnames: o.(*gatewayv1.TLSRoute).Spec.Hostnames}}
		}},
	{"Gateway", true, &gatewayv1.Gateway{}, func() client.ObjectList { return &gatewayv1.GatewayList{} },
		func(o client.Object) []string {
			return listenerHosts(o.(*gatewayv1.Gateway).Spec.Listeners, func(l gatewayv1.Listener) *gatewayv1.Hostname { return l.Hostname })
		},
		func(o client.Object) client.Object {
			g := &gatewayv1.Gateway{ObjectMeta: keptMeta(o)}
			for _, l := range o.(*gatewayv1.Gateway).Spec.Listeners {
				g.Spec.Listeners = append(g.Spec.Listeners, gatewayv1.Listener{Hostname: l.Hostname})
			}
			return g
		}},
	{"ListenerSet", true, &gatewayv1.ListenerSet{}, func() client.ObjectList { return &gatewayv1.ListenerSetList{} },
		func(o client.Object) []string {
			return listenerHosts(o.(*gatewayv1.ListenerSet).Spec.Listeners, func(l gatewayv1.ListenerEntry) *gatewayv1.Hostname { return l.Hostname })
		},
		func(o client.Object) client.Object {
			ls := &gatewayv1.ListenerSet{ObjectMeta: keptMeta(o)}
			for _, l := range o.(*gatewayv1.ListenerSet).Spec.Listeners {
				ls.Spec.Listeners = append(ls.Spec.Listeners, gatewayv1.ListenerEntry{Hostname: l.Hostname})
			}
			return ls
		}},
}

// listenerHosts are the hostnames of listeners that name one.
func listenerHosts[L any](listeners []L, hostname func(L) *gatewayv1.Hostname) []string {
	var hosts []gatewayv1.Hostname
	for _, l := range listeners {
		if h := hostname(l); h != nil {
			hosts = append(hosts, *h)
		}
	}
	return routeHosts(hosts)
}

// routeHosts lowercases hostnames.
func routeHosts(hosts []gatewayv1.Hostname) []string {
	out := make([]string, 0, len(hosts))
	for _, h := range hosts {
		out = append(out, strings.ToLower(string(h)))
	}
	return out
}

// stripClaims is the shared cache's default transform: it strips each
// claiming kind to what hosts reads. A default rather than a transform by
// object, since the cache refuses to be built with one for a kind the API
// server does not serve yet, which the Gateway API's may be.
func stripClaims(obj any) (any, error) {
	o, ok := obj.(client.Object)
	if !ok {
		return obj, nil
	}
	for _, c := range hostClaims {
		if reflect.TypeOf(o) == reflect.TypeOf(c.obj) {
			return c.strip(o), nil
		}
	}
	return obj, nil
}

// claims indexes the claiming kinds the API server serves, each once it
// first asks: the Gateway API's CRDs may come after Landlord, and a kind
// not served holds no hostname.
type claims struct {
	c       cache.Cache
	mapper  meta.RESTMapper
	mu      sync.Mutex
	indexed map[int]bool
}

// served are the claiming kinds served now, indexed.
func (x *claims) served(ctx context.Context) ([]hostClaim, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []hostClaim
	for i, c := range hostClaims {
		if !x.indexed[i] {
			// One question per kind: while the Gateway API is not served, each
			// asks the API server's discovery again.
			gvk := gatewayv1.SchemeGroupVersion.WithKind(c.kind)
			mappings, err := x.mapper.RESTMappings(gvk.GroupKind())
			switch {
			case meta.IsNoMatchError(err):
				continue
			case err != nil:
				return nil, err
			case !slices.ContainsFunc(mappings, func(m *meta.RESTMapping) bool { return m.GroupVersionKind == gvk }):
				// Served at another version only, its claims cannot be read:
				// every hostname is refused rather than judged blind.
				return nil, fmt.Errorf("%s is served, but not at %s, whose claims the guard reads", gvk.GroupKind(), gvk.Version)
			}
			hosts := c.hosts
			if err := x.c.IndexField(ctx, c.obj, claimHostKey, func(o client.Object) []string { return heldKeys(hosts(o)) }); err != nil {
				return nil, err
			}
			x.indexed[i] = true
		}
		out = append(out, c)
	}
	return out, nil
}
