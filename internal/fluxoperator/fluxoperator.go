// Package fluxoperator is Flux's multi-tenancy lockdown on a cluster whose
// Flux the Flux Operator installs from a FluxInstance. The operator renders
// the controllers' Deployments itself and reverts edits to them, so the
// lockdown is expressed through the instance: its spec.cluster settings,
// and a kustomize patch for any lockdown flag no setting covers. What a
// FluxInstance gives each controller is worked out the way the operator
// does it: its settings' flags, then its patches applied by kustomize.
package fluxoperator

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/resid"

	"github.com/landlord-dev/landlord/internal/lockdown"
)

// GVK is the Flux Operator's FluxInstance.
var GVK = schema.GroupVersionKind{Group: "fluxcd.controlplane.io", Version: "v1", Kind: "FluxInstance"}

// InstanceName is the only name the FluxInstance CRD admits.
const InstanceName = "flux"

// Distribution is the Flux the scaffolded instance installs: the
// multitenantWorkloadIdentity setting needs 2.7 or later.
const Distribution = "2.7.x"

// A setting is a boolean of a FluxInstance's spec.cluster, and the flags
// the operator then adds to each controller's arguments (read in the
// operator's internal/builder, v0.59.0). A value naming a spec.cluster
// field is that field's value, "default" when it is empty.
type setting struct {
	field string
	flags []operatorFlag
}

type operatorFlag struct {
	name        string
	value       string
	valueField  string
	controllers []string
}

const (
	source       = "source-controller"
	kustomize    = "kustomize-controller"
	helm         = "helm-controller"
	notification = "notification-controller"
	reflector    = "image-reflector-controller"
	automation   = "image-automation-controller"
	watcher      = "source-watcher"
)

var settings = []setting{
	{field: "multitenant", flags: []operatorFlag{
		{name: "--no-cross-namespace-refs", value: "true", controllers: []string{kustomize, helm, notification, reflector, automation, watcher}},
		{name: "--no-remote-bases", value: "true", controllers: []string{kustomize}},
		{name: "--default-service-account", valueField: "tenantDefaultServiceAccount", controllers: []string{kustomize, helm}},
	}},
	{field: "objectLevelWorkloadIdentity", flags: []operatorFlag{
		{name: "--feature-gates", value: "ObjectLevelWorkloadIdentity=true", controllers: []string{source, kustomize, helm, notification, reflector, automation}},
	}},
	// The CRD admits it only with objectLevelWorkloadIdentity.
	{field: "multitenantWorkloadIdentity", flags: []operatorFlag{
		{name: "--default-service-account", valueField: "tenantDefaultServiceAccount", controllers: []string{source, notification, reflector, automation}},
		{name: "--default-decryption-service-account", valueField: "tenantDefaultDecryptionServiceAccount", controllers: []string{kustomize}},
		{name: "--default-kubeconfig-service-account", valueField: "tenantDefaultKubeConfigServiceAccount", controllers: []string{kustomize, helm}},
	}},
}

// Settings are the spec.cluster fields the lockdown sets to true, in the
// order the CRD's rules need them.
func Settings() []string {
	fields := make([]string, len(settings))
	for i, s := range settings {
		fields[i] = s.field
	}
	return fields
}

// Patches are the lockdown's flags that no setting makes the operator set:
// one JSON patch per flag, on each controller lacking it. Added to a
// FluxInstance's spec.kustomize.patches, they complete the lockdown.
func Patches() []types.Patch {
	covered := map[string]map[string]bool{}
	for _, s := range settings {
		for _, f := range s.flags {
			for _, c := range f.controllers {
				if covered[c] == nil {
					covered[c] = map[string]bool{}
				}
				covered[c][f.name+"="+f.value] = true
				if f.valueField != "" {
					covered[c][f.name] = true
				}
			}
		}
	}
	var patches []types.Patch
	for _, s := range lockdown.Settings() {
		var missing []string
		for _, c := range s.Controllers {
			if !covered[c][s.Flag.String()] && !(s.Flag.AnyValue && covered[c][s.Flag.Name]) {
				missing = append(missing, c)
			}
		}
		if len(missing) == 0 {
			continue
		}
		patches = append(patches, types.Patch{
			Patch:  fmt.Sprintf("- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: %s\n", s.Flag),
			Target: &types.Selector{ResId: resid.ResId{Gvk: resid.Gvk{Kind: "Deployment"}, Name: "(" + strings.Join(missing, "|") + ")"}},
		})
	}
	return patches
}

// settingArgs are the flags the operator gives controller for the
// instance's settings, in the order it adds them.
func settingArgs(cluster map[string]any, controller string) []string {
	var args []string
	for _, s := range settings {
		if on, _ := cluster[s.field].(bool); !on {
			continue
		}
		for _, f := range s.flags {
			if !slices.Contains(f.controllers, controller) {
				continue
			}
			value := f.value
			if f.valueField != "" {
				value, _ = cluster[f.valueField].(string)
				if value == "" {
					value = "default"
				}
			}
			args = append(args, f.name+"="+value)
		}
	}
	return args
}

// Get reads the FluxInstance in namespace: nil where the operator is not
// installed or has no instance there.
func Get(ctx context.Context, c client.Reader, namespace string) (*unstructured.Unstructured, error) {
	instance := &unstructured.Unstructured{}
	instance.SetGroupVersionKind(GVK)
	err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: InstanceName}, instance)
	switch {
	case apimeta.IsNoMatchError(err) || apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading FluxInstance %s/%s: %w", namespace, InstanceName, err)
	}
	return instance, nil
}

// Key names the instance in messages.
func Key(instance *unstructured.Unstructured) string {
	return "FluxInstance " + instance.GetNamespace() + "/" + instance.GetName()
}
