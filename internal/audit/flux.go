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

// fluxLockdown reads the flags of Flux's controller Deployments. Flux run
// some other way cannot be read: that is a Skip, never a Pass.
func (a *Auditor) fluxLockdown(ctx context.Context) ([]Check, error) {
	ns := a.FluxNamespace
	if ns == "" {
		ns = "flux-system"
	}
	list := &appsv1.DeploymentList{}
	if err := a.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
		return nil, fmt.Errorf("listing Flux's Deployments in %s: %w", ns, err)
	}
	var checks []Check
	for _, name := range slices.Sorted(maps.Keys(lockdown)) {
		i := slices.IndexFunc(list.Items, func(d appsv1.Deployment) bool { return d.Name == name })
		check := Check{Kind: "flux", Name: name + " runs locked down", Result: Pass}
		switch {
		case i < 0 && (name == "kustomize-controller" || name == "helm-controller"):
			check.Result, check.Detail = Skip, "no Deployment "+ns+"/"+name+" to read flags from"
		case i < 0:
			continue // an optional controller that is not installed
		default:
			if missing := missingFlags(&list.Items[i], lockdown[name]); len(missing) > 0 {
				check.Result, check.Detail = Fail, "missing "+strings.Join(missing, " ")
			}
		}
		checks = append(checks, check)
	}
	return checks, nil
}

// missingFlags lists the wanted flags the Deployment's manager container
// does not pass, as flag=value.
func missingFlags(d *appsv1.Deployment, want map[string]string) []string {
	got := map[string]string{}
	for _, c := range d.Spec.Template.Spec.Containers {
		args := append(slices.Clone(c.Command), c.Args...)
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
