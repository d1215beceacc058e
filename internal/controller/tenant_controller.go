package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/profile"
	"github.com/landlord-dev/landlord/internal/render"
)

// Requeue intervals: conflicts may clear when another tenant lets go, and
// Flux objects or namespaces being deleted finish on their own time.
const (
	conflictRequeue = 30 * time.Second
	deletionRequeue = 2 * time.Second
)

// TenantReconciler provisions each Tenant's namespaces, guard rails and
// Flux objects.
type TenantReconciler struct {
	client.Client
	// APIReader reads past the cache, where a miss must not be taken for
	// absence.
	APIReader client.Reader
	Recorder  events.EventRecorder
	// Profile fills what a Tenant leaves unset.
	Profile profile.Profile
	// Namespace is the controller's own, whence Secrets are copied.
	Namespace string
}

// +kubebuilder:rbac:groups=landlord.dev,resources=tenants,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=landlord.dev,resources=tenants/status;tenants/finalizers,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=namespaces;serviceaccounts;configmaps;resourcequotas;limitranges,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=networking.k8s.io,resources=networkpolicies,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=rolebindings;clusterrolebindings,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterroles,verbs=bind;create;update;patch;delete
// +kubebuilder:rbac:groups=source.toolkit.fluxcd.io,resources=gitrepositories,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=kustomize.toolkit.fluxcd.io,resources=kustomizations,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=notification.toolkit.fluxcd.io,resources=providers;alerts,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile brings one Tenant to its desired state and reports it.
func (r *TenantReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	start := time.Now()
	tenant := &v1alpha1.Tenant{}
	if err := r.Get(ctx, req.NamespacedName, tenant); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	before := tenant.DeepCopy()
	defer func() {
		if released(tenant) {
			return
		}
		// Metrics first: whoever reads the written status finds them agreeing.
		recordMetrics(tenant)
		if err := r.patchStatus(ctx, before, tenant); err != nil {
			retErr = errors.Join(retErr, err)
		}
		recordReconcile(tenant.Name, time.Since(start), retErr)
	}()

	if !tenant.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, tenant)
	}
	if controllerutil.AddFinalizer(tenant, v1alpha1.Finalizer) {
		patch := client.MergeFrom(before.DeepCopy())
		if err := r.Patch(ctx, tenant, patch, client.FieldOwner(FieldOwner)); err != nil {
			return ctrl.Result{}, fmt.Errorf("adding finalizer: %w", err)
		}
		before.Finalizers = tenant.Finalizers
		before.ResourceVersion = tenant.ResourceVersion
	}
	return r.reconcile(ctx, tenant)
}

