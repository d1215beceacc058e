package dashboard

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/audit"
)

// denialWindow is how far back the tenants page counts denials.
const denialWindow = time.Hour

// tenantRow is a Tenant's line on the tenants page.
type tenantRow struct {
	Name       string
	Ready      string // True, False or Unknown, as the condition says
	Reason     string
	Message    string
	Revisions  []string
	Namespaces []string
	Sources    []sourceCell
	Age        string
	Created    time.Time
	Deleting   bool
	Owners     []owner
	Labels     map[string]string
	// Denials counts the guard's refusals of the tenant's writes in the
	// last denialWindow; -1 when the viewer may not read them.
	Denials int
}

// owner is one of spec.owners, as the index shows and filters it.
type owner struct {
	Kind, Name string
}

func (o owner) String() string { return o.Kind + " " + o.Name }

type sourceCell struct {
	Name  string
	Ready bool
}

// tenantPage is everything the page of one tenant shows.
type tenantPage struct {
	Row         tenantRow
	Conditions  []metav1.Condition
	TenantQuota []usage
	Namespaces  []namespaceView
	Flux        []fluxObject
	Denials     []denial
	// DenialsNote says why denials could not be read.
	DenialsNote string
	Audit       *auditView
	AuditNote   string
}

// auditView puts the checks that did not pass first; those that did are
// folded away.
type auditView struct {
	Total           int
	Problems        []audit.Check
	Passed          []audit.Check
	Failed, Skipped int
}

func newAuditView(checks []audit.Check) *auditView {
	v := &auditView{Total: len(checks)}
	for _, c := range checks {
		switch c.Result {
		case audit.Pass:
			v.Passed = append(v.Passed, c)
			continue
		case audit.Fail:
			v.Failed++
		default:
			v.Skipped++
		}
		v.Problems = append(v.Problems, c)
	}
	return v
}

type namespaceView struct {
	Name    string
	Origin  string
	Ready   bool
	Message string
	Quotas  []quotaView
	// Note says why the namespace's quotas are not shown.
	Note string
}

type quotaView struct {
	Name      string
	Resources []usage
}

// usage is one resource of a quota: used against hard, in milli-units
// for the bar.
type usage struct {
	Resource             string
	Used, Hard           string
	UsedMilli, HardMilli int64
	Percent              int
}

type fluxObject struct {
	Kind, Namespace, Name string
	Ready                 string
	Reason, Message       string
	Revision              string
	Conditions            []metav1.Condition
}

type denial struct {
	When  time.Time
	Ago   string
	Rule  string
	Count int32
	// Object is the object written, when the Event names it.
	Object  string
	Message string
	// Targeted is another's write aimed at this tenant, not the tenant's own.
	Targeted bool
}

// reader reads on the viewer's behalf and shows only what it may get.
type reader struct {
	c client.Client
	// list is where the index lists Tenants: c, or a cache.
	list   client.Reader
	viewer Viewer
	now    time.Time
}

// tenants are the Tenants the viewer may get: every one for a viewer who
// may list them, read from r.list; else those the viewer owns, each one
// confirmed by asking whether the viewer may get it, so that what the
// index shows never exceeds what RBAC grants. The questions are as many as
// the tenants the viewer owns, not as the cluster holds, and are kept for
// decisionTTL.
func (r *reader) tenants(ctx context.Context) ([]v1alpha1.Tenant, error) {
	all, err := may(ctx, r.viewer, "list", v1alpha1.GroupVersion.Group, "tenants", "", "")
	if err != nil {
		return nil, err
	}
	if all {
		list := &v1alpha1.TenantList{}
		// The rows only read them: no copy of a cache's objects.
		if err := r.list.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
			return nil, fmt.Errorf("listing tenants: %w", err)
		}
		return list.Items, nil
	}
	owned, err := r.viewer.Owned(ctx, r.list)
	if err != nil {
		return nil, err
	}
	var seen []v1alpha1.Tenant
	for _, t := range owned {
		ok, err := may(ctx, r.viewer, "get", v1alpha1.GroupVersion.Group, "tenants", "", t.Name)
		if err != nil {
			return nil, err
		}
		if ok {
			seen = append(seen, t)
		}
	}
	return seen, nil
}

// tenant is the named Tenant, or nil when the viewer may not get it or it
// does not exist: both answer alike.
func (r *reader) tenant(ctx context.Context, name string) (*v1alpha1.Tenant, error) {
	ok, err := may(ctx, r.viewer, "get", v1alpha1.GroupVersion.Group, "tenants", "", name)
	if err != nil || !ok {
		return nil, err
	}
	t := &v1alpha1.Tenant{}
	if err := r.c.Get(ctx, client.ObjectKey{Name: name}, t); apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("getting tenant %s: %w", name, err)
	}
	return t, nil
}

