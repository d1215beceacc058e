// Package census is issue 23's census: every field of every kind a tenant
// may write that can name or select something outside the object's
// namespace or outside the tenant, each with the rule that refuses it
// pointing outside, the reason it is safe, or the hole it is.
//
// Rows on a shape (a pod spec, a claim spec, a container...) hold
// wherever the shape appears: Locations derives every kind and path from
// Embeddings, so that a Deployment's, a Job's and a CronJob's pod
// templates are the Pod's rows, never listed again. The tests keep the
// table honest: every rule a row names refuses the row's attack at every
// location (TestAttacksAreRefused), and every field the pinned API
// server's and Flux's schemas serve that Patterns match has a row
// (TestCensusIsWhole).
package census

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"k8s.io/apimachinery/pkg/util/json"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/landlord-dev/landlord/internal/kinds"
)

// On is what a row's path starts from: a kind, or a shape many kinds
// embed.
type On struct {
	Kind  schema.GroupKind
	Shape *Shape
	// whole is the table's shorthand for Row.Whole.
	whole bool
}

func (o On) String() string {
	if o.Shape != nil {
		return o.Shape.Name
	}
	return o.Kind.Kind
}

// Shape is a part of objects that many kinds, or many places of a kind,
// share; Definition is its name in the API server's OpenAPI.
type Shape struct {
	Name string
	// Definitions are its names in the API server's OpenAPI.
	Definitions []string
	// Doc says what the shape is, for the table.
	Doc string
}

// objectMetaDef is ObjectMeta's definition: the walk gives it to CRDs,
// whose schemas leave metadata open, as the API server does.
const objectMetaDef = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

// The shapes. ObjectMeta is an object's own metadata; TemplateMeta is the
// same definition inside a template, which becomes the metadata of the
// objects controllers make from it.
var (
	ObjectMeta       = &Shape{"ObjectMeta", []string{objectMetaDef}, "an object's own metadata, in every kind"}
	TemplateMeta     = &Shape{"TemplateMeta", []string{objectMetaDef}, "the metadata of a pod, job or claim template"}
	PodTemplate      = &Shape{"PodTemplateSpec", []string{"io.k8s.api.core.v1.PodTemplateSpec"}, "a workload's pod template: the metadata and spec of the pods its controller makes"}
	PodSpec          = &Shape{"PodSpec", []string{"io.k8s.api.core.v1.PodSpec"}, "a pod's spec, and every pod template's"}
	Container        = &Shape{"Container", []string{"io.k8s.api.core.v1.Container", "io.k8s.api.core.v1.EphemeralContainer"}, "a pod's containers, init containers and ephemeral containers"}
	HTTPGet          = &Shape{"HTTPGetAction", []string{"io.k8s.api.core.v1.HTTPGetAction"}, "a probe's or lifecycle hook's HTTP request, which the kubelet sends"}
	TCPSocket        = &Shape{"TCPSocketAction", []string{"io.k8s.api.core.v1.TCPSocketAction"}, "a probe's or lifecycle hook's TCP connection, which the kubelet opens"}
	GRPC             = &Shape{"GRPCAction", []string{"io.k8s.api.core.v1.GRPCAction"}, "a probe's gRPC health check, which the kubelet sends"}
	NodeSelectorTerm = &Shape{"NodeSelectorTerm", []string{"io.k8s.api.core.v1.NodeSelectorTerm"}, "a term of node affinity, required or preferred"}
	PodAffinityTerm  = &Shape{"PodAffinityTerm", []string{"io.k8s.api.core.v1.PodAffinityTerm"}, "a term of pod affinity or anti-affinity, required or preferred"}
	ClaimSpec        = &Shape{"PersistentVolumeClaimSpec", []string{"io.k8s.api.core.v1.PersistentVolumeClaimSpec"}, "a claim's spec: claims, StatefulSet claim templates, ephemeral volumes"}
)

// Shapes lists every shape, in the table's order.
var Shapes = []*Shape{ObjectMeta, TemplateMeta, PodTemplate, PodSpec, Container, HTTPGet, TCPSocket, GRPC, NodeSelectorTerm, PodAffinityTerm, ClaimSpec}

// Embedding places a shape: In's objects hold it at At, a path with [0]
// for a list's first item. Frame, a JSON merge patch at In's root, makes
// the place where a valid object need not have it (an init container, a
// probe).
type Embedding struct {
	Shape *Shape
	In    On
	At    string
	Frame string
}

// Path is At as the table spells paths, [] for any item.
func (e Embedding) Path() string { return strings.ReplaceAll(e.At, "[0]", "[]") }

