package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// minTokenDuration is the shortest token the API server issues.
const minTokenDuration = 10 * time.Minute

type tenantKubeconfigOptions struct {
	kube     kubeFlags
	name     string
	duration time.Duration
	owner    string
}

func newTenantKubeconfigCommand(kube kubeFlags) *cobra.Command {
	opts := tenantKubeconfigOptions{kube: kube}
	cmd := &cobra.Command{
		Use:   "kubeconfig NAME",
		Short: "Print a kubeconfig acting as the tenant's ServiceAccount owner",
		Long: `Print a kubeconfig whose token, from the TokenRequest API, acts as one of
the tenant's owners: it has the tenant role in the tenant's namespaces and
nothing elsewhere.

The API server issues tokens to ServiceAccounts only: owners of kind User or
Group sign in through the cluster's identity provider instead. So the
tenant needs an owner of kind ServiceAccount in spec.owners, and that
ServiceAccount must exist; --owner picks one when there are several.

The server and its CA come from the current kubeconfig (--kubeconfig,
--context). The context is named after the tenant and points at its first
namespace. The token expires after --duration (at least 10m; the API
server may cap it) and cannot be revoked before, except by deleting the
ServiceAccount.`,
		Example: `  landlord tenant kubeconfig team-a --duration 8h > team-a.kubeconfig
  KUBECONFIG=team-a.kubeconfig kubectl get pods`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeTenantNames(kube),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			return runTenantKubeconfig(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.DurationVar(&opts.duration, "duration", time.Hour, "how long the token is valid, at least 10m")
	f.StringVar(&opts.owner, "owner", "", "name of the ServiceAccount owner to act as, when the tenant has several")
	return cmd
}

func runTenantKubeconfig(cmd *cobra.Command, opts tenantKubeconfigOptions) error {
	if opts.duration < minTokenDuration {
		return fmt.Errorf("--duration %s: must be at least %s, the shortest token the API server issues", opts.duration, minTokenDuration)
	}
	cfg, err := opts.kube.config()
	if err != nil {
		return err
	}
	c, err := opts.kube.client()
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	t := &v1alpha1.Tenant{}
	if err := c.Get(ctx, client.ObjectKey{Name: opts.name}, t); err != nil {
		return tenantError(err, opts.name)
	}
	owner, err := serviceAccountOwner(t, opts.owner)
	if err != nil {
		return err
	}

	sa := &corev1.ServiceAccount{}
	sa.Name, sa.Namespace = owner.Name, owner.Namespace
	request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		ExpirationSeconds: ptr.To(int64(opts.duration / time.Second)),
	}}
	err = c.SubResource("token").Create(ctx, sa, request)
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("ServiceAccount %s/%s, owner of tenant %s, not found: create it with kubectl create serviceaccount %s --namespace %s",
			owner.Namespace, owner.Name, t.Name, owner.Name, owner.Namespace)
	}
	if err != nil {
		return fmt.Errorf("requesting a token for ServiceAccount %s/%s: %w", owner.Namespace, owner.Name, err)
	}

	kubeconfig, err := tenantKubeconfig(opts.kube, cfg, t, owner, request.Status.Token)
	if err != nil {
		return err
	}
	data, err := clientcmd.Write(*kubeconfig)
	if err != nil {
		return err
	}
	if _, err := cmd.OutOrStdout().Write(data); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "token of ServiceAccount %s/%s, owner of tenant %s, expires at %s\n",
		owner.Namespace, owner.Name, t.Name, request.Status.ExpirationTimestamp.UTC().Format(time.RFC3339))
	return nil
}

// serviceAccountOwner picks the owner to issue a token for: the one named,
// else the tenant's only ServiceAccount owner.
func serviceAccountOwner(t *v1alpha1.Tenant, name string) (v1alpha1.Owner, error) {
	var accounts []v1alpha1.Owner
	var all []string
	for _, o := range t.Spec.Owners {
		all = append(all, o.Kind+" "+o.Name)
		if o.Kind == rbacv1.ServiceAccountKind {
			accounts = append(accounts, o)
		}
	}
	if name != "" {
		i := slices.IndexFunc(accounts, func(o v1alpha1.Owner) bool { return o.Name == name || o.Namespace+"/"+o.Name == name })
		if i >= 0 {
			return accounts[i], nil
		}
		if j := slices.IndexFunc(t.Spec.Owners, func(o v1alpha1.Owner) bool { return o.Name == name }); j >= 0 {
			return v1alpha1.Owner{}, fmt.Errorf("--owner %q: a %s; the API server issues tokens to ServiceAccounts only, users and groups sign in through the cluster's identity provider", name, t.Spec.Owners[j].Kind)
		}
		return v1alpha1.Owner{}, fmt.Errorf("--owner %q: not an owner of tenant %s; its owners: %s", name, t.Name, listOrNone(all))
	}
	switch len(accounts) {
	case 0:
		return v1alpha1.Owner{}, fmt.Errorf("tenant %s has no owner of kind ServiceAccount (its owners: %s): the API server issues tokens to ServiceAccounts only; "+
			"add one to spec.owners, such as {kind: ServiceAccount, name: %s-admin, namespace: NAMESPACE}, and create that ServiceAccount", t.Name, listOrNone(all), t.Name)
	case 1:
		return accounts[0], nil
	}
	names := make([]string, 0, len(accounts))
	for _, o := range accounts {
		names = append(names, o.Namespace+"/"+o.Name)
	}
	return v1alpha1.Owner{}, fmt.Errorf("tenant %s has %d ServiceAccount owners: choose one with --owner (%s)", t.Name, len(accounts), strings.Join(names, ", "))
}

func listOrNone(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}

// tenantKubeconfig is a kubeconfig for the cluster cfg talks to, carrying
// token, its one context named after the tenant and set to its first
// namespace.
func tenantKubeconfig(kube kubeFlags, cfg *rest.Config, t *v1alpha1.Tenant, owner v1alpha1.Owner, token string) (*clientcmdapi.Config, error) {
	// The CA goes in inline: the file the admin's kubeconfig names is not
	// on the tenant's machine.
	cfg = rest.CopyConfig(cfg)
	if err := rest.LoadTLSFiles(cfg); err != nil {
		return nil, fmt.Errorf("reading the cluster's CA: %w", err)
	}
	clusterName := t.Name
	if raw, err := kube.ToRawKubeConfigLoader().RawConfig(); err == nil {
		current := raw.CurrentContext
		if *kube.Context != "" {
			current = *kube.Context
		}
		if kc := raw.Contexts[current]; kc != nil && kc.Cluster != "" {
			clusterName = kc.Cluster
		}
	}
	if owner.Namespace == "" || owner.Name == "" {
		return nil, errors.New("the owner needs a namespace and a name")
	}
	user := owner.Namespace + "-" + owner.Name
	return &clientcmdapi.Config{
		Clusters: map[string]*clientcmdapi.Cluster{clusterName: {
			Server:                   cfg.Host,
			CertificateAuthorityData: cfg.CAData,
			InsecureSkipTLSVerify:    cfg.Insecure,
			TLSServerName:            cfg.ServerName,
		}},
		AuthInfos: map[string]*clientcmdapi.AuthInfo{user: {Token: token}},
		Contexts: map[string]*clientcmdapi.Context{t.Name: {
			Cluster: clusterName, AuthInfo: user, Namespace: t.HomeNamespace(),
		}},
		CurrentContext: t.Name,
	}, nil
}
