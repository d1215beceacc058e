// Package audit proves on a live cluster that tenants are confined: it asks
// the API server what each tenant identity may do, sends the guard's escape
// attempts and the census's attacks as server-side dry runs, and reads the
// flags Flux runs with.
package audit

import (
	"context"
	"fmt"
	"slices"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// Result is the verdict of one check.
type Result string

const (
	Pass Result = "PASS"
	Fail Result = "FAIL"
	// Skip is a check that could not be made; it never counts as a pass.
	Skip Result = "SKIP"
)

// Check is one verdict of the audit.
type Check struct {
	// Tenant is the tenant checked, empty for cluster-wide checks.
	Tenant string `json:"tenant,omitempty"`
	// Namespace is the one namespace checked, when the check is of one.
	Namespace string `json:"namespace,omitempty"`
	// Kind groups checks: ready, access, escape, census, holdings,
	// released, role or flux.
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Result Result `json:"result"`
	Detail string `json:"detail,omitempty"`
}

// Auditor runs the checks as an identity allowed to read Tenants, create
// SubjectAccessReviews and impersonate tenant identities.
type Auditor struct {
	Client client.Client
	// Config is the auditor's own, impersonated for the escape attempts.
	Config *rest.Config
	// FluxNamespace holds Flux's controllers; flux-system when empty.
	FluxNamespace string
	// FluxArgs, when set, are the flags Flux's controllers were started
	// with, by name, for a Flux that runs outside Deployments.
	FluxArgs map[string][]string
}

// Run audits the named tenants, every tenant when names is empty, and the
// Flux lockdown.
func (a *Auditor) Run(ctx context.Context, names ...string) ([]Check, error) {
	list := &v1alpha1.TenantList{}
	if err := a.Client.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing tenants: %w", err)
	}
	for _, name := range names {
		if !slices.ContainsFunc(list.Items, func(t v1alpha1.Tenant) bool { return t.Name == name }) {
			return nil, fmt.Errorf("tenant %q not found", name)
		}
	}
	var checks []Check
	for i := range list.Items {
		t := &list.Items[i]
		if len(names) > 0 && !slices.Contains(names, t.Name) {
			continue
		}
		checks = append(checks, ready(t))
		access, err := a.access(ctx, t, neighbour(t, list.Items))
		if err != nil {
			return nil, err
		}
		checks = append(checks, access...)
		escapes, err := a.escapes(ctx, t, neighbour(t, list.Items))
		if err != nil {
			return nil, err
		}
		checks = append(checks, escapes...)
		probes, err := a.census(ctx, t, list.Items)
		if err != nil {
			return nil, err
		}
		checks = append(checks, probes...)
		holdings, err := a.holdings(ctx, t)
		if err != nil {
			return nil, err
		}
		checks = append(checks, holdings...)
	}
	released, err := a.released(ctx, names)
	if err != nil {
		return nil, err
	}
	checks = append(checks, released...)
	role, err := a.tenantRole(ctx)
	if err != nil {
		return nil, err
	}
	checks = append(checks, role...)
	policies, err := a.policies(ctx)
	if err != nil {
		return nil, err
	}
	checks = append(checks, policies...)
	flux, err := a.fluxLockdown(ctx)
	if err != nil {
		return nil, err
	}
	return append(checks, flux...), nil
}

// Failed counts the checks that failed.
func Failed(checks []Check) int {
	n := 0
	for _, c := range checks {
		if c.Result == Fail {
			n++
		}
	}
	return n
}

// ready checks that the controller reports the tenant provisioned.
func ready(t *v1alpha1.Tenant) Check {
	c := Check{Tenant: t.Name, Kind: "ready", Name: "tenant is provisioned", Result: Pass}
	cond := apimeta.FindStatusCondition(t.Status.Conditions, v1alpha1.ReadyCondition)
	switch {
	case cond == nil:
		c.Result, c.Detail = Fail, "no Ready condition: is landlord-controller running?"
	case cond.ObservedGeneration != t.Generation:
		c.Result, c.Detail = Fail, fmt.Sprintf("Ready describes generation %d, the spec is at %d", cond.ObservedGeneration, t.Generation)
	case cond.Status != "True":
		c.Result, c.Detail = Fail, cond.Reason+": "+cond.Message
	}
	return c
}

// neighbour is a namespace of another tenant to try to escape into, or
// "default" when the tenant is alone.
func neighbour(t *v1alpha1.Tenant, all []v1alpha1.Tenant) string {
	for i := range all {
		if all[i].Name != t.Name && len(all[i].Spec.Namespaces) > 0 {
			return all[i].HomeNamespace()
		}
	}
	return "default"
}
