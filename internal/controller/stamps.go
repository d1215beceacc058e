package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"k8s.io/client-go/util/workqueue"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

// +kubebuilder:rbac:groups=landlord.dev,resources=tenantresources,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;update;patch;delete

// stamps gathers what the TenantResources selecting tenant stamp into its
// namespaces, in the order of their names; Secrets to copy are read from
// the controller's namespace.
func (r *TenantReconciler) stamps(ctx context.Context, tenant *v1alpha1.Tenant) ([]render.Stamp, error) {
	list := &v1alpha1.TenantResourceList{}
	if err := r.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing TenantResources: %w", err)
	}
	slices.SortFunc(list.Items, func(a, b v1alpha1.TenantResource) int { return strings.Compare(a.Name, b.Name) })
	var stamps []render.Stamp
	for _, tr := range list.Items {
		selects, err := selects(&tr, tenant)
		if err != nil {
			return nil, err
		}
		if !selects {
			continue
		}
		for i, o := range tr.Spec.Objects {
			stamps = append(stamps, render.Stamp{From: tr.Name, Field: fmt.Sprintf("spec.objects[%d]", i), Object: o.Raw})
		}
		for i, s := range tr.Spec.Secrets {
			stamp, err := r.secretCopy(ctx, tr.Name, i, s)
			if err != nil {
				return nil, err
			}
			stamps = append(stamps, stamp)
		}
	}
	return stamps, nil
}

// selects reports whether tr's selector matches the tenant's labels.
func selects(tr *v1alpha1.TenantResource, tenant *v1alpha1.Tenant) (bool, error) {
	selector, err := metav1.LabelSelectorAsSelector(&tr.Spec.TenantSelector)
	if err != nil {
		return false, fmt.Errorf("TenantResource %s: spec.tenantSelector: %w", tr.Name, err)
	}
	return selector.Matches(labels.Set(tenant.Labels)), nil
}

// secretCopy is the stamp of one Secret of the controller's namespace:
// its type and data only, never its other metadata. A service account
// token is never copied: it would hand tenants a platform identity.
func (r *TenantReconciler) secretCopy(ctx context.Context, from string, i int, s v1alpha1.SecretCopy) (render.Stamp, error) {
	field := fmt.Sprintf("spec.secrets[%d]", i)
	src := &corev1.Secret{}
	err := r.Get(ctx, types.NamespacedName{Namespace: r.Namespace, Name: s.Name}, src)
	if apierrors.IsNotFound(err) {
		return render.Stamp{}, fmt.Errorf("TenantResource %s: %s: Secret %s/%s not found; copies come from the controller's namespace", from, field, r.Namespace, s.Name)
	}
	if err != nil {
		return render.Stamp{}, fmt.Errorf("TenantResource %s: %s: reading Secret %s/%s: %w", from, field, r.Namespace, s.Name, err)
	}
	if src.Type == corev1.SecretTypeServiceAccountToken {
		return render.Stamp{}, fmt.Errorf("TenantResource %s: %s: Secret %s/%s is a service account token, which is never copied to tenants", from, field, r.Namespace, s.Name)
	}
	copied := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: s.CopyName()},
		Type:       src.Type,
		Data:       src.Data,
	}
	raw, err := json.Marshal(copied)
	if err != nil {
		return render.Stamp{}, err
	}
	return render.Stamp{From: from, Field: field, Object: raw, Verbatim: true}, nil
}

// tenantResourceEvents wakes the Tenants a TenantResource selects, before
// and after a change of its selector, so that stamps both arrive and
// leave.
func (r *TenantReconciler) tenantResourceEvents() handler.TypedEventHandler[client.Object, reconcile.Request] {
	enqueue := func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request], objs ...client.Object) {
		for _, obj := range objs {
			for _, req := range r.tenantsSelectedBy(ctx, obj.(*v1alpha1.TenantResource)) {
				q.Add(req)
			}
		}
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, q, e.Object)
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, q, e.ObjectOld, e.ObjectNew)
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, q, e.Object)
		},
	}
}

// tenantsSelectedBy lists the Tenants tr selects.
func (r *TenantReconciler) tenantsSelectedBy(ctx context.Context, tr *v1alpha1.TenantResource) []reconcile.Request {
	tenants := &v1alpha1.TenantList{}
	if err := r.List(ctx, tenants); err != nil {
		return nil
	}
	var out []reconcile.Request
	for i := range tenants.Items {
		// An invalid selector selects all, and each reconcile reports it.
		if ok, err := selects(tr, &tenants.Items[i]); ok || err != nil {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Name: tenants.Items[i].Name}})
		}
	}
	return out
}

// tenantsOf maps a guard kind's event to its Tenant, and a Secret of the
// controller's namespace to the Tenants that get copies of it.
func (r *TenantReconciler) tenantsOf(ctx context.Context, obj client.Object) []reconcile.Request {
	if _, isSecret := obj.(*corev1.Secret); !isSecret || obj.GetNamespace() != r.Namespace {
		return tenantOf(ctx, obj)
	}
	list := &v1alpha1.TenantResourceList{}
	if err := r.List(ctx, list); err != nil {
		return nil
	}
	var out []reconcile.Request
	for i := range list.Items {
		if slices.ContainsFunc(list.Items[i].Spec.Secrets, func(s v1alpha1.SecretCopy) bool { return s.Name == obj.GetName() }) {
			out = append(out, r.tenantsSelectedBy(ctx, &list.Items[i])...)
		}
	}
	return out
}
