package policy

import (
	"maps"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	networkingv1 "k8s.io/api/networking/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// identity is who writes.
type identity struct {
	platform bool
	// tenant is the tenant the writer acts for in this request, nil for
	// identities of no tenant.
	tenant *v1alpha1.Tenant
}

// identify tells platform identities from tenants; a platform identity is
// never a tenant, even if a tenant lists it as an owner. A user acting for
// several tenants acts, in each request, for the one the request concerns
// (focus), else for the first by name.
func identify(u authenticationv1.UserInfo, tenants Tenants, platform Platform, focus string) identity {
	if platform.Includes(u) {
		return identity{platform: true}
	}
	actsFor := tenants.ForUser(u)
	for _, t := range actsFor {
		if t.Name == focus {
			return identity{tenant: t}
		}
	}
	if len(actsFor) > 0 {
		return identity{tenant: actsFor[0]}
	}
	return identity{}
}

// clusterScoped is rule LL014: tenants write no cluster-scoped object, over
// and above what RBAC grants them, but those spec.clusterResources
// approves by kind and name; an approved CustomResourceDefinition still
// names no conversion webhook, and an approved class makes itself no
// default and names no namespace of another.
func clusterScoped(who identity, req Request, tenants Tenants) field.ErrorList {
	if who.platform || who.tenant == nil {
		return nil
	}
	if approved(who.tenant, req.Kind, req.Name) {
		// The API server's landlord-classes judges an approved class made
		// the default (classRules).
		return append(conversionWebhook(who.tenant, req.Object), classNamespaces(who.tenant, req.Object, tenants)...)
	}
	return field.ErrorList{forbidden(ruleClusterScoped, field.NewPath("metadata", "namespace"),
		"tenant "+who.tenant.Name+" may not write cluster-scoped "+kindName(req)+"; allowed: objects in its namespaces "+quoteList(namespacesOf(who.tenant))+
			", and the cluster-scoped objects its spec.clusterResources approves "+quoteList(approvals(who.tenant)))}
}

// approved reports whether the tenant's spec.clusterResources names kind
// at name.
func approved(t *v1alpha1.Tenant, kind schema.GroupKind, name string) bool {
	return slices.ContainsFunc(t.Spec.ClusterResources, func(cr v1alpha1.ClusterResource) bool {
		return cr.APIGroup == kind.Group && cr.Kind == kind.Kind && slices.Contains(cr.Names, name)
	})
}

// approvals lists what spec.clusterResources approves, for messages.
func approvals(t *v1alpha1.Tenant) []string {
	var out []string
	for _, cr := range t.Spec.ClusterResources {
		for _, name := range cr.Names {
			out = append(out, schema.GroupKind{Group: cr.APIGroup, Kind: cr.Kind}.String()+" "+name)
		}
	}
	return out
}

// kindName names the object of a request in a message.
func kindName(req Request) string {
	if req.Kind.Empty() {
		return "objects"
	}
	return req.Kind.String() + " " + req.Name
}

// conversionWebhook refuses a tenant's CustomResourceDefinition that sends
// its objects to a webhook: the API server would call a service the
// tenant chose with every object of the kind, whoever wrote it.
func conversionWebhook(t *v1alpha1.Tenant, obj runtime.Object) field.ErrorList {
	crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok || crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy != apiextensionsv1.WebhookConverter {
		return nil
	}
	return field.ErrorList{forbidden(ruleClusterScoped, field.NewPath("spec", "conversion", "strategy"),
		"tenant "+t.Name+" may not make the API server call a conversion webhook; allowed: None")}
}

// pvcNamespace is the CSI provisioner's template for the namespace of the
// claim being provisioned: each claimant's own.
const pvcNamespace = "${pvc.namespace}"

// classNamespaces refuses an approved class that names a namespace not the
// tenant's (issue 23's census): a StorageClass's secret parameters
// (csi.storage.k8s.io/provisioner-secret-namespace and its kin, the
// in-tree provisioners' secretNamespace), whose Secret the CSI
// provisioner and the kubelet read and hand to the driver, which then
// provisions or mounts the tenant's volumes with another tenant's or the
// platform's storage credentials; and an IngressClass's parameters, which
// its controller reads.
func classNamespaces(t *v1alpha1.Tenant, obj runtime.Object, tenants Tenants) field.ErrorList {
	ours := func(ns string) bool {
		o := tenants.ForNamespace(ns)
		return o != nil && o.Name == t.Name
	}
	var errs field.ErrorList
	switch o := obj.(type) {
	case *storagev1.StorageClass:
		for _, key := range slices.Sorted(maps.Keys(o.Parameters)) {
			ns := o.Parameters[key]
			if !strings.Contains(strings.ToLower(strings.ReplaceAll(key, "-", "")), "secretnamespace") || ns == pvcNamespace || ours(ns) {
				continue
			}
			errs = append(errs, notSupported(ruleClusterScoped, field.NewPath("parameters").Key(key), ns,
				"tenant "+t.Name+"'s approved StorageClass may name Secrets of its own namespaces only", append([]string{pvcNamespace}, namespacesOf(t)...)))
		}
	case *networkingv1.IngressClass:
		if p := o.Spec.Parameters; p != nil && p.Namespace != nil && !ours(*p.Namespace) {
			errs = append(errs, notSupported(ruleClusterScoped, field.NewPath("spec", "parameters", "namespace"), *p.Namespace,
				"tenant "+t.Name+"'s approved IngressClass may name parameters of its own namespaces only", namespacesOf(t)))
		}
	}
	return errs
}

// The annotations marking the cluster's default StorageClass, GA and beta.
const (
	DefaultStorageClassAnnotation     = "storageclass.kubernetes.io/is-default-class"
	DefaultStorageClassBetaAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
)

// isManaged reports whether obj carries Landlord's managed-by label.
func isManaged(obj runtime.Object) bool {
	return labelsOf(obj)[v1alpha1.ManagedByLabel] == v1alpha1.ManagedByValue
}

// labelsOf is the labels of a decoded object, nil for none.
func labelsOf(obj runtime.Object) map[string]string {
	if m, ok := obj.(metav1.Object); ok {
		return m.GetLabels()
	}
	return nil
}

// namespacesOf lists the tenant's namespaces for messages: the assigned
// ones, and the self-service prefix.
func namespacesOf(t *v1alpha1.Tenant) []string {
	names := t.NamespaceNames()
	if t.Spec.SelfService != nil {
		names = append(names, t.Spec.SelfService.Prefix+"*")
	}
	return names
}

// quoteList renders values as "a", "b" or "c".
func quoteList(values []string) string {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = `"` + v + `"`
	}
	switch len(quoted) {
	case 0:
		return "(none)"
	case 1:
		return quoted[0]
	}
	return strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
}
