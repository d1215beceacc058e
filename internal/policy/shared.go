package policy

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Shared answers what the rules must know of objects no tenant holds
// alone: the guard reads it from its cache; lint, which sees manifests
// before any cluster defaults them, knows none.
type Shared interface {
	// HostHolders lists what claims a hostname overlapping host (the same
	// name, a wildcard covering it, or, for a wildcard, a name below it):
	// Ingresses in a rule or a TLS entry, Gateway API routes, and the
	// listeners of Gateways and ListenerSets; an error means they are
	// unknown.
	HostHolders(host string) ([]HostHolder, error)
	// Defaults are the classes the cluster gives objects naming none.
	Defaults() Defaults
}

// HostHolder is an object claiming a hostname: its namespace, and whether
// it is a Gateway's or ListenerSet's listener, where routes attach.
type HostHolder struct {
	Namespace string
	Listener  bool
}

// Defaults are the cluster's default classes, "" for none. Admission
// plugins write them into objects before the guard sees them, so a
// tenant that names none is judged as naming them.
type Defaults struct {
	PriorityClass string
	StorageClass  string
	IngressClass  string
}

// DefaultPriorityClass is the class Kubernetes' Priority admission plugin
// gives a pod naming none: of the global defaults, the lowest; "" for none.
func DefaultPriorityClass(classes []schedulingv1.PriorityClass) string {
	var lowest *schedulingv1.PriorityClass
	for i, pc := range classes {
		if pc.GlobalDefault && (lowest == nil || pc.Value < lowest.Value) {
			lowest = &classes[i]
		}
	}
	if lowest == nil {
		return ""
	}
	return lowest.Name
}

// NewestDefault is the class the API server gives what names none, of
// classes those one of keys annotates "true": the newest, ties broken by
// name; "" for none.
func NewestDefault(classes []metav1.Object, keys ...string) string {
	defaults := slices.DeleteFunc(slices.Clone(classes), func(o metav1.Object) bool {
		return !slices.ContainsFunc(keys, func(k string) bool { return o.GetAnnotations()[k] == "true" })
	})
	if len(defaults) == 0 {
		return ""
	}
	return slices.MaxFunc(defaults, func(a, b metav1.Object) int {
		return cmp.Or(a.GetCreationTimestamp().Compare(b.GetCreationTimestamp().Time), strings.Compare(b.GetName(), a.GetName()))
	}).GetName()
}

// The annotations that mark a class the cluster's default.
var (
	StorageDefaultKeys = []string{DefaultStorageClassAnnotation, DefaultStorageClassBetaAnnotation}
	IngressDefaultKeys = []string{networkingv1.AnnotationIsDefaultIngressClass}
)

// ClusterDefaults reads the default priority and storage classes from r,
// picked as the admission plugins pick them.
func ClusterDefaults(ctx context.Context, r client.Reader) (Defaults, error) {
	priorities := &schedulingv1.PriorityClassList{}
	if err := r.List(ctx, priorities); err != nil {
		return Defaults{}, fmt.Errorf("listing priority classes: %w", err)
	}
	storage := &storagev1.StorageClassList{}
	if err := r.List(ctx, storage); err != nil {
		return Defaults{}, fmt.Errorf("listing storage classes: %w", err)
	}
	return Defaults{PriorityClass: DefaultPriorityClass(priorities.Items), StorageClass: NewestDefault(Metas(storage.Items), StorageDefaultKeys...)}, nil
}

// Metas are the items' metadata.
func Metas[T any, P interface {
	*T
	metav1.Object
}](items []T) []metav1.Object {
	out := make([]metav1.Object, len(items))
	for i := range items {
		out[i] = P(&items[i])
	}
	return out
}

// sharedOf is the request's Shared, or one that knows of no Ingress and no
// default.
func sharedOf(req Request) Shared {
	if req.Shared == nil {
		return unknownShared{}
	}
	return req.Shared
}

type unknownShared struct{}

func (unknownShared) HostHolders(string) ([]HostHolder, error) { return nil, nil }
func (unknownShared) Defaults() Defaults                       { return Defaults{} }