// rows are the tenants page, with each tenant's denials of the last hour.
func (r *reader) rows(ctx context.Context) ([]tenantRow, error) {
	tenants, err := r.tenants(ctx)
	if err != nil {
		return nil, err
	}
	events, err := r.tenantEvents(ctx, "")
	counts := map[string]int{}
	for _, d := range denials(events, r.now) {
		if !d.Targeted && r.now.Sub(d.When) <= denialWindow {
			counts[d.tenant] += int(d.Count)
		}
	}
	rows := make([]tenantRow, 0, len(tenants))
	for i := range tenants {
		row := r.row(&tenants[i])
		row.Denials = counts[row.Name]
		if err != nil {
			row.Denials = -1
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func (r *reader) row(t *v1alpha1.Tenant) tenantRow {
	row := tenantRow{Name: t.Name, Ready: "Unknown", Message: "not reconciled yet by the Landlord controller",
		Age: duration.HumanDuration(r.now.Sub(t.CreationTimestamp.Time)), Created: t.CreationTimestamp.Time,
		Deleting: !t.DeletionTimestamp.IsZero(), Labels: t.Labels}
	for _, o := range t.Spec.Owners {
		name := o.Name
		if o.Kind == rbacv1.ServiceAccountKind {
			name = o.Namespace + "/" + o.Name
		}
		row.Owners = append(row.Owners, owner{Kind: o.Kind, Name: name})
	}
	if c := apimeta.FindStatusCondition(t.Status.Conditions, v1alpha1.ReadyCondition); c != nil {
		row.Ready, row.Reason, row.Message = string(c.Status), c.Reason, c.Message
	}
	for _, ns := range t.Status.Namespaces {
		row.Namespaces = append(row.Namespaces, ns.Name)
	}
	for _, s := range t.Status.Sources {
		row.Sources = append(row.Sources, sourceCell{Name: s.Name, Ready: s.Ready})
		if s.Revision != "" {
			row.Revisions = append(row.Revisions, s.Revision)
		}
	}
	return row
}

// page reads one tenant's page; nil when the viewer may not see it.
func (r *reader) page(ctx context.Context, name string) (*tenantPage, error) {
	t, err := r.tenant(ctx, name)
	if err != nil || t == nil {
		return nil, err
	}
	p := &tenantPage{Row: r.row(t), Conditions: t.Status.Conditions}
	if q := t.Status.Quota; q != nil {
		p.TenantQuota = usages(q.Hard, q.Used)
	}
	for _, ns := range t.Status.Namespaces {
		view, flux, err := r.namespace(ctx, ns)
		if err != nil {
			return nil, err
		}
		p.Namespaces = append(p.Namespaces, view)
		p.Flux = append(p.Flux, flux...)
	}
	events, err := r.tenantEvents(ctx, t.Name)
	if err != nil {
		p.DenialsNote = err.Error()
	}
	for _, d := range denials(events, r.now) {
		p.Denials = append(p.Denials, d.denial)
		p.Row.Denials += int(d.Count)
	}
	return p, nil
}

// namespace reads a tenant namespace's quotas and Flux objects, each kind
// only if the viewer may list it there.
func (r *reader) namespace(ctx context.Context, ns v1alpha1.NamespaceStatus) (namespaceView, []fluxObject, error) {
	view := namespaceView{Name: ns.Name, Origin: string(ns.Origin), Ready: ns.Ready, Message: ns.Message}
	ok, err := may(ctx, r.viewer, "list", "", "resourcequotas", ns.Name, "")
	if err != nil {
		return view, nil, err
	}
	if ok {
		quotas := &corev1.ResourceQuotaList{}
		if err := r.c.List(ctx, quotas, client.InNamespace(ns.Name)); err != nil {
			view.Note = "quotas: " + err.Error()
		}
		for _, q := range quotas.Items {
			view.Quotas = append(view.Quotas, quotaView{Name: q.Name, Resources: usages(q.Status.Hard, q.Status.Used)})
		}
	} else {
		view.Note = "you may not list its quotas"
	}
	var flux []fluxObject
	for _, kind := range []struct {
		group, resource string
		list            client.ObjectList
		objects         func(client.ObjectList) []fluxObject
	}{
		{sourcev1.GroupVersion.Group, "gitrepositories", &sourcev1.GitRepositoryList{}, func(l client.ObjectList) []fluxObject {
			var out []fluxObject
			for _, o := range l.(*sourcev1.GitRepositoryList).Items {
				f := fluxView(sourcev1.GitRepositoryKind, &o, o.Status.Conditions)
				if o.Status.Artifact != nil {
					f.Revision = o.Status.Artifact.Revision
				}
				out = append(out, f)
			}
			return out
		}},
		{kustomizev1.GroupVersion.Group, "kustomizations", &kustomizev1.KustomizationList{}, func(l client.ObjectList) []fluxObject {
			var out []fluxObject
			for _, o := range l.(*kustomizev1.KustomizationList).Items {
				f := fluxView(kustomizev1.KustomizationKind, &o, o.Status.Conditions)
				f.Revision = o.Status.LastAppliedRevision
				out = append(out, f)
			}
			return out
		}},
	} {
		ok, err := may(ctx, r.viewer, "list", kind.group, kind.resource, ns.Name, "")
		if err != nil {
			return view, nil, err
		}
		if !ok {
			continue
		}
		if err := r.c.List(ctx, kind.list, client.InNamespace(ns.Name)); err != nil {
			// Flux's CRDs may be missing: the page says so instead of failing.
			flux = append(flux, fluxObject{Kind: kind.resource, Namespace: ns.Name, Ready: "Unknown", Message: err.Error()})
			continue
		}
		flux = append(flux, kind.objects(kind.list)...)
	}
	return view, flux, nil
}

func fluxView(kind string, obj client.Object, conditions []metav1.Condition) fluxObject {
	f := fluxObject{Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName(), Ready: "Unknown", Conditions: conditions}
	if c := apimeta.FindStatusCondition(conditions, "Ready"); c != nil {
		f.Ready, f.Reason, f.Message = string(c.Status), c.Reason, c.Message
	}
	return f
}

// tenantEvents are the Events about the named Tenant, or every Tenant when
// name is empty. The webhook records them with the events API, which files
// those of cluster-scoped objects in default.
func (r *reader) tenantEvents(ctx context.Context, name string) ([]corev1.Event, error) {
	fields := client.MatchingFields{"involvedObject.kind": "Tenant"}
	if name != "" {
		fields["involvedObject.name"] = name
	}
	list := &corev1.EventList{}
	if err := r.c.List(ctx, list, client.InNamespace(metav1.NamespaceDefault), fields); err != nil {
		return nil, fmt.Errorf("reading the guard's events: %w", err)
	}
	return list.Items, nil
}

// tenantDenial is a denial and the tenant its Event is about.
type tenantDenial struct {
	denial
	tenant string
}

// denials are the guard's Events among events, newest first: Denied, the
// tenant's own write refused with the rule as reason, and Targeted, a
// write aimed at the tenant with the rule as action.
func denials(events []corev1.Event, now time.Time) []tenantDenial {
	var out []tenantDenial
	for _, e := range events {
		d := tenantDenial{tenant: e.InvolvedObject.Name, denial: denial{Message: e.Message, Count: max(e.Count, 1), When: e.LastTimestamp.Time}}
		switch {
		case e.Action == "Denied":
			d.Rule = e.Reason
		case e.Reason == "Targeted":
			d.Rule, d.Targeted = e.Action, true
		default:
			continue
		}
		if e.Series != nil {
			d.Count, d.When = e.Series.Count, e.Series.LastObservedTime.Time
		}
		if d.When.IsZero() {
			d.When = e.EventTime.Time
		}
		if e.Related != nil {
			d.Object = e.Related.Kind + " " + e.Related.Name
			if e.Related.Namespace != "" {
				d.Object = e.Related.Kind + " " + e.Related.Namespace + "/" + e.Related.Name
			}
		}
		d.Ago = duration.HumanDuration(now.Sub(d.When))
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].When.After(out[j].When) })
	return out
}

// usages pairs a quota's hard limits with their use, by resource name.
func usages(hard, used corev1.ResourceList) []usage {
	var out []usage
	for name, h := range hard {
		u := used[name]
		x := usage{Resource: string(name), Hard: h.String(), Used: u.String(), UsedMilli: u.MilliValue(), HardMilli: h.MilliValue()}
		if x.HardMilli > 0 {
			x.Percent = int(min(100, x.UsedMilli*100/x.HardMilli))
		} else if x.UsedMilli > 0 {
			x.Percent = 100
		}
		out = append(out, x)
	}
	slices.SortFunc(out, func(a, b usage) int { return strings.Compare(a.Resource, b.Resource) })
	return out
}
