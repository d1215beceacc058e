package controller

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/render"
)

// ensureTemplatesNamespace creates render.TemplatesNamespace when the render
// puts objects there. It is the platform's, shared by every tenant's
// templates, so it carries no tenant label: no Tenant owns or prunes it.
func (r *TenantReconciler) ensureTemplatesNamespace(ctx context.Context, objects []client.Object) error {
	if !slices.ContainsFunc(objects, func(o client.Object) bool { return o.GetNamespace() == render.TemplatesNamespace }) {
		return nil
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: render.TemplatesNamespace}}
	if err := r.Get(ctx, client.ObjectKeyFromObject(ns), ns); err == nil || !apierrors.IsNotFound(err) {
		return client.IgnoreNotFound(err)
	}
	if err := r.Create(ctx, ns, client.FieldOwner(FieldOwner)); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", render.TemplatesNamespace, err)
	}
	return nil
}
