package audit

import (
	"context"
	"fmt"
	"slices"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

// knownFinalizers are the finalizers a tenant namespace may carry:
// Kubernetes' own and Landlord's.
var knownFinalizers = []string{string(corev1.FinalizerKubernetes), v1alpha1.Finalizer}

// holdings checks what the tenant holds against what its status says:
// every namespace labelled for it is reported, none is held Terminating
// by a finalizer nobody knows, and every object the render names is
// Landlord's own, as rendered, not one the tenant made ahead of it.
func (a *Auditor) holdings(ctx context.Context, t *v1alpha1.Tenant) ([]Check, error) {
	namespaces, err := a.namespaces(ctx, t)
	if err != nil {
		return nil, err
	}
	objects, err := a.renderedObjects(ctx, t)
	if err != nil {
		return nil, err
	}
	return []Check{namespaces, objects}, nil
}

func (a *Auditor) namespaces(ctx context.Context, t *v1alpha1.Tenant) (Check, error) {
	c := Check{Tenant: t.Name, Kind: "holdings", Name: "every namespace labelled for the tenant is reported, none held by unknown finalizers", Result: Pass}
	list := &corev1.NamespaceList{}
	if err := a.Client.List(ctx, list, client.MatchingLabels{v1alpha1.TenantLabel: t.Name}); err != nil {
		return c, fmt.Errorf("listing namespaces of tenant %s: %w", t.Name, err)
	}
	reported := map[string]bool{}
	for _, ns := range t.Status.Namespaces {
		reported[ns.Name] = true
	}
	var problems []string
	for _, ns := range list.Items {
		if !reported[ns.Name] {
			problems = append(problems, fmt.Sprintf("namespace %s is labelled for the tenant but missing from its status", ns.Name))
		}
		for _, f := range append(slices.Clone(ns.Finalizers), finalizerNames(ns.Spec.Finalizers)...) {
			if !slices.Contains(knownFinalizers, f) {
				problems = append(problems, fmt.Sprintf("namespace %s carries finalizer %s", ns.Name, f))
			}
		}
	}
	if len(problems) > 0 {
		c.Result, c.Detail = Fail, strings.Join(problems, "; ")
	}
	return c, nil
}

func finalizerNames(fs []corev1.FinalizerName) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = string(f)
	}
	return out
}

// renderedObjects checks the Flux objects and guard rails the render names
// in the tenant's namespaces: each must be Landlord's, and a Flux object
// suspended only when the Tenant is.
func (a *Auditor) renderedObjects(ctx context.Context, t *v1alpha1.Tenant) (Check, error) {
	c := Check{Tenant: t.Name, Kind: "holdings", Name: "every object Landlord renders is its own, as rendered", Result: Pass}
	var selfService []string
	for _, ns := range t.Status.Namespaces {
		if ns.Origin == v1alpha1.NamespaceOriginSelfService && ns.Ready {
			selfService = append(selfService, ns.Name)
		}
	}
	desired, err := render.Objects(t, render.Holdings{SelfService: selfService})
	if err != nil {
		c.Result, c.Detail = Skip, "the spec does not render: "+err.Error()
		return c, nil
	}
	var problems []string
	for _, want := range desired {
		if want.GetNamespace() == "" {
			continue // namespaces are checked above, cluster bindings by access
		}
		got := want.DeepCopyObject().(client.Object)
		err := a.Client.Get(ctx, client.ObjectKeyFromObject(want), got)
		switch {
		case apierrors.IsNotFound(err):
			continue // not provisioned yet: the ready check says so
		case err != nil:
			return c, fmt.Errorf("reading %s/%s: %w", want.GetNamespace(), want.GetName(), err)
		}
		what := fmt.Sprintf("%s %s/%s", want.GetObjectKind().GroupVersionKind().Kind, got.GetNamespace(), got.GetName())
		if got.GetLabels()[v1alpha1.ManagedByLabel] != v1alpha1.ManagedByValue || got.GetLabels()[v1alpha1.TenantLabel] != t.Name {
			problems = append(problems, what+" holds a name Landlord renders but was made by another writer")
			continue
		}
		if suspended(got) && !t.Spec.Suspend {
			problems = append(problems, what+" is suspended while the Tenant is not")
		}
	}
	if len(problems) > 0 {
		c.Result, c.Detail = Fail, strings.Join(problems, "; ")
	}
	return c, nil
}

// suspended reports a suspended Flux object.
func suspended(obj client.Object) bool {
	switch o := obj.(type) {
	case *sourcev1.GitRepository:
		return o.Spec.Suspend
	case *kustomizev1.Kustomization:
		return o.Spec.Suspend
	}
	return false
}
