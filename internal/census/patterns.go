package census

import (
	"slices"
	"strings"
)

// Pattern is one shape of field name that can point outside an object's
// namespace or outside the tenant. The schema walk (TestCensusIsWhole)
// fails on every field of a kind in Scope that a pattern matches and no
// row covers.
type Pattern struct {
	// What the pattern stands for, for the table in docs/security.md.
	What string
	// Match reports whether a field is one, from its name and its
	// siblings' names, all lower-cased, and its name as the schema spells
	// it.
	Match func(f Field) bool
}

// Field is what the patterns see of a field.
type Field struct {
	Name     string // as the schema spells it
	Lower    string
	Siblings []string // lower-cased
}

// Patterns are broad on purpose: a false match costs a row saying why the
// field is safe, a missed one is a hole.
var Patterns = []Pattern{
	{"selectors: `…selector(s)`, `matchFields`", suffix("selector", "selectors", "matchfields")},
	{"namespaces: `…namespace(s)`", suffix("namespace", "namespaces")},
	{"names: `…Name(s)`, and `name(s)` beside `kind`, `apiGroup` or `apiVersion`", func(f Field) bool {
		if f.Lower == "name" || f.Lower == "names" {
			return slices.ContainsFunc(f.Siblings, func(s string) bool { return s == "kind" || s == "apigroup" || s == "apiversion" })
		}
		return strings.HasSuffix(f.Lower, "name") || strings.HasSuffix(f.Lower, "names")
	}},
	{"classes: `…class`, `…className`", suffix("class", "classname")},
	{"references: `…ref(s)`, `…reference(s)`", suffix("ref", "refs", "reference", "references")},
	{"addresses: `…url`, `…address(es)`, `…endpoint(s)`, `host…`, `…host(s)`, `…IP(s)`, `…cidr`, `ipBlock`, `…server(s)`, `…proxy`, `…portal(s)`, `monitors`, `gateway`, `registry`, `repository`, `image(s)`, `external…`",
		func(f Field) bool {
			return strings.HasPrefix(f.Lower, "host") || strings.HasPrefix(f.Lower, "external") ||
				has(f.Lower, "url", "address", "endpoint", "server", "proxy", "portal", "monitors", "gateway", "registry", "repository", "cidr", "ipblock") ||
				strings.HasSuffix(f.Name, "IP") || strings.HasSuffix(f.Name, "IPs") || f.Lower == "ip" ||
				suffix("host", "hosts", "image", "images")(f)
		}},
	{"priorities: `…priority…`, `preemption…`", contains("priority", "preemption")},
	{"nodes and their taints: `node…`, `…toleration(s)`, `topologyKey`, `…scheduler…`", func(f Field) bool {
		return strings.HasPrefix(f.Lower, "node") || has(f.Lower, "toleration", "topologykey", "scheduler")
	}},
	{"identities and their tokens: `…serviceAccount…`, `subjects`, `user…`, `…token…`, `audience(s)`, `impersonat…`, `runAs…`, `fsGroup…`, `supplementalGroups…`, `…credential…`, `signer…`, `provider`, `provisioner`, `driver`",
		func(f Field) bool {
			return strings.HasPrefix(f.Lower, "user") || strings.HasPrefix(f.Lower, "runas") || strings.HasPrefix(f.Lower, "fsgroup") ||
				has(f.Lower, "serviceaccount", "token", "audience", "impersonat", "supplementalgroups", "subjects", "credential", "signer") ||
				suffix("provider", "provisioner", "driver")(f)
		}},
	{"Secrets and ConfigMaps: `…secret…`, `…configMap…`", contains("secret", "configmap")},
	{"paths and files on the node: `…path(s)`, `…profile`, `sysctls`", suffix("path", "paths", "profile", "sysctls")},
	{"controllers and drivers that act on the object: `…controller`, `managedBy`, `parameters`, `…attributes`, `…options`", func(f Field) bool {
		return strings.HasSuffix(f.Lower, "controller") || f.Lower == "managedby" || f.Lower == "parameters" ||
			strings.HasSuffix(f.Lower, "attributes") || strings.HasSuffix(f.Lower, "options")
	}},
	{"metadata other components trust: `annotations`, `labels`, `finalizers`, `ownerReferences`, `…Metadata`", func(f Field) bool {
		return f.Lower == "annotations" || f.Lower == "labels" || has(f.Lower, "finalizers") || strings.HasSuffix(f.Lower, "metadata") && f.Lower != "metadata"
	}},
	{"default markers: `…default…`", contains("default")},
	{"remote clusters, webhooks and services: `…kubeConfig…`, `webhook…`, `clientConfig`, `service…`, `…services`",
		func(f Field) bool {
			return strings.HasPrefix(f.Lower, "service") || has(f.Lower, "kubeconfig", "webhook", "clientconfig") || strings.HasSuffix(f.Lower, "services")
		}},
	{"cross-namespace grants and pulls: `accessFrom`, `…scope`, `include`", func(f Field) bool {
		return f.Lower == "accessfrom" || strings.HasSuffix(f.Lower, "scope") || f.Lower == "include"
	}},
}

// Matching lists what the patterns a field's name matches stand for.
func Matching(name string, siblings []string) []string {
	f := Field{Name: name, Lower: strings.ToLower(name)}
	for _, s := range siblings {
		f.Siblings = append(f.Siblings, strings.ToLower(s))
	}
	var out []string
	for _, p := range Patterns {
		if p.Match(f) {
			out = append(out, p.What)
		}
	}
	return out
}

func suffix(ends ...string) func(Field) bool {
	return func(f Field) bool {
		return slices.ContainsFunc(ends, func(e string) bool { return strings.HasSuffix(f.Lower, e) })
	}
}

func contains(parts ...string) func(Field) bool {
	return func(f Field) bool { return has(f.Lower, parts...) }
}

func has(name string, parts ...string) bool {
	return slices.ContainsFunc(parts, func(p string) bool { return strings.Contains(name, p) })
}
