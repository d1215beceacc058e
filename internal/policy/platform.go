package policy

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/landlord-dev/landlord/internal/tenancy"
)

// Platform names the platform's own admins beyond system:masters: on
// managed clusters and with OIDC they are users or groups, not masters;
// the namespace Landlord's controller runs in,
// tenancy.ControllerNamespace when empty; and the cluster's default
// classes: what the policies are rendered for.
type Platform struct {
	Users     []string
	Groups    []string
	Namespace string
	// Defaults are the cluster's default classes, which the workloads
	// policy allows as the API server writes them into what names none;
	// its ingress class is the webhook's to read.
	Defaults Defaults
}

// Controller is the user name of Landlord's controller.
func (p Platform) Controller() string {
	return tenancy.ControllerUser(cmp.Or(p.Namespace, tenancy.ControllerNamespace))
}

// Validate refuses entries that would make every tenant the platform:
// the groups and users LL011 keeps out of tenants' bindings as holding
// identities of other tenants, and a namespace's service-account group.
func (p Platform) Validate() error {
	for _, g := range p.Groups {
		if slices.Contains(foreignGroups, g) || strings.HasPrefix(g, "system:serviceaccounts:") {
			return fmt.Errorf("platform group %q takes in tenants' identities too; allowed: groups of the platform's admins only", g)
		}
	}
	for _, u := range p.Users {
		if slices.Contains(foreignUsers, u) {
			return fmt.Errorf("platform user %q is whoever has no credentials; allowed: users of the platform's admins only", u)
		}
	}
	return nil
}

// platformIdentities is who the platform is, besides Platform's entries:
// the one table that Includes reads in Go and CEL spells for the API
// server's match conditions, so that the webhooks skip exactly the
// identities the policy would not judge.
var platformIdentities = struct {
	// kubernetesNamespaces and fluxNamespaces hold the service accounts of
	// Kubernetes' and Flux's controllers: the namespace and garbage
	// collectors must be able to delete what they delete. Flux's apply
	// what others wrote, so their content is judged (SparedCEL).
	kubernetesNamespaces, fluxNamespaces []string
	// componentUsers are the control plane's own user names.
	componentUsers []string
	// groups are platform whoever is in them: system:masters bypasses
	// RBAC, so judging it would only break break-glass.
	groups []string
	// A kubelet (which deletes the pods it evicted) is a user of this
	// prefix in this group.
	nodePrefix, nodeGroup string
}{
	kubernetesNamespaces: []string{"kube-system"},
	fluxNamespaces:       []string{"flux-system"},
	componentUsers:       []string{"system:apiserver", "system:kube-controller-manager", "system:kube-scheduler", "system:kube-proxy"},
	groups:               []string{"system:masters"},
	nodePrefix:           "system:node:",
	nodeGroup:            "system:nodes",
}

// Includes reports whether u is the platform: the policy never judges it
// by the identity rules, nor counts it as any tenant.
func (p Platform) Includes(u authenticationv1.UserInfo) bool {
	id := platformIdentities
	return p.isController(u) ||
		slices.Contains(id.componentUsers, u.Username) || slices.Contains(p.Users, u.Username) ||
		slices.ContainsFunc(u.Groups, func(g string) bool { return slices.Contains(id.groups, g) || slices.Contains(p.Groups, g) }) ||
		strings.HasPrefix(u.Username, id.nodePrefix) && slices.Contains(u.Groups, id.nodeGroup)
}

// isController reports Landlord and the service accounts of Kubernetes'
// and Flux's controllers.
func (p Platform) isController(u authenticationv1.UserInfo) bool {
	if u.Username == p.Controller() {
		return true
	}
	ns, _, ok := tenancy.SplitServiceAccount(u.Username)
	return ok && slices.Contains(slices.Concat(platformIdentities.kubernetesNamespaces, platformIdentities.fluxNamespaces), ns)
}

// CEL is Includes as a CEL expression over an admission request, for the
// match conditions of the webhooks.
func (p Platform) CEL() string {
	id := platformIdentities
	return strings.Join([]string{
		p.controllersCEL(slices.Concat(id.kubernetesNamespaces, id.fluxNamespaces)),
		fmt.Sprintf("request.userInfo.username in %s", CELList(id.componentUsers)),
		// Platform's lists stand apart, possibly empty, so that the chart
		// templates them into the same expression.
		fmt.Sprintf("request.userInfo.username in %s", CELList(p.Users)),
		// A request may carry no groups at all: then the field is absent.
		fmt.Sprintf("(has(request.userInfo.groups) && request.userInfo.groups.exists(g, g in %s || g in %s))", CELList(id.groups), CELList(p.Groups)),
		nodeCEL(),
	}, " || ")
}

// controllersCEL is a CEL expression true for Landlord and the service
// accounts of namespaces, isController's for Kubernetes' and Flux's. A
// prefix and the last colon rather than a regular expression: the API
// server evaluates it on every write it guards.
func (p Platform) controllersCEL(namespaces []string) string {
	alternatives := []string{fmt.Sprintf("request.userInfo.username == %q", p.Controller())}
	for _, ns := range namespaces {
		prefix := tenancy.ServiceAccountPrefix + ns + ":"
		alternatives = append(alternatives, fmt.Sprintf(`(request.userInfo.username.startsWith(%q) && request.userInfo.username.lastIndexOf(":") == %d && size(request.userInfo.username) > %d)`,
			prefix, len(prefix)-1, len(prefix)))
	}
	return strings.Join(alternatives, " || ")
}

// SparedCEL is a CEL expression true for the writers the API server's
// policy never judges, content included: Landlord, whose objects the
// Tenant's API validates, Kubernetes' controllers and components, and
// kubelets, none of which writes what a tenant wrote. Flux's controllers
// and the platform's admins may apply a tenant's content: the policy
// judges it, not their identity.
func (p Platform) SparedCEL() string {
	id := platformIdentities
	return strings.Join([]string{
		p.controllersCEL(id.kubernetesNamespaces),
		fmt.Sprintf("request.userInfo.username in %s", CELList(id.componentUsers)),
		nodeCEL(),
	}, " || ")
}

// nodeCEL is a CEL expression true for a kubelet.
func nodeCEL() string {
	id := platformIdentities
	return fmt.Sprintf("(request.userInfo.username.startsWith(%q) && has(request.userInfo.groups) && %q in request.userInfo.groups)", id.nodePrefix, id.nodeGroup)
}

// CELList spells values as a CEL list of string literals.
func CELList(values []string) string {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = strconv.Quote(v)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}
