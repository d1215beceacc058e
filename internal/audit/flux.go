package audit

import (
	"context"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/fluxoperator"
	"github.com/landlord-dev/landlord/internal/lockdown"
)

// fluxLockdown checks the flags of Flux's controllers: those of
// Auditor.FluxArgs, else those of their Deployments. A controller whose
// flags cannot be read is a Skip, never a Pass. Where the Flux Operator
// installs Flux, its FluxInstance is checked as well: the operator renders
// the Deployments from it.
func (a *Auditor) fluxLockdown(ctx context.Context) ([]Check, error) {
	args, where, err := a.fluxArgs(ctx)
	if err != nil {
		return nil, err
	}
	checks, err := a.fluxInstance(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range lockdown.Controllers {
		check := Check{Kind: "flux", Name: c.Name + " runs locked down", Result: Pass}
		got, found := args[c.Name]
		switch {
		case !found && c.Required:
			check.Result, check.Detail = Skip, "no "+where+c.Name+" to read flags from"
		case !found:
			continue // an optional controller that is not installed
		default:
			if missing := lockdown.Missing(c.Name, got); len(missing) > 0 {
				check.Result, check.Detail = Fail, "missing "+strings.Join(missing, " ")
			}
		}
		checks = append(checks, check)
	}
	return checks, nil
}

// fluxInstance checks the FluxInstance in Flux's namespace, if any: the
// flags its settings and patches give each controller it installs.
func (a *Auditor) fluxInstance(ctx context.Context) ([]Check, error) {
	if a.FluxArgs != nil {
		return nil, nil
	}
	instance, err := fluxoperator.Get(ctx, a.Client, a.fluxNamespace())
	if err != nil || instance == nil {
		return nil, err
	}
	check := Check{Kind: "flux", Name: fluxoperator.Key(instance) + " locks Flux down", Result: Pass}
	missing, err := fluxoperator.Missing(instance)
	if err != nil {
		check.Result, check.Detail = Fail, err.Error()
		return []Check{check}, nil
	}
	if len(missing) > 0 {
		check.Result = Fail
		check.Detail = fluxoperator.Describe(missing) + "; set spec.cluster." + strings.Join(fluxoperator.Settings(), ", spec.cluster.") + " to true (landlord install --flux-lockdown)"
	}
	return []Check{check}, nil
}

func (a *Auditor) fluxNamespace() string {
	if a.FluxNamespace == "" {
		return "flux-system"
	}
	return a.FluxNamespace
}

// fluxArgs are the command lines of Flux's controllers by name, and where
// they were read, for messages.
func (a *Auditor) fluxArgs(ctx context.Context) (map[string][]string, string, error) {
	if a.FluxArgs != nil {
		return a.FluxArgs, "process ", nil
	}
	ns := a.fluxNamespace()
	list := &appsv1.DeploymentList{}
	if err := a.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
		return nil, "", fmt.Errorf("listing Flux's Deployments in %s: %w", ns, err)
	}
	args := map[string][]string{}
	for _, d := range list.Items {
		for _, c := range d.Spec.Template.Spec.Containers {
			args[d.Name] = append(args[d.Name], append(slices.Clone(c.Command), c.Args...)...)
		}
	}
	return args, "Deployment " + ns + "/", nil
}
