package render

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
	scheduling := ptr.Deref(t.Spec.Scheduling, v1alpha1.Scheduling{})
	var nodeLabels, tolerations []string
	for _, l := range scheduling.NodeLabels {
		if len(l.Values) == 0 {
			nodeLabels = append(nodeLabels, l.Key)
		}
		for _, v := range l.Values {
			nodeLabels = append(nodeLabels, l.Key+"="+v)
		}
	}
	for _, a := range scheduling.Tolerations {
		tolerations = append(tolerations, strings.Join([]string{a.Key, a.Value, string(a.Effect)}, " "))
	}
	images, pullAlways := []string{AnyImage}, false
	if i := t.Spec.Images; i != nil {
		images, pullAlways = i.Allowed, i.PullAlways
	}
	return map[string]string{
		v1alpha1.AllowedSourcesAnnotation:       strings.Join(t.Spec.AllowedSources, "\n"),
		v1alpha1.SourceRegexpsAnnotation:        strings.Join(sourceurl.Regexps(t.Spec.AllowedSources), "\n"),
		v1alpha1.NotificationsAddressAnnotation: address,
		v1alpha1.PriorityClassesAnnotation:      strings.Join(scheduling.PriorityClasses, "\n"),
		v1alpha1.NodeLabelsAnnotation:           strings.Join(nodeLabels, "\n"),
		v1alpha1.TolerationsAnnotation:          strings.Join(tolerations, "\n"),
		v1alpha1.StorageClassesAnnotation:       strings.Join(ptr.Deref(t.Spec.Storage, v1alpha1.Storage{}).Classes, "\n"),
		v1alpha1.AllowedImagesAnnotation:        strings.Join(images, "\n"),
		v1alpha1.PullAlwaysAnnotation:           strconv.FormatBool(pullAlways),
		v1alpha1.RequireResourcesAnnotation:     strconv.FormatBool(t.Spec.RequireResources),
		v1alpha1.StampedAccountsAnnotation:      "",
	}
}

// AnyImage, alone in the allowed-images annotation, stands for a Tenant
// bounding no image: no image prefix is "*".
const AnyImage = "*"

// stampAccounts lists on each namespace of objects the ServiceAccounts
// stamped into it, which pods may not run as: the namespace's annotation
// is applied before the accounts are, so no pod meets one unlisted.
func stampAccounts(objects []client.Object) {
	accounts := map[string][]string{}
	for _, o := range objects {
		if _, ok := o.(*corev1.ServiceAccount); ok && o.GetLabels()[v1alpha1.TenantResourceLabel] != "" {
			accounts[o.GetNamespace()] = append(accounts[o.GetNamespace()], o.GetName())
		}
	}
	for _, o := range objects {
		if ns, ok := o.(*corev1.Namespace); ok {
			ns.Annotations[v1alpha1.StampedAccountsAnnotation] = strings.Join(accounts[ns.Name], "\n")
		}
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
