package webhook_test

import (
	"errors"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/landlord-dev/landlord/internal/testenv"
)

// httpRoute attaches to the Gateway ns/gateway ("" for the route's own
// namespace) and claims hosts.
func httpRoute(ns, name, gatewayNS, gateway string, hosts ...string) *gatewayv1.HTTPRoute {
	ref := gatewayv1.ParentReference{Name: gatewayv1.ObjectName(gateway)}
	if gatewayNS != "" {
		ref.Namespace = ptr.To(gatewayv1.Namespace(gatewayNS))
	}
	r := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	r.Spec.ParentRefs = []gatewayv1.ParentReference{ref}
	for _, h := range hosts {
		r.Spec.Hostnames = append(r.Spec.Hostnames, gatewayv1.Hostname(h))
	}
	r.Spec.Rules = []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{
		BackendObjectReference: gatewayv1.BackendObjectReference{Name: "web", Port: ptr.To(gatewayv1.PortNumber(80))}}}}}}
	return r
}

func ownGateway(class, host string) *gatewayv1.Gateway {
	listener := gatewayv1.Listener{Name: "https", Port: 443, Protocol: gatewayv1.HTTPSProtocolType}
	if host != "" {
		listener.Hostname = ptr.To(gatewayv1.Hostname(host))
	}
	return &gatewayv1.Gateway{ObjectMeta: blueMeta("edge"), Spec: gatewayv1.GatewaySpec{
		GatewayClassName: gatewayv1.ObjectName(class), Listeners: []gatewayv1.Listener{listener}}}
}

func listenerSet(gatewayNS, gateway, host string) *gatewayv1.ListenerSet {
	ls := &gatewayv1.ListenerSet{ObjectMeta: blueMeta("web")}
	ls.Spec.ParentRef = gatewayv1.ParentGatewayReference{Name: gatewayv1.ObjectName(gateway), Namespace: ptr.To(gatewayv1.Namespace(gatewayNS))}
	ls.Spec.Listeners = []gatewayv1.ListenerEntry{{Name: "https", Port: 443, Protocol: gatewayv1.HTTPSProtocolType, Hostname: ptr.To(gatewayv1.Hostname(host))}}
	return ls
}

