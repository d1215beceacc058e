package webhook_test

import (
	"testing"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/landlord-dev/landlord/internal/kinds"
)

// TestRegistryMatchesTheAPIServer: each kind of the registry is served by
// the real API server, with Flux's CRDs installed, at the resource and
// scope the registry gives it, which the webhook routes and the tenant
// role grant by.
func TestRegistryMatchesTheAPIServer(t *testing.T) {
	httpClient, err := rest.HTTPClientFor(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	mapper, err := apiutil.NewDynamicRESTMapper(env.Config, httpClient)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range kinds.All {
		m, err := mapper.RESTMapping(k.GroupKind(), k.Version)
		if err != nil {
			t.Errorf("%s: %v", k.GroupVersionKind, err)
			continue
		}
		namespaced := m.Scope.Name() == "namespace"
		if m.Resource.Resource != k.Resource || namespaced != k.Namespaced {
			t.Errorf("%s: served as %s (namespaced %v), the registry says %s (namespaced %v)", k.GroupVersionKind, m.Resource.Resource, namespaced, k.Resource, k.Namespaced)
		}
	}
}
