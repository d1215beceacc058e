package policy

import (
	"slices"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ruleIngress is rule LL022, declared here beside it and listed in Rules.
var ruleIngress = Rule{"LL022", "ingress", "an Ingress answers for a hostname to everyone who resolves it: a tenant serves only the classes and hostnames the Tenant allows, never a hostname another tenant's or the platform's Ingress holds, and never every hostname at once; and the ingress controller, which serves every tenant, takes from its annotations no configuration of its own and no object or Service of another tenant's"}

// legacyIngressClass is the annotation ingress controllers still read
// when spec.ingressClassName is unset.
const legacyIngressClass = "kubernetes.io/ingress.class"

// ingress is rule LL022: its class, its default backend, its hostnames,
// and the annotations ingress-nginx trusts.
func ingress(ing *networkingv1.Ingress, s scope) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if c := ing.Spec.IngressClassName; c != nil {
		errs = append(errs, ingressClass(*c, spec.Child("ingressClassName"), s)...)
	}
	if c, ok := ing.Annotations[legacyIngressClass]; ok {
		errs = append(errs, ingressClass(c, field.NewPath("metadata", "annotations").Key(legacyIngressClass), s)...)
	}
	if ing.Spec.DefaultBackend != nil {
		errs = append(errs, forbidden(ruleIngress, spec.Child("defaultBackend"), "a default backend answers for every hostname no Ingress names; allowed: unset, rules with a host"))
	}
	errs = append(errs, nginxAnnotations(ing.Annotations, s)...)
	for i, r := range ing.Spec.Rules {
		p := spec.Child("rules").Index(i).Child("host")
		if r.Host == "" {
			errs = append(errs, forbidden(ruleIngress, p, "a rule without a host answers for every hostname; allowed: "+allowedHostnames(s)))
			continue
		}
		errs = append(errs, claimedHostname(ruleIngress, r.Host, p, s)...)
	}
	for i, t := range ing.Spec.TLS {
		for j, h := range t.Hosts {
			errs = append(errs, claimedHostname(ruleIngress, h, spec.Child("tls").Index(i).Child("hosts").Index(j), s)...)
		}
	}
	return errs
}

// ingressClass allows the cluster's default class, which the
// DefaultIngressClass admission plugin writes into Ingresses naming none,
// and the Tenant's list.
func ingressClass(name string, p *field.Path, s scope) field.ErrorList {
	allowed := s.allow.ingress.Classes
	if d := s.shared.Defaults().IngressClass; d != "" {
		allowed = append([]string{d}, allowed...)
	}
	if slices.Contains(allowed, name) {
		return nil
	}
	return field.ErrorList{oneOf(ruleIngress, p, name, "tenant "+s.tenant.Name+" may not use this ingress class", allowed)}
}

// claimedHostname judges one hostname an Ingress, a route or a listener
// claims, for rule r: within the Tenant's patterns, and held by no
// Ingress, route or listener outside the tenant's namespaces.
func claimedHostname(r Rule, host string, p *field.Path, s scope) field.ErrorList {
	if !slices.ContainsFunc(s.allow.ingress.Hostnames, func(pattern string) bool { return matchHostname(pattern, host) }) {
		return field.ErrorList{invalid(r, p, host, "tenant "+s.tenant.Name+" may not serve this hostname; allowed: "+allowedHostnames(s))}
	}
	holders, err := s.shared.HostHolders(host)
	if err != nil {
		return field.ErrorList{invalid(r, p, host, "who holds this hostname is unknown, so it is refused until the guard can tell ("+err.Error()+"); allowed: a hostname held by no other tenant")}
	}
	// The platform's listeners are where tenants' routes attach, not claims
	// against them.
	if slices.ContainsFunc(holders, func(h HostHolder) bool {
		return !s.sameTenant(h.Namespace) && !(h.Listener && s.tenants.ForNamespace(h.Namespace) == nil)
	}) {
		// The holder is not named: a tenant learns no other tenant's namespaces.
		return field.ErrorList{invalid(r, p, host, "an Ingress, route or listener outside tenant "+s.tenant.Name+"'s namespaces holds this hostname; allowed: a hostname held by no other tenant")}
	}
	return nil
}

// allowedHostnames names the Tenant's hostname patterns, for messages.
func allowedHostnames(s scope) string {
	if len(s.allow.ingress.Hostnames) == 0 {
		return "none: spec.ingress.hostnames lists no hostname"
	}
	return quoteList(s.allow.ingress.Hostnames)
}

// matchHostname reports whether host falls under pattern: the same name,
// or, for "*.example.com", any name below example.com, the wildcard host
// itself included. Hostnames compare case-insensitively, as DNS does.
func matchHostname(pattern, host string) bool {
	pattern, host = strings.ToLower(pattern), strings.ToLower(host)
	domain, wildcard := strings.CutPrefix(pattern, "*.")
	if !wildcard {
		return host == pattern
	}
	below, ok := strings.CutSuffix(host, "."+domain)
	return ok && below != ""
}
