package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/census"
	"github.com/landlord-dev/landlord/internal/kinds"
	"github.com/landlord-dev/landlord/internal/policy"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// auditName marks what the census probes name: hosts, paths, namespaces.
const auditName = "landlord-audit"

// census sends, for every census row a rule judges, the row's attack at
// every place its field sits, as the tenant's reconciler in dry run. What
// the policy, run here on the same tenants and namespaces, refuses with
// the row's rule the API server must refuse; a probe the tenant's own spec
// allows (its allowed sources, classes, service types...) is not sent. A
// row is one check, where the tenant has a place to probe it.
func (a *Auditor) census(ctx context.Context, t *v1alpha1.Tenant, all []v1alpha1.Tenant) ([]Check, error) {
	id := reconcilerOf(t)
	c, err := a.clientAs(id)
	if err != nil {
		return nil, err
	}
	namespaces := &corev1.NamespaceList{}
	if err := a.Client.List(ctx, namespaces); err != nil {
		return nil, fmt.Errorf("listing namespaces: %w", err)
	}
	tenants := tenancy.Resolver{Store: liveStore{tenants: all, namespaces: namespaces.Items}}
	user := authenticationv1.UserInfo{Username: id.user, Groups: id.groups}
	values := valuesFor(t, neighbour(t, all))
	var checks []Check
	for _, r := range census.Rows {
		if r.Rule == "" {
			continue
		}
		check := Check{Tenant: t.Name, Kind: "census", Name: r.On.String() + " " + r.Path + " (" + r.Rule + ")"}
		probes, err := census.Probes(r, r.Attack, values)
		if err != nil {
			return nil, err
		}
		// The same places without the attack: a base the rule refuses
		// already would prove nothing of the field.
		bases, err := census.Probes(r, "{}", values)
		if err != nil {
			return nil, err
		}
		var refused, failed []string
		for i, p := range probes {
			if k, _ := kinds.Lookup(p.Kind); !k.Judged {
				continue
			}
			offline, err := judge(p, user, tenants)
			if err != nil {
				return nil, err
			}
			before, err := judge(bases[i], user, tenants)
			if err != nil {
				return nil, err
			}
			// A kind refused whole has its base for attack.
			if !slices.Contains(offline, r.Rule) || r.Attack != "{}" && slices.Contains(before, r.Rule) {
				continue
			}
			sent := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(p.Object)}
			err = c.Create(ctx, sent, client.DryRunAll)
			status := &apierrors.StatusError{}
			switch {
			case meta.IsNoMatchError(err):
				continue // a kind the cluster does not serve, such as the Gateway API's
			case err == nil:
				// Admitted as the API server would store it: a mutating
				// webhook (LL001's default) or a disabled feature's field
				// dropped may have taken the attack out.
				stored, err := judge(census.Probe{Kind: p.Kind, At: p.At, Object: sent.Object}, user, tenants)
				if err != nil {
					return nil, err
				}
				if slices.Contains(stored, r.Rule) {
					failed = append(failed, p.Kind.Kind+" "+p.At+": admitted")
					continue
				}
				refused = append(refused, "the API server or a mutating webhook, which took the attack out")
			case (apierrors.IsForbidden(err) || apierrors.IsNotFound(err) && strings.Contains(err.Error(), "denied the request")) && errors.As(err, &status):
				by := refuser(status)
				if said := ruleID.FindAllString(status.ErrStatus.Message, -1); strings.HasPrefix(by, "the guard") && !slices.Contains(said, r.Rule) {
					// The API server names one policy's denial: where the base
					// is refused already, that may be the one it names.
					if slices.ContainsFunc(said, func(id string) bool { return slices.Contains(before, id) }) {
						continue
					}
					failed = append(failed, p.Kind.Kind+" "+p.At+": refused by the guard, not by "+r.Rule+": "+status.ErrStatus.Message)
					continue
				}
				refused = append(refused, by)
			default:
				failed = append(failed, fmt.Sprintf("%s %s: not refused by policy: %v", p.Kind.Kind, p.At, err))
			}
		}
		switch {
		case len(failed) > 0:
			check.Result, check.Detail = Fail, strings.Join(failed, "; ")
		case len(refused) == 0:
			// The tenant's spec allows the attack, or the rule refuses
			// the probe's base already: the row is no check of this tenant.
			continue
		default:
			slices.Sort(refused)
			check.Result, check.Detail = Pass, fmt.Sprintf("refused at %d places by %s", len(refused), strings.Join(slices.Compact(refused), ", "))
		}
		checks = append(checks, check)
	}
	return checks, nil
}

