package audit

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/lockdown"
)

// released checks each namespace a tenant released (landlord.dev/released),
// of the named tenants or, with none named, of any: no RoleBinding lets an
// identity from outside the namespace in, no reconciler account of the
// tenant is left, and no Flux object there syncs.
func (a *Auditor) released(ctx context.Context, names []string) ([]Check, error) {
	list := &corev1.NamespaceList{}
	if err := a.Client.List(ctx, list, client.HasLabels{v1alpha1.ReleasedLabel}); err != nil {
		return nil, fmt.Errorf("listing released namespaces: %w", err)
	}
	var checks []Check
	for _, ns := range list.Items {
		by := ns.Labels[v1alpha1.ReleasedLabel]
		if len(names) > 0 && !slices.Contains(names, by) {
			continue
		}
		c := Check{Tenant: by, Namespace: ns.Name, Kind: "released", Name: "released namespace " + ns.Name + " holds no tenant access and nothing that syncs", Result: Pass}
		problems, err := a.releasedProblems(ctx, ns.Name, by)
		if err != nil {
			return nil, err
		}
		if len(problems) > 0 {
			c.Result, c.Detail = Fail, strings.Join(problems, "; ")
		}
		checks = append(checks, c)
	}
	return checks, nil
}

func (a *Auditor) releasedProblems(ctx context.Context, ns, by string) ([]string, error) {
	var problems []string
	bindings := &rbacv1.RoleBindingList{}
	if err := a.Client.List(ctx, bindings, client.InNamespace(ns)); err != nil {
		return nil, fmt.Errorf("listing role bindings in %s: %w", ns, err)
	}
	for _, rb := range bindings.Items {
		for _, s := range rb.Subjects {
			if s.Kind != rbacv1.ServiceAccountKind || s.Namespace != "" && s.Namespace != ns {
				problems = append(problems, fmt.Sprintf("RoleBinding %s grants %s %s from outside the namespace", rb.Name, s.Kind, subjectName(s)))
			}
		}
	}
	reconciler := by
	if t := (&v1alpha1.Tenant{}); a.Client.Get(ctx, client.ObjectKey{Name: by}, t) == nil {
		reconciler = t.ReconcilerName()
	}
	err := a.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: reconciler}, &corev1.ServiceAccount{})
	switch {
	case err == nil:
		problems = append(problems, "ServiceAccount "+reconciler+", tenant "+by+"'s reconciler, is left")
	case !apierrors.IsNotFound(err):
		return nil, fmt.Errorf("reading service account %s/%s: %w", ns, reconciler, err)
	}
	for _, gvk := range lockdown.Suspendable {
		objects := &unstructured.UnstructuredList{}
		objects.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		err := a.Client.List(ctx, objects, client.InNamespace(ns))
		if meta.IsNoMatchError(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("listing %s in %s: %w", gvk.Kind, ns, err)
		}
		for _, obj := range objects.Items {
			if suspended, _, _ := unstructured.NestedBool(obj.Object, "spec", "suspend"); !suspended {
				problems = append(problems, gvk.Kind+" "+obj.GetName()+" is not suspended")
			}
		}
	}
	return problems, nil
}

// subjectName spells a subject, namespace/name for a service account.
func subjectName(s rbacv1.Subject) string {
	if s.Kind == rbacv1.ServiceAccountKind {
		return s.Namespace + "/" + s.Name
	}
	return s.Name
}
