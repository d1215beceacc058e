package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/fleet"
	"github.com/landlord-dev/landlord/internal/fluxoperator"
	"github.com/landlord-dev/landlord/internal/lockdown"
)

// fluxManagedLabel marks objects a Flux Kustomization applied: Flux
// bootstrapped itself and reverts hand edits.
const fluxManagedLabel = "kustomize.toolkit.fluxcd.io/name"

// fluxInstall is what findFlux found of Flux: the Flux Operator's
// FluxInstance, else the controllers' Deployments.
type fluxInstall struct {
	instance    *unstructured.Unstructured
	deployments map[string]*appsv1.Deployment
}

// findFlux reads Flux's FluxInstance or controllers, failing when Flux is
// not installed.
func findFlux(ctx context.Context, c client.Client) (*fluxInstall, error) {
	ns := &corev1.Namespace{}
	err := c.Get(ctx, client.ObjectKey{Name: fleet.FluxNamespace}, ns)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("--flux-lockdown: Flux is not installed: namespace %s not found; install Flux first (flux install or flux bootstrap) or leave out --flux-lockdown", fleet.FluxNamespace)
	}
	if err != nil {
		return nil, fmt.Errorf("reading namespace %s: %w", fleet.FluxNamespace, err)
	}
	instance, err := fluxoperator.Get(ctx, c, fleet.FluxNamespace)
	if err != nil || instance != nil {
		return &fluxInstall{instance: instance}, err
	}
	found := &fluxInstall{deployments: map[string]*appsv1.Deployment{}}
	for _, l := range lockdown.Controllers {
		d := &appsv1.Deployment{}
		err := c.Get(ctx, client.ObjectKey{Namespace: fleet.FluxNamespace, Name: l.Name}, d)
		if apierrors.IsNotFound(err) && l.Required {
			return nil, fmt.Errorf("--flux-lockdown: Flux is not installed: no Deployment %s in namespace %s; install Flux first (flux install or flux bootstrap) or leave out --flux-lockdown", l.Name, fleet.FluxNamespace)
		}
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading Deployment %s/%s: %w", fleet.FluxNamespace, l.Name, err)
		}
		found.deployments[l.Name] = d
	}
	return found, nil
}

// lockDown locks Flux down: through its FluxInstance's settings when the
// Flux Operator installs it, else with the flags on the first container of
// each Flux controller found. It prints a line per object.
func (f *fluxInstall) lockDown(ctx context.Context, c client.Client, out io.Writer) error {
	if f.instance != nil {
		return lockDownInstance(ctx, c, f.instance, out)
	}
	for _, l := range lockdown.Controllers {
		name := fmt.Sprintf("Deployment %s/%s", fleet.FluxNamespace, l.Name)
		flags := lockdown.Args(l.Name)
		d := f.deployments[l.Name]
		if d == nil {
			fmt.Fprintf(out, "%s not installed: nothing to lock down\n", name)
			continue
		}
		if len(d.Spec.Template.Spec.Containers) == 0 {
			return fmt.Errorf("%s has no container to set %s on", name, strings.Join(flags, " "))
		}
		// The container the fleet component patches too: Flux's manager.
		old := d.Spec.Template.Spec.Containers[0].Args
		args := lockdown.Lock(l.Name, old)
		// A command ending the flags ("--") or swallowing one is not
		// Landlord's to rewrite.
		command := d.Spec.Template.Spec.Containers[0].Command
		if missing := lockdown.Missing(l.Name, append(slices.Clone(command), args...)); len(missing) > 0 {
			return fmt.Errorf("%s: its command %q keeps %s from the controller: correct the command by hand", name, command, strings.Join(missing, " "))
		}
		if slices.Equal(old, args) {
			fmt.Fprintf(out, "%s already locked down\n", name)
			continue
		}
		if err := c.Patch(ctx, d, client.RawPatch(types.JSONPatchType, argsPatch(old, args))); err != nil {
			return fmt.Errorf("locking down %s: %w", name, err)
		}
		fmt.Fprintf(out, "%s locked down: %s\n", name, strings.Join(lockdown.Missing(l.Name, old), " "))
		if d.Labels[fluxManagedLabel] != "" {
			fmt.Fprintf(out, "  warning: Flux Kustomization %s manages it and will revert this: add infrastructure/flux-lockdown from 'landlord init fleet' to its kustomization.yaml\n", d.Labels[fluxManagedLabel])
		}
	}
	return nil
}

// lockDownInstance turns the instance's lockdown settings on; the operator
// renders the controllers from them. Patches of the instance's own that
// undo the lockdown are an error: Landlord does not remove what it did not
// write.
func lockDownInstance(ctx context.Context, c client.Client, instance *unstructured.Unstructured, out io.Writer) error {
	name := fluxoperator.Key(instance)
	// What Landlord cannot verify it does not touch.
	if _, err := fluxoperator.Args(instance); err != nil {
		return err
	}
	locked := instance.DeepCopy()
	changed, err := fluxoperator.Lock(locked)
	if err != nil {
		return err
	}
	if len(changed) == 0 {
		fmt.Fprintf(out, "%s already locked down\n", name)
	} else {
		patch := client.MergeFromWithOptions(instance, client.MergeFromWithOptimisticLock{})
		if err := c.Patch(ctx, locked, patch); err != nil {
			return fmt.Errorf("locking down %s: %w", name, err)
		}
		fmt.Fprintf(out, "%s locked down: %s\n", name, strings.Join(changed, " "))
		if k := instance.GetLabels()[fluxManagedLabel]; k != "" {
			fmt.Fprintf(out, "  warning: Flux Kustomization %s manages it and will revert this: set the same in the FluxInstance in Git, as 'landlord init fleet --flux-operator' writes it\n", k)
		}
	}
	missing, err := fluxoperator.Missing(locked)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: its spec.kustomize.patches undo the lockdown (%s): remove or correct them", name, fluxoperator.Describe(missing))
	}
	return nil
}

// argsPatch replaces the first container's args, failing if they changed
// since they were read.
func argsPatch(old, args []string) []byte {
	const path = "/spec/template/spec/containers/0/args"
	type op struct {
		Op    string   `json:"op"`
		Path  string   `json:"path"`
		Value []string `json:"value"`
	}
	var ops []op
	if old != nil {
		ops = append(ops, op{Op: "test", Path: path, Value: old})
	}
	data, _ := json.Marshal(append(ops, op{Op: "add", Path: path, Value: args})) // strings always marshal
	return data
}
