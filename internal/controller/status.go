package controller

import (
	"context"
	"fmt"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

// foldSources reads each source's GitRepository and Kustomization and
// reports revision and readiness; a failing fetch outranks apply news.
func (r *TenantReconciler) foldSources(ctx context.Context, tenant *v1alpha1.Tenant) error {
	out := make([]v1alpha1.SourceStatus, 0, len(tenant.Spec.Sources))
	for _, src := range tenant.Spec.Sources {
		key := render.FluxKey(tenant, src.Name)
		st := v1alpha1.SourceStatus{Name: src.Name}

		repo := &sourcev1.GitRepository{}
		ks := &kustomizev1.Kustomization{}
		repoReady, repoMsg, err := r.readiness(ctx, key, repo, func() []metav1.Condition { return repo.Status.Conditions })
		if err != nil {
			return err
		}
		ksReady, ksMsg, err := r.readiness(ctx, key, ks, func() []metav1.Condition { return ks.Status.Conditions })
		if err != nil {
			return err
		}
		st.Revision = ks.Status.LastAppliedRevision
		st.Ready = repoReady && ksReady
		switch {
		case !repoReady:
			st.Message = "GitRepository: " + repoMsg
		case !ksReady:
			st.Message = "Kustomization: " + ksMsg
		default:
			st.Message = ksMsg
		}
		out = append(out, st)
	}
	tenant.Status.Sources = out
	return nil
}

// readiness reads a Flux object's Ready condition.
func (r *TenantReconciler) readiness(ctx context.Context, key client.ObjectKey, obj client.Object, conditions func() []metav1.Condition) (bool, string, error) {
	err := r.Get(ctx, key, obj)
	switch {
	case apierrors.IsNotFound(err) || apimeta.IsNoMatchError(err):
		return false, "not created yet", nil
	case err != nil:
		return false, "", fmt.Errorf("reading %T %s: %w", obj, key, err)
	}
	ready := apimeta.FindStatusCondition(conditions(), v1alpha1.ReadyCondition)
	if ready == nil {
		return false, "waiting for Flux to reconcile", nil
	}
	if ready.ObservedGeneration != 0 && ready.ObservedGeneration != obj.GetGeneration() {
		return false, "waiting for Flux to reconcile the latest spec", nil
	}
	return ready.Status == metav1.ConditionTrue, ready.Message, nil
}

// sourcesNotReady joins the messages of unready sources, or "".
func sourcesNotReady(tenant *v1alpha1.Tenant) string {
	var msgs []string
	for _, s := range tenant.Status.Sources {
		if !s.Ready {
			msgs = append(msgs, fmt.Sprintf("source %s: %s", s.Name, s.Message))
		}
	}
	return strings.Join(msgs, "; ")
}
