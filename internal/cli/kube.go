package cli

import (
	"errors"
	"fmt"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/manager"
)

// kubeFlags are kubectl's --kubeconfig, --context, --as and --as-group,
// shared by every command that talks to a cluster.
type kubeFlags struct {
	*genericclioptions.ConfigFlags
}

func newKubeFlags() kubeFlags {
	return kubeFlags{&genericclioptions.ConfigFlags{
		KubeConfig:       ptr.To(""),
		Context:          ptr.To(""),
		Impersonate:      ptr.To(""),
		ImpersonateGroup: ptr.To([]string{}),
	}}
}

// config is the REST config the flags and $KUBECONFIG select.
func (k kubeFlags) config() (*rest.Config, error) {
	// client-go would fall back to localhost:8080 and fail on a connection
	// error that never mentions the kubeconfig.
	if raw, err := k.ToRawKubeConfigLoader().RawConfig(); err == nil && len(raw.Clusters) == 0 {
		return nil, errors.New("no cluster in the kubeconfig: set --kubeconfig or KUBECONFIG")
	}
	cfg, err := k.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the kubeconfig (set --kubeconfig or KUBECONFIG): %w", err)
	}
	return cfg, nil
}

// client is a client for the selected cluster that knows Landlord's and
// Flux's kinds.
func (k kubeFlags) client() (client.Client, error) {
	cfg, err := k.config()
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", cfg.Host, err)
	}
	return c, nil
}