// judge is the policy's verdict on a probe's creation, as rule ids.
func judge(p census.Probe, user authenticationv1.UserInfo, tenants policy.Tenants) ([]string, error) {
	k, _ := kinds.Lookup(p.Kind)
	raw, err := json.Marshal(p.Object)
	if err != nil {
		return nil, err
	}
	obj, err := policy.Decode(k.GroupVersionKind, raw)
	if err != nil {
		return nil, err
	}
	u := unstructured.Unstructured{Object: p.Object}
	var ids []string
	for _, e := range policy.Evaluate(policy.Request{Operation: admissionv1.Create, Namespace: u.GetNamespace(), Object: obj,
		Kind: p.Kind, Name: u.GetName(), User: user}, tenants) {
		ids = append(ids, policy.RuleID(e))
	}
	return ids, nil
}

// valuesFor fills the census's probes for tenant t writing in its home
// namespace: its allowed sources, hostnames and approved objects where it
// has them, so that only the probed field is what the guard refuses.
func valuesFor(t *v1alpha1.Tenant, foreign string) census.Values {
	names := t.NamespaceNames()
	v := census.Values{
		Namespace: t.HomeNamespace(), Sibling: names[len(names)-1], Foreign: foreign,
		Tenant: t.Name, Reconciler: t.ReconcilerName(),
		Git: "https://git.example.com/" + auditName, OCI: "oci://registry.example.com/" + auditName,
		Hook: "https://hooks.example.com/" + auditName, BucketEndpoint: "minio.example.com", BucketName: auditName,
		Host: auditName + ".invalid", GatewayClass: auditName,
		Approved: map[schema.GroupKind]string{},
	}
	if ss := t.Spec.SelfService; ss != nil {
		v.SelfService = ss.Prefix + auditName
	}
	for _, pattern := range t.Spec.AllowedSources {
		u := strings.ReplaceAll(pattern, "*", auditName)
		switch {
		case strings.HasPrefix(u, "oci://") && v.OCI == "oci://registry.example.com/"+auditName:
			v.OCI = u
		case strings.HasPrefix(u, "https://") && v.Git == "https://git.example.com/"+auditName:
			v.Git, v.Hook = u, u
		}
		if host, bucket, ok := strings.Cut(strings.TrimPrefix(pattern, "https://"), "/"); ok && strings.HasPrefix(pattern, "https://") && !strings.ContainsAny(pattern, "*") && !strings.Contains(bucket, "/") {
			v.BucketEndpoint, v.BucketName = host, bucket
		}
	}
	v.Image = strings.TrimPrefix(v.OCI, "oci://")
	if im := t.Spec.Images; im != nil && len(im.Allowed) > 0 {
		v.ContainerImage = im.Allowed[0] + "/" + auditName
	}
	if n := t.Spec.Notifications; n != nil && n.Address != "" {
		v.Hook = n.Address
	}
	if in := t.Spec.Ingress; in != nil && len(in.Hostnames) > 0 {
		v.Host = strings.Replace(in.Hostnames[0], "*", auditName, 1)
	}
	if g := t.Spec.Gateways; g != nil && len(g.Classes) > 0 {
		v.GatewayClass = g.Classes[0]
	}
	for _, cr := range t.Spec.ClusterResources {
		if len(cr.Names) > 0 {
			v.Approved[schema.GroupKind{Group: cr.APIGroup, Kind: cr.Kind}] = cr.Names[0]
		}
	}
	return v
}

// liveStore is tenancy's Store over the Tenants and Namespaces the audit
// listed.
type liveStore struct {
	tenants    []v1alpha1.Tenant
	namespaces []corev1.Namespace
}

var _ tenancy.Store = liveStore{}

func (s liveStore) Tenant(name string) *v1alpha1.Tenant {
	for i := range s.tenants {
		if s.tenants[i].Name == name {
			return &s.tenants[i]
		}
	}
	return nil
}

func (s liveStore) Assigning(ns string) []*v1alpha1.Tenant {
	var out []*v1alpha1.Tenant
	for i := range s.tenants {
		if tenancy.Assigned(&s.tenants[i], ns) {
			out = append(out, &s.tenants[i])
		}
	}
	return out
}

func (s liveStore) Owning(key string) []*v1alpha1.Tenant {
	var out []*v1alpha1.Tenant
	for i := range s.tenants {
		if slices.Contains(tenancy.OwnerKeys(&s.tenants[i]), key) {
			out = append(out, &s.tenants[i])
		}
	}
	return out
}

func (s liveStore) Namespace(name string) *corev1.Namespace {
	for i := range s.namespaces {
		if s.namespaces[i].Name == name {
			return &s.namespaces[i]
		}
	}
	return nil
}

func (s liveStore) Labelled(tenant string) []*corev1.Namespace {
	var out []*corev1.Namespace
	for i := range s.namespaces {
		if s.namespaces[i].Labels[v1alpha1.TenantLabel] == tenant {
			out = append(out, &s.namespaces[i])
		}
	}
	return out
}

// Account knows no account: the census's probes name the reconciler,
// which the policy knows by name.
func (liveStore) Account(string, string) *corev1.ServiceAccount { return nil }
