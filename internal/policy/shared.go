package policy

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