// Scope is every kind a tenant may write or the policy judges: the
// registry's, so that a kind granted to tenants tomorrow is in the census
// today.
func Scope() []kinds.Kind {
	return kinds.Select(func(k kinds.Kind) bool {
		return k.Tenant == kinds.Write || k.Tenant == kinds.Create || k.Judged
	})
}

// Embeddings lists where every shape sits: ObjectMeta at metadata of every
// kind in Scope, the others as the table below says. TestEmbeddingsAgree
// holds it to the schemas.
func Embeddings() []Embedding {
	var out []Embedding
	for _, k := range Scope() {
		out = append(out, Embedding{Shape: ObjectMeta, In: On{Kind: k.GroupKind()}, At: "metadata"})
	}
	return append(out, embeddings...)
}

// Location is one place a row's field sits: in objects of Kind, below At
// (with [0] for list items), once Frames are applied.
type Location struct {
	Kind   schema.GroupKind
	At     string
	Frames []Frame
}

// Frame is a JSON merge patch applied at a path of the object.
type Frame struct {
	At    string
	Patch string
}

// Locations lists every kind and place where on sits.
func Locations(on On) []Location {
	if on.Shape == nil {
		return []Location{{Kind: on.Kind}}
	}
	var out []Location
	for _, e := range Embeddings() {
		if e.Shape != on.Shape {
			continue
		}
		for _, l := range Locations(e.In) {
			frames := slices.Clone(l.Frames)
			if e.Frame != "" {
				frames = append(frames, Frame{At: l.At, Patch: e.Frame})
			}
			out = append(out, Location{Kind: l.Kind, At: join(l.At, e.At), Frames: frames})
		}
	}
	return out
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// Row is one field that can point outside the tenant, and its verdict:
// exactly one of Rule, Safe and Open.
type Row struct {
	On On
	// Path is the field, from On's root: [] any item of a list, {} any
	// value of a map.
	Path string
	// Whole rows hold for every field below Path too.
	Whole bool
	// Points says what the field can name or select beyond the tenant.
	Points string
	// Rule is the id of the rule that refuses it pointing outside.
	Rule string
	// Safe says why it is safe where no rule judges it.
	Safe string
	// Open says what no rule refuses: a hole, written down.
	Open string
	// Attack is a JSON merge patch at On's root that points the field
	// outside; Neighbour the legitimate use beside it. Rows with a Rule
	// have an Attack. Values may hold the placeholders of Values.
	Attack    string
	Neighbour string
}

// Covers reports whether the row holds for path, relative to its On.
func (r Row) Covers(path string) bool {
	if path == r.Path {
		return true
	}
	return r.Whole && (strings.HasPrefix(path, r.Path+".") || strings.HasPrefix(path, r.Path+"[") || strings.HasPrefix(path, r.Path+"{"))
}

// Values fill the placeholders of bases and probes: the tenant's and
// others' namespaces, identities and allowed sources.
type Values struct {
	// Namespace is the tenant namespace objects are written in, Sibling
	// another namespace of the same tenant, Foreign one another tenant
	// holds.
	Namespace, Sibling, Foreign string
	// SelfService is a namespace name the tenant may create.
	SelfService string
	Tenant      string
	Reconciler  string
	// Git, OCI and Hook are URLs the tenant's allowedSources allow (a Git
	// repository, an OCI repository, a notification endpoint); Image an
	// image below OCI; BucketEndpoint and BucketName a bucket they allow.
	Git, OCI, Hook, Image      string
	BucketEndpoint, BucketName string
	// ContainerImage is an image the tenant's containers may pull (its
	// spec.images); Image when empty.
	ContainerImage string
	// Host is a hostname the tenant's Ingresses may serve.
	Host string
	// GatewayClass is a class of the Gateways the tenant may run.
	GatewayClass string
	// Approved names, per cluster-scoped kind, an object the tenant's
	// spec.clusterResources approves.
	Approved map[schema.GroupKind]string
}

// expand fills s's placeholders. Values are JSON-escaped: they land in
// JSON strings.
func (v Values) expand(s string) string {
	pairs := []string{
		"$HOOK_BASE64", base64.StdEncoding.EncodeToString([]byte(v.Hook)),
		"$NAMESPACE", v.Namespace, "$SIBLING", v.Sibling, "$FOREIGN", v.Foreign, "$SELFSERVICE", v.SelfService,
		"$TENANT", v.Tenant, "$RECONCILER", v.Reconciler, "$GIT", v.Git, "$OCI", v.OCI, "$HOOK", v.Hook,
		"$CONTAINERIMAGE", cmp.Or(v.ContainerImage, v.Image), "$IMAGE", v.Image, "$BUCKETENDPOINT", v.BucketEndpoint, "$BUCKETNAME", v.BucketName, "$HOST", v.Host,
		"$GATEWAYCLASS", v.GatewayClass,
	}
	for i := 1; i < len(pairs); i += 2 {
		q := strconv.Quote(pairs[i])
		pairs[i] = q[1 : len(q)-1]
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// Probe is an object of Kind with a row's field set at one location.
type Probe struct {
	Kind schema.GroupKind
	// At is where the field sits in this kind, [] for items.
	At     string
	Object map[string]any
}

// Probes builds, for each location of the row, an object of the kind
// with patch (the row's Attack or Neighbour) applied where the row's On
// sits, from the kind's base. A kind's own row at the same path takes
// precedence over a shape's: its locations are that row's.
func Probes(r Row, patch string, v Values) ([]Probe, error) {
	var out []Probe
	for _, l := range Locations(r.On) {
		at := strings.ReplaceAll(join(l.At, r.Path), "[0]", "[]")
		if r.On.Shape != nil && slices.ContainsFunc(Rows, func(o Row) bool { return o.On.Kind == l.Kind && o.On.Shape == nil && o.Path == at }) {
			continue
		}
		obj, err := Base(l.Kind, v)
		if err != nil {
			return nil, err
		}
		for _, f := range append(slices.Clone(l.Frames), Frame{At: l.At, Patch: patch}) {
			if err := mergeAt(obj, f.At, v.expand(f.Patch)); err != nil {
				return nil, fmt.Errorf("%s at %q: %w", l.Kind, f.At, err)
			}
		}
		out = append(out, Probe{Kind: l.Kind, At: at, Object: obj})
	}
	return out, nil
}

// Base is a valid object of the kind, in v's namespace, that no rule
// refuses.
func Base(gk schema.GroupKind, v Values) (map[string]any, error) {
	b, ok := bases[gk]
	if !ok {
		return nil, fmt.Errorf("no base object of %s", gk)
	}
	k, _ := kinds.Lookup(gk)
	var obj map[string]any
	if err := json.Unmarshal([]byte(v.expand(b)), &obj); err != nil {
		return nil, fmt.Errorf("base of %s: %w", gk, err)
	}
	obj["apiVersion"] = k.GroupVersion().String()
	obj["kind"] = k.Kind
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	if _, ok := meta["name"]; !ok {
		meta["name"] = "census"
	}
	if k.Namespaced {
		meta["namespace"] = v.Namespace
	} else if name, ok := v.Approved[gk]; ok {
		meta["name"] = name
	}
	return obj, nil
}

// mergeAt applies a JSON merge patch (RFC 7386) to the object at path,
// which may index lists with [0].
func mergeAt(obj map[string]any, path, patch string) error {
	var p any
	if err := json.Unmarshal([]byte(patch), &p); err != nil {
		return fmt.Errorf("patch %s: %w", patch, err)
	}
	target := obj
	for _, step := range steps(path) {
		next, ok := target[step.name]
		if !ok {
			return fmt.Errorf("no %q", step.name)
		}
		if step.index {
			list, ok := next.([]any)
			if !ok || len(list) == 0 {
				return fmt.Errorf("%q has no first item", step.name)
			}
			next = list[0]
		}
		m, ok := next.(map[string]any)
		if !ok {
			return fmt.Errorf("%q is no object", step.name)
		}
		target = m
	}
	pm, ok := p.(map[string]any)
	if !ok {
		return fmt.Errorf("patch %s is no object", patch)
	}
	merge(target, pm)
	return nil
}

type step struct {
	name  string
	index bool
}

func steps(path string) []step {
	if path == "" {
		return nil
	}
	var out []step
	for _, s := range strings.Split(path, ".") {
		name, index := strings.CutSuffix(s, "[0]")
		out = append(out, step{name, index})
	}
	return out
}

// merge is RFC 7386: null removes, objects merge, anything else replaces.
func merge(target, patch map[string]any) {
	for k, v := range patch {
		switch pv := v.(type) {
		case nil:
			delete(target, k)
		case map[string]any:
			tv, ok := target[k].(map[string]any)
			if !ok {
				tv = map[string]any{}
				target[k] = tv
			}
			merge(tv, pv)
		default:
			target[k] = v
		}
	}
}

// Verdict is how the table shows a row's judgement.
func (r Row) Verdict() string {
	switch {
	case r.Rule != "":
		return r.Rule
	case r.Open != "":
		return "open"
	}
	return "safe"
}

// Counts are the rows by verdict.
func Counts() (rule, safe, open int) {
	for _, r := range Rows {
		switch r.Verdict() {
		case "open":
			open++
		case "safe":
			safe++
		default:
			rule++
		}
	}
	return rule, safe, open
}