// TestAttacksGatewayAPI sends Gateway API routes, Gateways and
// ListenerSets through the API server (the local control plane serves the
// Gateway API's CRDs), as blue's reconciler and owner, each beside its
// legitimate neighbour (LL030). Red holds cart.apps.example.com by an
// HTTPRoute and shop.apps.example.com by an Ingress, hostnames both
// tenants may serve.
func TestAttacksGatewayAPI(t *testing.T) {
	attackWorld(t)
	platform := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gateway-system"}}
	if err := k8s.Create(ctx, platform); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	// The platform's Gateway, with a listener of blue's hostname for its
	// certificate: where blue's routes attach, no claim against them.
	public := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "gateway-system", Name: "public"}, Spec: gatewayv1.GatewaySpec{
		GatewayClassName: "platform", Listeners: []gatewayv1.Listener{
			{Name: "blue", Port: 443, Protocol: gatewayv1.HTTPSProtocolType, Hostname: ptr.To(gatewayv1.Hostname("www.blue.example.com"))},
			{Name: "apps", Port: 443, Protocol: gatewayv1.HTTPSProtocolType, Hostname: ptr.To(gatewayv1.Hostname("*.apps.example.com"))},
		}}}
	held := []client.Object{
		public,
		httpRoute("red-apps", "cart", "gateway-system", "public", "cart.apps.example.com"),
		httpRoute("red-apps", "api", "gateway-system", "public", "api.orders.apps.example.com"),
		httpRoute("red-apps", "wild", "gateway-system", "public", "*.wild.apps.example.com"),
		ingress("red-apps", "shop", "shop.apps.example.com"),
	}
	for _, obj := range held {
		if err := k8s.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(ctx, obj) })
	}
	// The guard learns red's hostnames from its cache, a moment later.
	testenv.Eventually(t, 30*time.Second, func() error {
		for _, host := range []string{"cart.apps.example.com", "shop.apps.example.com", "x.wild.apps.example.com"} {
			err := identities["reconciler"].Create(ctx, httpRoute("blue-apps", "probe", "gateway-system", "public", host), dry)
			if err == nil || !strings.Contains(err.Error(), "LL030:") {
				return errors.New("red's hostname " + host + " not yet known to the guard")
			}
		}
		return nil
	})

	const (
		ownRoute    = "route on the platform's allowed Gateway"
		ownGateway_ = "Gateway of its class"
		ownSet      = "listener set on the allowed Gateway"
	)
	runAttacks(t, map[string]attack{
		ownRoute:                              {as: "reconciler", do: create(httpRoute("blue-apps", "web", "gateway-system", "public", "web.apps.example.com"))},
		"route as the owner":                  {as: "owner", do: create(httpRoute("blue-apps", "web", "gateway-system", "public", "www.blue.example.com"))},
		"route on its own Gateway":            {as: "owner", do: create(httpRoute("blue-apps", "web", "blue-jobs", "edge"))},
		"route on a platform Gateway not its": {as: "reconciler", do: create(httpRoute("blue-apps", "web", "gateway-system", "internal", "web.apps.example.com")), want: "LL030", near: ownRoute},
		"route on red's Gateway":              {as: "owner", do: create(httpRoute("blue-apps", "web", "red-apps", "edge", "web.apps.example.com")), want: "LL030", near: ownRoute},
		"route of every hostname":             {as: "reconciler", do: create(httpRoute("blue-apps", "web", "gateway-system", "public")), want: "LL030", near: ownRoute},
		"route of red's route's hostname":     {as: "reconciler", do: create(httpRoute("blue-apps", "web", "gateway-system", "public", "cart.apps.example.com")), want: "LL030", near: ownRoute},
		"route of red's Ingress's hostname":   {as: "owner", do: create(httpRoute("blue-apps", "web", "gateway-system", "public", "shop.apps.example.com")), want: "LL030", near: ownRoute},
		"route outside its hostnames":         {as: "reconciler", do: create(httpRoute("blue-apps", "web", "gateway-system", "public", "www.example.org")), want: "LL030", near: ownRoute},
		ownGateway_:                           {as: "reconciler", do: create(ownGateway("blue-gw", "*.blue.example.com"))},
		"Gateway of the platform's class":     {as: "reconciler", do: create(ownGateway("public", "*.blue.example.com")), want: "LL030", near: ownGateway_},
		"Gateway for every hostname":          {as: "owner", do: create(ownGateway("blue-gw", "")), want: "LL030", near: ownGateway_},
		"Gateway for red's hostname":          {as: "owner", do: create(ownGateway("blue-gw", "cart.apps.example.com")), want: "LL030", near: ownGateway_},
		"Gateway at an address of its own": {as: "reconciler", do: func(c client.Client) error {
			g := ownGateway("blue-gw", "*.blue.example.com")
			g.Spec.Addresses = []gatewayv1.GatewaySpecAddress{{Type: ptr.To(gatewayv1.IPAddressType), Value: "203.0.113.7"}}
			return c.Create(ctx, g, dry)
		}, want: "LL030", near: ownGateway_},
		ownSet:                                   {as: "reconciler", do: create(listenerSet("gateway-system", "public", "api.blue.example.com"))},
		"listener set for a wildcard over red's": {as: "reconciler", do: create(listenerSet("gateway-system", "public", "*.orders.apps.example.com")), want: "LL030", near: ownSet},
		"route below red's wildcard":             {as: "owner", do: create(httpRoute("blue-apps", "web", "gateway-system", "public", "x.wild.apps.example.com")), want: "LL030", near: ownRoute},
		"route of the platform listener's host":  {as: "reconciler", do: create(httpRoute("blue-apps", "www", "gateway-system", "public", "www.blue.example.com"))},
		"tcp route on the shared Gateway": {as: "reconciler", do: create(&gatewayv1.TCPRoute{ObjectMeta: blueMeta("db"), Spec: gatewayv1.TCPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "public", Namespace: ptr.To(gatewayv1.Namespace("gateway-system"))}}},
			Rules:           []gatewayv1.TCPRouteRule{{BackendRefs: []gatewayv1.BackendRef{{BackendObjectReference: gatewayv1.BackendObjectReference{Name: "db", Port: ptr.To(gatewayv1.PortNumber(5432))}}}}}}}),
			want: "LL030", near: "tcp route on its own Gateway"},
		"tcp route on its own Gateway": {as: "reconciler", do: create(&gatewayv1.TCPRoute{ObjectMeta: blueMeta("db"), Spec: gatewayv1.TCPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "edge"}}},
			Rules:           []gatewayv1.TCPRouteRule{{BackendRefs: []gatewayv1.BackendRef{{BackendObjectReference: gatewayv1.BackendObjectReference{Name: "db", Port: ptr.To(gatewayv1.PortNumber(5432))}}}}}}})},
		"route to a backend of another kind": {as: "owner", do: func(c client.Client) error {
			r := httpRoute("blue-apps", "web", "gateway-system", "public", "web.apps.example.com")
			r.Spec.Rules[0].BackendRefs[0].Group = ptr.To(gatewayv1.Group("networking.istio.io"))
			r.Spec.Rules[0].BackendRefs[0].Kind = ptr.To(gatewayv1.Kind("Hostname"))
			r.Spec.Rules[0].BackendRefs[0].Name = "db.red-apps.svc.cluster.local"
			return c.Create(ctx, r, dry)
		}, want: "LL030", near: ownRoute},
		"listener set on a Gateway not its": {as: "owner", do: create(listenerSet("gateway-system", "internal", "api.blue.example.com")), want: "LL030", near: ownSet},
		"listener set for red's hostname":   {as: "reconciler", do: create(listenerSet("gateway-system", "public", "shop.apps.example.com")), want: "LL030", near: ownSet},
	})
}
