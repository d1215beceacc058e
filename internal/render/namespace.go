package render

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/sourceurl"
)

// Built-in variables, set in every namespace's tenant-vars ConfigMap.
// Spec.Variables may not set them: templates stamped for many tenants rely
// on them meaning the same thing everywhere.
const (
	TenantNameVariable      = "TENANT_NAME"
	TenantNamespaceVariable = "TENANT_NAMESPACE"
)

// Pod Security Admission labels.
const podSecurityLabel = "pod-security.kubernetes.io/"

var podSecurityModes = []string{"enforce", "audit", "warn"}

// namespace is a tenant namespace: tenant, origin, reconciler and Pod
// Security Admission labels, the level in all three modes.
func namespace(t *v1alpha1.Tenant, name string, origin v1alpha1.NamespaceOrigin) *corev1.Namespace {
	ns := &corev1.Namespace{
		TypeMeta:   typeMeta(corev1.SchemeGroupVersion, "Namespace"),
		ObjectMeta: meta(t, name, ""),
	}
	// Rendering the origin keeps it owned by the apply and restored if removed.
	ns.Labels[v1alpha1.OriginLabel] = string(origin)
	maps.Copy(ns.Labels, PolicyLabels(t))
	ns.Annotations = PolicyAnnotations(t)
	// The API server sets it on every namespace; rendered, Landlord's
	// create holds nothing the render does not, and needs no hand-over.
	ns.Labels[corev1.LabelMetadataName] = name
	for _, mode := range podSecurityModes {
		ns.Labels[podSecurityLabel+mode] = string(t.PodSecurityLevel())
		ns.Labels[podSecurityLabel+mode+"-version"] = "latest"
	}
	return ns
}

// PolicyLabels are the labels of each of t's namespaces that the API
// server's admission policies read: whose namespace it is, whom Flux
// applies as there, which Service types beyond ClusterIP it allows and
// whether its objects may lend a cloud identity.
func PolicyLabels(t *v1alpha1.Tenant) map[string]string {
	types := make([]string, len(t.Spec.Network.AllowServiceTypes))
	for i, st := range t.Spec.Network.AllowServiceTypes {
		types[i] = string(st)
	}
	slices.Sort(types)
	// Every key is set, empty or "false" for none: a key left out would
	// drop only Landlord's ownership of it, and a tenant that had applied
	// the same value would keep the allowance the platform withdrew.
	return map[string]string{
		v1alpha1.TenantLabel:           t.Name,
		v1alpha1.ReconcilerLabel:       t.ReconcilerName(),
		v1alpha1.ServiceTypesLabel:     strings.Join(slices.Compact(types), "."),
		v1alpha1.WorkloadIdentityLabel: strconv.FormatBool(t.Spec.AllowWorkloadIdentity),
	}
}

// PolicyAnnotations are the annotations of each of t's namespaces that the
// API server's admission policies read: the facts longer than a label
// holds. Every key is set, empty for none, as PolicyLabels' are.
func PolicyAnnotations(t *v1alpha1.Tenant) map[string]string {
	address := ""
	if n := t.Spec.Notifications; n != nil {
		address = n.Address
	}
	return map[string]string{
		v1alpha1.AllowedSourcesAnnotation:       strings.Join(t.Spec.AllowedSources, "\n"),
		v1alpha1.SourceRegexpsAnnotation:        strings.Join(sourceurl.Regexps(t.Spec.AllowedSources), "\n"),
		v1alpha1.NotificationsAddressAnnotation: address,
	}
}

// variables is the tenant-vars ConfigMap of one namespace: Spec.Variables
// plus the built-ins, TENANT_NAMESPACE being that namespace.
func variables(t *v1alpha1.Tenant, ns string) *corev1.ConfigMap {
	data := maps.Clone(t.Spec.Variables)
	if data == nil {
		data = map[string]string{}
	}
	data[TenantNameVariable] = t.Name
	data[TenantNamespaceVariable] = ns
	return &corev1.ConfigMap{
		TypeMeta:   typeMeta(corev1.SchemeGroupVersion, "ConfigMap"),
		ObjectMeta: meta(t, v1alpha1.VariablesConfigMap, ns),
		Data:       data,
	}
}
