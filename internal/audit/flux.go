package audit

import (
	"context"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
		// The controller's Deployment, and its shards, if any.
		var names []string
		for name, d := range args {
			if d.controller == c.Name {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		if len(names) == 0 && c.Required {
			checks = append(checks, Check{Kind: "flux", Name: c.Name + " runs locked down", Result: Skip, Detail: "no " + where + c.Name + " to read flags from"})
		}
		for _, name := range names {
			check := Check{Kind: "flux", Name: name + " runs locked down", Result: Pass}
			if missing := lockdown.Missing(c.Name, args[name].args); len(missing) > 0 {
				check.Result, check.Detail = Fail, "missing "+strings.Join(missing, " ")
			}
			checks = append(checks, check)
		}
	}
	return checks, nil
}

// deployed is a Flux controller as it runs: which lockdown controller, and
// its command line.
type deployed struct {
	controller string
	args       []string
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
	switch {
	case err != nil:
		check.Result, check.Detail = Fail, err.Error()
	case len(missing) > 0:
		check.Result = Fail
		check.Detail = fluxoperator.Describe(missing) + "; set spec.cluster." + strings.Join(fluxoperator.Settings(), ", spec.cluster.") + " to true (landlord install --flux-lockdown)"
	}
	return []Check{check, applied(instance)}, nil
}

// applied checks that the operator rendered the instance's current spec:
// until it has, the lockdown computed from the spec is not what runs (the
// Deployments' own checks say what does).
func applied(instance *unstructured.Unstructured) Check {
	check := Check{Kind: "flux", Name: fluxoperator.Key(instance) + " is applied by the Flux Operator", Result: Pass}
	conditions, _, _ := unstructured.NestedSlice(instance.Object, "status", "conditions")
	for _, c := range conditions {
		cond, _ := c.(map[string]any)
		if cond["type"] != "Ready" {
			continue
		}
		generation, _, _ := unstructured.NestedInt64(cond, "observedGeneration")
		switch {
		case generation != instance.GetGeneration():
			check.Result, check.Detail = Skip, fmt.Sprintf("the operator has reconciled generation %d, not %d", generation, instance.GetGeneration())
		case cond["status"] != "True":
			check.Result, check.Detail = Fail, fmt.Sprintf("Ready=%v %v: %v", cond["status"], cond["reason"], cond["message"])
		}
		return check
	}
	check.Result, check.Detail = Skip, "no Ready condition: the operator has not reconciled it"
	return check
}

func (a *Auditor) fluxNamespace() string {
	if a.FluxNamespace == "" {
		return "flux-system"
	}
	return a.FluxNamespace
}

// fluxArgs are Flux's controllers by Deployment (or process) name, and
// where they were read, for messages. A Deployment's controller is the one
// its app.kubernetes.io/component label names, as the Flux Operator's
// shards keep it, else the one of its name.
func (a *Auditor) fluxArgs(ctx context.Context) (map[string]deployed, string, error) {
	if a.FluxArgs != nil {
		running := map[string]deployed{}
		for name, args := range a.FluxArgs {
			running[name] = deployed{controller: name, args: args}
		}
		return running, "process ", nil
	}
	ns := a.fluxNamespace()
	list := &appsv1.DeploymentList{}
	if err := a.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
		return nil, "", fmt.Errorf("listing Flux's Deployments in %s: %w", ns, err)
	}
	running := map[string]deployed{}
	for _, d := range list.Items {
		controller := d.Labels["app.kubernetes.io/component"]
		if _, ok := lockdown.Lookup(controller); !ok {
			controller = d.Name
		}
		running[d.Name] = deployed{controller: controller, args: lockdown.CommandLine(&d.Spec.Template.Spec)}
	}
	return running, "Deployment " + ns + "/", nil
}
