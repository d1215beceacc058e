package audit

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// lockdown are the flags each Flux controller needs so that a tenant's
// objects cannot borrow Flux's own identity or reach past their namespace:
// flag name and the value it must have, "" for any non-empty value.
var lockdown = map[string]map[string]string{
	"kustomize-controller": {
		"--no-cross-namespace-refs": "true",
		"--no-remote-bases":         "true",
		"--default-service-account": "",
	},
	"helm-controller": {
		"--no-cross-namespace-refs": "true",
		"--default-service-account": "",
	},
	"notification-controller":     {"--no-cross-namespace-refs": "true"},
	"image-reflector-controller":  {"--no-cross-namespace-refs": "true"},
	"image-automation-controller": {"--no-cross-namespace-refs": "true"},
}

// fluxLockdown checks the flags of Flux's controllers: those of
// Auditor.FluxArgs, else those of their Deployments. A controller whose
// flags cannot be read is a Skip, never a Pass.
func (a *Auditor) fluxLockdown(ctx context.Context) ([]Check, error) {
	args, where, err := a.fluxArgs(ctx)
	if err != nil {
		return nil, err
	}
	var checks []Check
	for _, name := range slices.Sorted(maps.Keys(lockdown)) {
		check := Check{Kind: "flux", Name: name + " runs locked down", Result: Pass}
		got, found := args[name]
		switch {
		case !found && (name == "kustomize-controller" || name == "helm-controller"):
			check.Result, check.Detail = Skip, "no "+where+name+" to read flags from"
		case !found:
			continue // an optional controller that is not installed
		default:
			if missing := missingFlags(got, lockdown[name]); len(missing) > 0 {
				check.Result, check.Detail = Fail, "missing "+strings.Join(missing, " ")
			}
		}
		checks = append(checks, check)
	}
	return checks, nil
}

// fluxArgs are the command lines of Flux's controllers by name, and where
// they were read, for messages.
func (a *Auditor) fluxArgs(ctx context.Context) (map[string][]string, string, error) {
	if a.FluxArgs != nil {
		return a.FluxArgs, "process ", nil
	}
	ns := a.FluxNamespace
	if ns == "" {
		ns = "flux-system"
	}
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

// missingFlags lists the wanted flags a command line does not pass, as
// flag=value.
func missingFlags(args []string, want map[string]string) []string {
	got := map[string]string{}
	for i, arg := range args {
		if !strings.HasPrefix(arg, "--") {
			continue
		}
		name, value, ok := strings.Cut(arg, "=")
		if !ok {
			// A boolean flag alone, or a value in the next argument.
			value = "true"
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				value = args[i+1]
			}
		}
		got[name] = value
	}
	var missing []string
	for _, name := range slices.Sorted(maps.Keys(want)) {
		value, ok := got[name]
		if !ok || value == "" || want[name] != "" && value != want[name] {
			w := want[name]
			if w == "" {
				w = "NAME"
			}
			missing = append(missing, name+"="+w)
		}
	}
	return missing
}