// reconcile goes one way: observe what the cluster holds for the tenant,
// render once, converge and prune, then report. The spec is read through
// desired, the Tenant with the platform's defaults filled in, which is
// never written; status goes on tenant.
func (r *TenantReconciler) reconcile(ctx context.Context, tenant *v1alpha1.Tenant) (ctrl.Result, error) {
	setCondition(tenant, v1alpha1.ReconcilingCondition, metav1.ConditionTrue, "Progressing", "applying the tenant's render")
	desired := r.Profile.Apply(tenant)

	refused, err := r.judgeRoles(ctx, desired)
	if err != nil {
		return r.fail(tenant, "RoleRefused", err)
	}
	if refused != "" {
		// Not requeued: a change of the ClusterRole or the Tenant wakes it.
		r.stall(tenant, "RoleRefused", errors.New(refused))
		return ctrl.Result{}, r.convergeAdmission(ctx, desired)
	}
	claims, err := r.claimNamespaces(ctx, desired)
	if err != nil {
		return r.fail(tenant, "NamespaceError", err)
	}
	holdings := claims.holdings()
	var quotas map[string]*corev1.ResourceQuota
	if desired.Spec.Quota.TenantWide() {
		if quotas, err = r.quotaSeen(ctx, desired); err != nil {
			return r.fail(tenant, "QuotaError", err)
		}
		holdings.QuotaUsed, holdings.QuotaChecked = quotaStatuses(quotas)
	}
	if holdings.Stamps, err = r.stamps(ctx, desired); err != nil {
		return r.fail(tenant, "TenantResourceError", err)
	}
	if holdings.Served, err = r.served(desired); err != nil {
		r.stall(tenant, "InvalidSpec", err)
		return ctrl.Result{}, r.convergeAdmission(ctx, desired)
	}
	if holdings.ForeignAccounts, err = r.foreignAccounts(ctx, desired, holdings); err != nil {
		return r.fail(tenant, "ApplyFailed", err)
	}

	objects, err := render.Objects(desired, holdings)
	if err != nil {
		r.stall(tenant, "InvalidSpec", err)
		return ctrl.Result{}, r.convergeAdmission(ctx, desired)
	}
	if err := r.ensureTemplatesNamespace(ctx, objects); err != nil {
		return r.fail(tenant, "NamespaceError", err)
	}
	if err := r.lowerQuotas(ctx, objects, quotas); err != nil {
		return r.fail(tenant, "QuotaError", err)
	}
	foreign, err := r.convergeAll(ctx, desired, holdings, objects)
	if err != nil {
		if apierrors.IsInvalid(err) {
			r.stall(tenant, "InvalidSpec", err)
			return ctrl.Result{}, r.convergeAdmission(ctx, desired)
		}
		return r.fail(tenant, "ApplyFailed", err)
	}
	if err := r.prune(ctx, desired, objects, holdings); err != nil {
		return r.fail(tenant, "PruneFailed", err)
	}

	tenant.Status.Namespaces = claims.status()
	tenant.Status.Quota = quotaStatus(desired, holdings)
	if err := r.foldSources(ctx, tenant); err != nil {
		return r.fail(tenant, "SourceStatusFailed", err)
	}
	tenant.Status.ObservedGeneration = tenant.Generation
	apimeta.RemoveStatusCondition(&tenant.Status.Conditions, v1alpha1.ReconcilingCondition)
	apimeta.RemoveStatusCondition(&tenant.Status.Conditions, v1alpha1.StalledCondition)

	if msg := notAdopted(foreign); msg != "" {
		setCondition(tenant, v1alpha1.ReadyCondition, metav1.ConditionFalse, "NotAdopted", msg)
		r.Recorder.Eventf(tenant, nil, "Warning", "NotAdopted", "Reconcile", "%s", msg)
		return ctrl.Result{RequeueAfter: conflictRequeue}, nil
	}
	if msg := claims.conflicts(); msg != "" {
		setCondition(tenant, v1alpha1.ReadyCondition, metav1.ConditionFalse, "NamespaceConflict", msg)
		r.Recorder.Eventf(tenant, nil, "Warning", "NamespaceConflict", "Reconcile", "%s", msg)
		return ctrl.Result{RequeueAfter: conflictRequeue}, nil
	}
	if msg := unserved(render.UnservedClusterResources(tenant, holdings.Served)); msg != "" {
		setCondition(tenant, v1alpha1.ReadyCondition, metav1.ConditionFalse, "ClusterResourceNotServed", msg)
		return ctrl.Result{RequeueAfter: conflictRequeue}, nil
	}
	if msg := sourcesNotReady(tenant); msg != "" {
		setCondition(tenant, v1alpha1.ReadyCondition, metav1.ConditionFalse, "SourceNotReady", msg)
		return ctrl.Result{}, nil
	}
	setCondition(tenant, v1alpha1.ReadyCondition, metav1.ConditionTrue, "Provisioned",
		fmt.Sprintf("%d namespaces and %d sources provisioned", len(tenant.Status.Namespaces), len(tenant.Status.Sources)))
	return ctrl.Result{}, nil
}

// fail reports a transient error; the returned error requeues with backoff.
func (r *TenantReconciler) fail(tenant *v1alpha1.Tenant, reason string, err error) (ctrl.Result, error) {
	setCondition(tenant, v1alpha1.ReadyCondition, metav1.ConditionFalse, reason, err.Error())
	r.Recorder.Eventf(tenant, nil, "Warning", reason, "Reconcile", "%s", err.Error())
	return ctrl.Result{}, err
}

// stall marks a spec that cannot work until it changes; no requeue.
func (r *TenantReconciler) stall(tenant *v1alpha1.Tenant, reason string, err error) {
	msg := err.Error()
	setCondition(tenant, v1alpha1.StalledCondition, metav1.ConditionTrue, reason, msg)
	setCondition(tenant, v1alpha1.ReadyCondition, metav1.ConditionFalse, reason, msg)
	apimeta.RemoveStatusCondition(&tenant.Status.Conditions, v1alpha1.ReconcilingCondition)
	tenant.Status.ObservedGeneration = tenant.Generation
	r.Recorder.Eventf(tenant, nil, "Warning", reason, "Reconcile", "%s", msg)
}

// patchStatus writes the status once per reconcile, if it changed.
func (r *TenantReconciler) patchStatus(ctx context.Context, before, tenant *v1alpha1.Tenant) error {
	if equality.Semantic.DeepEqual(before.Status, tenant.Status) {
		return nil
	}
	if err := r.Status().Patch(ctx, tenant, client.MergeFrom(before), client.FieldOwner(FieldOwner)); err != nil {
		return client.IgnoreNotFound(fmt.Errorf("patching status: %w", err))
	}
	return nil
}

// released reports a Tenant let go by its finalizer: it is gone.
func released(tenant *v1alpha1.Tenant) bool {
	return !tenant.DeletionTimestamp.IsZero() && !controllerutil.ContainsFinalizer(tenant, v1alpha1.Finalizer)
}

func setCondition(tenant *v1alpha1.Tenant, kind string, status metav1.ConditionStatus, reason, msg string) {
	apimeta.SetStatusCondition(&tenant.Status.Conditions, metav1.Condition{
		Type:               kind,
		Status:             status,
		Reason:             reason,
		Message:            msg,
		ObservedGeneration: tenant.Generation,
	})
}
