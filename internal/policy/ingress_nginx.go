package policy

import (
	"maps"
	"net"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// nginxPrefix is the prefix of ingress-nginx's annotations, as its
// --annotations-prefix leaves it by default.
const nginxPrefix = "nginx.ingress.kubernetes.io/"

// nginxObjects are ingress-nginx's annotations naming a Secret or a
// ConfigMap as name or namespace/name: the controller reads it with its
// own rights, in any namespace unless it runs with
// allow-cross-namespace-resources off.
var nginxObjects = []string{"auth-proxy-set-headers", "auth-secret", "auth-tls-secret", "custom-headers", "fastcgi-params-configmap", "proxy-ssl-secret"}

// nginxURLs are ingress-nginx's annotations holding a URL: the controller
// calls auth-url with each request's headers and copies each request to
// mirror-target; auth-signin is where it sends browsers.
var nginxURLs = []string{"auth-signin", "auth-url", "mirror-target"}

// nginxAnnotations is rule LL022 on the annotations ingress-nginx trusts:
// no snippet of its configuration, objects of the tenant's namespaces,
// URLs that reach no other namespace's Service and no address the guard
// cannot place, and server aliases the Tenant's hostnames allow.
func nginxAnnotations(annotations map[string]string, s scope) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("metadata", "annotations")
	for _, key := range slices.Sorted(maps.Keys(annotations)) {
		name, ok := strings.CutPrefix(key, nginxPrefix)
		if !ok {
			continue
		}
		v := annotations[key]
		switch {
		case strings.HasSuffix(name, "-snippet"):
			errs = append(errs, forbidden(ruleIngress, p.Key(key),
				"ingress-nginx copies a snippet into its own configuration, which serves every tenant's hostnames and reads their Secrets (CVE-2021-25742); allowed: the controller's other annotations"))
		case name == "server-alias":
			for _, alias := range strings.Split(v, ",") {
				alias = strings.TrimSpace(alias)
				switch {
				case alias == "":
				case len(validation.IsDNS1123Subdomain(strings.TrimPrefix(alias, "*."))) > 0:
					// nginx reads ~ as a regular expression, which could
					// match every hostname no other server holds.
					errs = append(errs, invalid(ruleIngress, p.Key(key), alias,
						"not a hostname; allowed: DNS names and *. wildcards the Tenant's hostnames allow"))
				default:
					errs = append(errs, claimedHostname(ruleIngress, alias, p.Key(key), s)...)
				}
			}
		case slices.Contains(nginxObjects, name):
			if ns, _, found := strings.Cut(v, "/"); found && !s.sameTenant(ns) {
				errs = append(errs, invalid(ruleIngress, p.Key(key), v,
					"ingress-nginx reads this object with its own rights, and namespace "+ns+" is not tenant "+s.tenant.Name+"'s; allowed: a name in the Ingress's namespace, or namespace/name in "+quoteList(namespacesOf(s.tenant))))
			}
		case slices.Contains(nginxURLs, name):
			if why := clusterURL(v, s); why != "" {
				errs = append(errs, invalid(ruleIngress, p.Key(key), v,
					"ingress-nginx reaches the URL from inside the cluster: "+why+"; allowed: a URL of a name outside the cluster, of $host, or of a Service in "+quoteList(namespacesOf(s.tenant))+" (<service>.<namespace>.svc)"))
			}
		}
	}
	return errs
}

// clusterURL says why a URL reaches inside the cluster beyond the tenant,
// "" when it does not: a Service of another namespace by its cluster DNS
// name, an address (a Service's, a pod's, a node's or the cloud's metadata
// service, which the guard cannot tell from an outside one), a name of one
// label (localhost, or a Service of the controller's own namespace, which
// its resolver completes), or a host the client's request picks.
func clusterURL(raw string, s scope) string {
	host := urlHost(raw)
	labels := strings.Split(host, ".")
	switch {
	case host == "" || host == "$host":
		// No host, which the controller refuses itself, or the request's
		// own, one of the Ingress's hostnames.
		return ""
	case host == "$":
		return "its host ends in a variable, which the client's request may complete"
	case strings.HasPrefix(host, "$"):
		return "its host " + host + " is what the client's request sets"
	case slices.Index(labels, "pod") >= 1:
		return "its host is a pod's DNS name, which encodes any address"
	case net.ParseIP(strings.Trim(host, "[]")) != nil || numeric(labels[len(labels)-1]):
		return "its host " + host + " is an address, which may be a Service's, a pod's, a node's or the cloud's metadata service"
	case len(labels) == 1:
		return "its host " + host + ", of one label, is localhost or a Service of the controller's own namespace"
	}
	// <service>.<namespace>.svc, then the cluster's domain, whatever it is.
	if i := slices.Index(labels, "svc"); i >= 2 && !s.sameTenant(labels[i-1]) {
		return "its host is a Service of namespace " + labels[i-1] + ", which is not tenant " + s.tenant.Name + "'s"
	}
	return ""
}

// urlHost is the host of an annotation's URL, lower-cased, without
// userinfo, port or a trailing dot; nginx variables after it, as
// mirror-target's $request_uri, are cut off, and a host that is a variable
// is returned as $name.
func urlHost(raw string) string {
	rest := raw
	if _, after, ok := strings.Cut(rest, "://"); ok {
		rest = after
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		rest = rest[i+1:]
	}
	if name, ok := strings.CutPrefix(rest, "$"); ok {
		name = strings.TrimPrefix(name, "{")
		end := strings.IndexFunc(name, func(r rune) bool { return !isVariableRune(r) })
		if end >= 0 {
			name = name[:end]
		}
		return "$" + strings.ToLower(name)
	}
	if i := strings.Index(rest, "$"); i >= 0 {
		if !pathVariable(rest[i:]) {
			return "$" // the request completes the host
		}
		rest = rest[:i]
	}
	if strings.HasPrefix(rest, "[") {
		if i := strings.Index(rest, "]"); i >= 0 {
			return rest[:i+1]
		}
	}
	if i := strings.LastIndex(rest, ":"); i >= 0 {
		rest = rest[:i]
	}
	return strings.TrimSuffix(strings.ToLower(rest), ".")
}

// pathVariables are the nginx variables that start with the path, so that
// one after a host completes the URL, not the host.
var pathVariables = []string{"request_uri", "uri", "document_uri", "escaped_request_uri"}

// pathVariable reports whether ref, "$name" or "${name}" and what follows,
// starts with one of pathVariables, whole.
func pathVariable(ref string) bool {
	name := strings.TrimPrefix(strings.TrimPrefix(ref, "$"), "{")
	for _, v := range pathVariables {
		if rest, ok := strings.CutPrefix(name, v); ok && (rest == "" || !isVariableRune(rune(rest[0]))) {
			return true
		}
	}
	return false
}

func isVariableRune(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// numeric reports a label no DNS name ends in: digits, or hexadecimal
// with 0x, which resolvers read as an address (127.1, 0x7f.1).
func numeric(label string) bool {
	digits := "0123456789"
	if hex, ok := strings.CutPrefix(label, "0x"); ok {
		label, digits = hex, "0123456789abcdef"
	}
	return label != "" && strings.Trim(label, digits) == ""
}
