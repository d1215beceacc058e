package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// claims records which namespaces this tenant may manage.
type claims struct {
	tenant  *v1alpha1.Tenant
	adopted []string // self-service namespaces the tenant holds
	excess  []string // adopted ones beyond a lowered maxNamespaces, kept
	// terminating are the tenant's self-service namespaces being deleted:
	// still held, still counted and reported until they are gone.
	terminating map[string]string
	refusals    map[string]string // namespace -> why it is not this tenant's
}

// claimNamespaces judges the spec namespaces and the self-service ones the
// tenant created. Namespaces of another tenant or that predate Landlord are
// never taken over.
func (r *TenantReconciler) claimNamespaces(ctx context.Context, tenant *v1alpha1.Tenant) (*claims, error) {
	c := &claims{tenant: tenant, refusals: map[string]string{}, terminating: map[string]string{}}
	for _, name := range tenant.NamespaceNames() {
		if name == r.Namespace {
			// The Tenant's API reserves the default one; the chart may be
			// installed in any.
			c.refusals[name] = fmt.Sprintf("namespace %s is where Landlord's controller runs; it is never a tenant's", name)
			continue
		}
		ns := &corev1.Namespace{}
		err := r.Get(ctx, client.ObjectKey{Name: name}, ns)
		switch {
		case apierrors.IsNotFound(err):
			// Created with the render, never applied onto another's.
		case err != nil:
			return nil, fmt.Errorf("reading namespace %s: %w", name, err)
		default:
			if why := refusal(tenant, ns); why != "" {
				c.refusals[name] = why
			}
		}
	}
	labelled := &corev1.NamespaceList{}
	if err := r.List(ctx, labelled, client.MatchingFields{tenantIndex: tenant.Name}); err != nil {
		return nil, fmt.Errorf("listing the tenant's namespaces: %w", err)
	}
	c.judgeSelfService(labelled.Items)
	return c, nil
}

// judgeSelfService decides which namespaces the tenant created are its
// self-service ones. Once adopted (labelled for the tenant, managed by
// Landlord, origin SelfService) a namespace stays the tenant's whatever the
// prefix becomes, and above a lowered maxNamespaces it is kept and
// reported, never dropped: an ordinary edit of a Tenant deletes nothing the
// tenant created. The prefix and the limit judge new ones only, oldest
// first; without spec.selfService the adopted ones leave, and prune
// releases them. The admission guard (tenancy.HoldsSelfService) holds the
// same rule; this is the controller's own check, so a bypassed guard gains
// nothing.
func (c *claims) judgeSelfService(labelled []corev1.Namespace) {
	spec := c.tenant.Spec.SelfService
	var candidates []corev1.Namespace
	for _, ns := range labelled {
		managed := ns.Labels[v1alpha1.ManagedByLabel] == v1alpha1.ManagedByValue
		switch {
		case slices.Contains(c.tenant.NamespaceNames(), ns.Name):
		case !ns.DeletionTimestamp.IsZero():
			c.terminating[ns.Name] = terminatingMessage(&ns)
		case managed && ns.Labels[v1alpha1.OriginLabel] != string(v1alpha1.NamespaceOriginSelfService):
		case spec == nil && managed:
			// Left the spec with spec.selfService: released by prune.
		case spec == nil:
			c.refusals[ns.Name] = fmt.Sprintf("namespace %s carries the tenant's label but spec.selfService is not set", ns.Name)
		case tenancy.Adopted(&ns):
			candidates = append(candidates, ns)
		case !strings.HasPrefix(ns.Name, spec.Prefix):
			c.refusals[ns.Name] = fmt.Sprintf("namespace %s lacks the self-service prefix %q", ns.Name, spec.Prefix)
		default:
			candidates = append(candidates, ns)
		}
	}
	// Adopted ones first, each group oldest first: a new one never
	// displaces a namespace the tenant holds already.
	slices.SortStableFunc(candidates, func(a, b corev1.Namespace) int {
		if x, y := tenancy.Adopted(&a), tenancy.Adopted(&b); x != y {
			if x {
				return -1
			}
			return 1
		}
		if n := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); n != 0 {
			return n
		}
		return strings.Compare(a.Name, b.Name)
	})
	for i, ns := range candidates {
		switch {
		case i < int(spec.MaxNamespaces):
			c.adopted = append(c.adopted, ns.Name)
		case tenancy.Adopted(&ns):
			c.adopted = append(c.adopted, ns.Name)
			c.excess = append(c.excess, ns.Name)
		default:
			c.refusals[ns.Name] = fmt.Sprintf("namespace %s is over the self-service limit of %d", ns.Name, spec.MaxNamespaces)
		}
	}
}

// terminatingMessage says a namespace is being deleted, and what holds it
// when it is more than Kubernetes' own finalizer.
func terminatingMessage(ns *corev1.Namespace) string {
	msg := fmt.Sprintf("namespace %s is terminating", ns.Name)
	if len(ns.Finalizers) > 0 {
		msg += ", held by finalizers " + strings.Join(ns.Finalizers, ", ")
	}
	return msg
}

