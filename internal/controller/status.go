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
// While Flux is at work on one (Ready Unknown) the source keeps what was
// last reported: a fetch retried every interval rewrites nothing.
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
		if last, ok := lastReported(tenant, src.Name); ok && (progressing(repo.Status.Conditions) || progressing(ks.Status.Conditions)) {
			out = append(out, last)
			continue
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

// progressing reports a Flux object its controller is working on.
func progressing(conditions []metav1.Condition) bool {
	ready := apimeta.FindStatusCondition(conditions, v1alpha1.ReadyCondition)
	return ready != nil && ready.Status == metav1.ConditionUnknown
}

// lastReported is the source's status as the Tenant last reported it.
func lastReported(tenant *v1alpha1.Tenant, name string) (v1alpha1.SourceStatus, bool) {
	for _, s := range tenant.Status.Sources {
		if s.Name == name {
			return s, true
		}
	}
	return v1alpha1.SourceStatus{}, false
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
