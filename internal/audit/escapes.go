package audit

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

// escape is one write a tenant's Git content could hold that must not be
// admitted.
type escape struct {
	name string
	try  func(ctx context.Context, c client.Client) error
}

// escapes are the guard's attacks, aimed at tenant t, into neighbour.
func escapesFor(t *v1alpha1.Tenant, neighbour string) []escape {
	home := t.HomeNamespace()
	meta := metav1.ObjectMeta{Namespace: home, Name: "landlord-audit"}
	minute := metav1.Duration{Duration: time.Minute}
	create := func(obj client.Object) func(context.Context, client.Client) error {
		return func(ctx context.Context, c client.Client) error { return c.Create(ctx, obj, client.DryRunAll) }
	}
	ks := func(edit func(*kustomizev1.Kustomization)) func(context.Context, client.Client) error {
		k := &kustomizev1.Kustomization{ObjectMeta: meta, Spec: kustomizev1.KustomizationSpec{
			Interval: minute, Prune: true, ServiceAccountName: t.ReconcilerName(),
			SourceRef: kustomizev1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: "app"},
		}}
		edit(k)
		return create(k)
	}
	escapes := []escape{
		{"kustomization sourcing from flux-system", ks(func(k *kustomizev1.Kustomization) { k.Spec.SourceRef.Namespace = "flux-system" })},
		{"kustomization applying into " + neighbour, ks(func(k *kustomizev1.Kustomization) { k.Spec.TargetNamespace = neighbour })},
		{"kustomization with a kubeConfig", ks(func(k *kustomizev1.Kustomization) {
			k.Spec.KubeConfig = &fluxmeta.KubeConfigReference{SecretRef: &fluxmeta.SecretKeyReference{Name: "remote"}}
		})},
		{"helmrelease installing into " + neighbour, create(&helmv2.HelmRelease{ObjectMeta: meta, Spec: helmv2.HelmReleaseSpec{
			Interval: minute, TargetNamespace: neighbour, ServiceAccountName: t.ReconcilerName(),
			Chart: &helmv2.HelmChartTemplate{Spec: helmv2.HelmChartTemplateSpec{Chart: "app",
				SourceRef: helmv2.CrossNamespaceObjectReference{Kind: sourcev1.HelmRepositoryKind, Name: "charts"}}},
		}})},
		{"role binding of a service account of " + neighbour, create(&rbacv1.RoleBinding{ObjectMeta: meta,
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: v1alpha1.DefaultRole},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "default", Namespace: neighbour}},
		})},
		{"cluster role binding", create(&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "landlord-audit-" + t.Name},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: t.ReconcilerName(), Namespace: home}},
		})},
		{"annotating namespace kube-system", func(ctx context.Context, c client.Client) error {
			patch := []byte(`{"metadata":{"annotations":{"landlord.dev/audit":"escape"}}}`)
			return c.Patch(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kube-system"}}, client.RawPatch(types.MergePatchType, patch), client.DryRunAll)
		}},
		{"namespace outside self-service", create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name: "landlord-audit-" + t.Name, Labels: map[string]string{v1alpha1.TenantLabel: t.Name}}})},
		// Restricted Pod Security admits it, so the identity is what is judged.
		{"pod running as the reconciler", create(&corev1.Pod{ObjectMeta: meta, Spec: corev1.PodSpec{
			ServiceAccountName: t.ReconcilerName(),
			SecurityContext:    &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/app:1", SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			}}},
		}})},
	}
	if t.Isolated() {
		escapes = append(escapes, escape{"opening the managed NetworkPolicy", func(ctx context.Context, c client.Client) error {
			np := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: home, Name: render.NetworkPolicyName}}
			np.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
			np.Spec.Ingress = []networkingv1.NetworkPolicyIngressRule{{}}
			return c.Patch(ctx, np, client.Merge, client.DryRunAll)
		}})
	}
	if !slices.Contains(t.Spec.Network.AllowServiceTypes, corev1.ServiceTypeNodePort) {
		escapes = append(escapes, escape{"NodePort service", create(&corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80}},
		}})})
	}
	if len(t.Spec.AllowedSources) > 0 {
		escapes = append(escapes, escape{"git repository outside allowedSources", create(&sourcev1.GitRepository{ObjectMeta: meta,
			Spec: sourcev1.GitRepositorySpec{URL: "https://landlord-audit.invalid/escape", Interval: minute}})})
	}
	return escapes
}

// ruleID finds the guard's rule id in a denial.
var ruleID = regexp.MustCompile(`\bLL\d{3}\b`)

// escapes tries every escape as the tenant's reconciler, as Flux would
// apply it, in dry-run: the API server authorizes and admits the request
// for real and persists nothing.
func (a *Auditor) escapes(ctx context.Context, t *v1alpha1.Tenant, neighbour string) ([]Check, error) {
	id := reconcilerOf(t)
	c, err := a.clientAs(id)
	if err != nil {
		return nil, err
	}
	var checks []Check
	for _, e := range escapesFor(t, neighbour) {
		check := Check{Tenant: t.Name, Kind: "escape", Name: e.name}
		err := e.try(ctx, c)
		status := &apierrors.StatusError{}
		switch {
		case err == nil:
			check.Result, check.Detail = Fail, "admitted"
		case apierrors.IsForbidden(err) && errors.As(err, &status):
			check.Result, check.Detail = Pass, "refused by "+refuser(status)
		case apierrors.IsNotFound(err) && strings.Contains(err.Error(), "denied the request"):
			// The guard answers a write to a namespace not the tenant's as
			// NotFound, so that it tells nothing of what exists.
			check.Result, check.Detail = Pass, "refused by the guard (LL009, answered as NotFound)"
		default:
			check.Result, check.Detail = Fail, fmt.Sprintf("not refused by policy: %v", err)
		}
		checks = append(checks, check)
	}
	return checks, nil
}

// refuser names what stopped a request: a guard rule, Pod Security, or RBAC.
func refuser(status *apierrors.StatusError) string {
	msg := status.ErrStatus.Message
	if id := ruleID.FindString(msg); id != "" {
		return "the guard (" + id + ")"
	}
	if strings.Contains(msg, "violates PodSecurity") {
		return "Pod Security admission"
	}
	return "RBAC"
}