// excessMessage reports adopted namespaces beyond maxNamespaces, or "".
func (c *claims) excessMessage() string {
	if len(c.excess) == 0 {
		return ""
	}
	return fmt.Sprintf("self-service namespaces %s exceed spec.selfService.maxNamespaces=%d: kept, none is deleted; no new one may be created until the tenant deletes some or the limit is raised",
		strings.Join(c.excess, ", "), c.tenant.Spec.SelfService.MaxNamespaces)
}

// heir is the Tenant, other than this one and not being deleted, whose
// spec.namespaces lists ns: a namespace that leaves this tenant goes to it,
// data and all, rather than being deleted or released. The first by name
// decides between several.
func (r *TenantReconciler) heir(ctx context.Context, tenant *v1alpha1.Tenant, ns string) (*v1alpha1.Tenant, error) {
	list := &v1alpha1.TenantList{}
	if err := r.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing tenants: %w", err)
	}
	slices.SortFunc(list.Items, func(a, b v1alpha1.Tenant) int { return strings.Compare(a.Name, b.Name) })
	for i := range list.Items {
		t := &list.Items[i]
		if t.Name != tenant.Name && t.DeletionTimestamp.IsZero() && slices.Contains(t.NamespaceNames(), ns) {
			return t, nil
		}
	}
	return nil, nil
}

// keepsData reports whether a namespace leaving the tenant, with no heir,
// is released rather than deleted: always under deletionPolicy Retain, and
// for a namespace the tenant created itself unless the Tenant is being
// deleted, since an edit of the Tenant must never delete it.
func keepsData(tenant *v1alpha1.Tenant, ns client.Object) bool {
	selfService := ns.GetLabels()[v1alpha1.OriginLabel] == string(v1alpha1.NamespaceOriginSelfService)
	return tenant.Retains() || selfService && tenant.DeletionTimestamp.IsZero()
}

// refusal says why an existing namespace is not the tenant's, or "".
func refusal(tenant *v1alpha1.Tenant, ns *corev1.Namespace) string {
	owner := ns.Labels[v1alpha1.TenantLabel]
	switch {
	case !ns.DeletionTimestamp.IsZero():
		return fmt.Sprintf("namespace %s is terminating", ns.Name)
	case tenancy.Made(tenant, ns):
		return ""
	case owner != "" && owner != tenant.Name:
		return fmt.Sprintf("namespace %s belongs to tenant %s", ns.Name, owner)
	default:
		return fmt.Sprintf("namespace %s exists and was not created by Landlord; it is never taken over", ns.Name)
	}
}

// holdings is what the render needs to know of the tenant's namespaces.
func (c *claims) holdings() render.Holdings {
	h := render.Holdings{SelfService: c.adopted}
	for name := range c.refusals {
		h.Refused = append(h.Refused, name)
	}
	slices.Sort(h.Refused)
	return h
}

// status lists the tenant's namespaces, assigned ones first, with their
// readiness.
func (c *claims) status() []v1alpha1.NamespaceStatus {
	out := make([]v1alpha1.NamespaceStatus, 0, len(c.tenant.Spec.Namespaces)+len(c.adopted))
	for _, name := range c.tenant.NamespaceNames() {
		out = append(out, c.namespaceStatus(name, v1alpha1.NamespaceOriginPlatform))
	}
	var selfService []string
	for name := range c.refusals {
		if !slices.Contains(c.tenant.NamespaceNames(), name) {
			selfService = append(selfService, name)
		}
	}
	selfService = append(selfService, c.adopted...)
	for name := range c.terminating {
		selfService = append(selfService, name)
	}
	slices.Sort(selfService)
	for _, name := range selfService {
		out = append(out, c.namespaceStatus(name, v1alpha1.NamespaceOriginSelfService))
	}
	return out
}

func (c *claims) namespaceStatus(name string, origin v1alpha1.NamespaceOrigin) v1alpha1.NamespaceStatus {
	why := c.refusals[name]
	if msg, ok := c.terminating[name]; ok {
		why = msg
	}
	st := v1alpha1.NamespaceStatus{Name: name, Origin: origin, Ready: why == "", Message: why}
	if slices.Contains(c.excess, name) {
		st.Message = fmt.Sprintf("namespace %s is over the self-service limit of %d: kept", name, c.tenant.Spec.SelfService.MaxNamespaces)
	}
	return st
}

// conflicts joins the refusals by namespace name and the excess over the
// self-service limit, or "" when there are none.
func (c *claims) conflicts() string {
	var msgs []string
	for _, ns := range c.status() {
		if _, going := c.terminating[ns.Name]; !ns.Ready && !going {
			msgs = append(msgs, ns.Message)
		}
	}
	if msg := c.excessMessage(); msg != "" {
		msgs = append(msgs, msg)
	}
	return strings.Join(msgs, "; ")
}
