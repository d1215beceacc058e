package policy

// Shared answers what the rules must know of objects no tenant holds
// alone: the guard reads it from its cache; lint, which sees manifests
// before any cluster defaults them, knows none.
type Shared interface {
	// HostNamespaces lists the namespaces of the Ingresses that name host
	// in a rule or a TLS entry; an error means they are unknown.
	HostNamespaces(host string) ([]string, error)
	// Defaults are the classes the cluster gives objects naming none.
	Defaults() Defaults
}

// Defaults are the cluster's default classes, "" for none. Admission
// plugins write them into objects before the guard sees them, so a
// tenant that names none is judged as naming them.
type Defaults struct {
	PriorityClass string
	StorageClass  string
	IngressClass  string
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

func (unknownShared) HostNamespaces(string) ([]string, error) { return nil, nil }
func (unknownShared) Defaults() Defaults                      { return Defaults{} }
