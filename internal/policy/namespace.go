package policy

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// podSecurityPrefix starts the Pod Security Admission labels.
const podSecurityPrefix = "pod-security.kubernetes.io/"

// protectedLabel reports whether a namespace label is the platform's:
// Landlord's (who owns the namespace, who made it, what the API server's
// policy allows there) and what pods may do there.
func protectedLabel(key string) bool {
	return key == v1alpha1.ManagedByLabel || v1alpha1.IsLandlordKey(key) || strings.HasPrefix(key, podSecurityPrefix)
}

func isNamespace(obj runtime.Object) bool {
	_, ok := obj.(*corev1.Namespace)
	return ok
}

// namespaceRules are rules LL009, LL025 and, for namespaces, LL010.
// Platform identities are exempt; other identities that are no tenant are
// judged only on namespaces a tenant owns.
func namespaceRules(req Request, who identity, tenants Tenants) field.ErrorList {
	if who.platform {
		return nil
	}
	ns := namespaceOf(req)
	owner := tenants.ForNamespace(ns.Name)
	if who.tenant == nil && owner == nil && !claims(ns) {
		return nil
	}
	// Self-service needs patch on namespaces (Flux applies server-side), so
	// RBAC lets a tenant reach every namespace: only its own may it touch,
	// and the others are answered as if they did not exist.
	if t := who.tenant; t != nil && req.Operation != admissionv1.Delete && !mayWrite(t, owner, ns.Name, req.Operation) {
		return field.ErrorList{hidden(ns.Name, t)}
	}
	switch req.Operation {
	case admissionv1.Create:
		return createNamespace(ns, who, owner, tenants, req.Platform)
	case admissionv1.Delete:
		return deleteNamespace(ns, who, owner)
	}
	old, _ := req.OldObject.(*corev1.Namespace)
	errs := platformMetadataChanges(old, ns)
	if old != nil && landlordFieldsChanged(old, ns) {
		errs = append(errs, forbidden(ruleManaged, field.NewPath("metadata", "managedFields"),
			"the entries of field manager "+v1alpha1.FieldManager+" are the controller's: it removes what they list that the Tenant does not set; allowed: writes that leave them as they are"))
	}
	if who.tenant != nil {
		// Its own namespace: the allow-list judges labels and annotations;
		// a managed one's finalizers and owners stay Landlord's.
		errs = append(errs, namespaceMetadata(old, ns, who.tenant)...)
		if old != nil && isManaged(old) && (removedAny(old.Finalizers, ns.Finalizers) || !equality.Semantic.DeepEqual(old.OwnerReferences, ns.OwnerReferences)) {
			errs = append(errs, forbidden(ruleManaged, field.NewPath("metadata"),
				"namespace "+ns.Name+" is managed by Landlord; allowed: changes to labels and annotations the tenant may write, adding finalizers Kubernetes removes"))
		}
		return errs
	}
	if old != nil && isManaged(old) && changed(old, ns) {
		errs = append(errs, forbidden(ruleManaged, field.NewPath("metadata"),
			"namespace "+ns.Name+" is managed by Landlord; allowed: changes by "+req.Platform.Controller()+" only"))
	}
	return errs
}

// mayWrite reports whether a tenant may create or update the namespace
// name: one it holds, or, to create, one its self-service prefix names that
// no tenant holds.
func mayWrite(t, owner *v1alpha1.Tenant, name string, op admissionv1.Operation) bool {
	if owner != nil {
		return owner.Name == t.Name
	}
	ss := t.Spec.SelfService
	return op == admissionv1.Create && ss != nil && strings.HasPrefix(name, ss.Prefix)
}

// hidden is rule LL009 for a tenant writing a namespace not its own, typed
// NotFound: the guard answers it as the apiserver answers for a name that
// does not exist, so that whether it exists stays unknown to the tenant.
func hidden(name string, t *v1alpha1.Tenant) *field.Error {
	return (&field.Error{Type: field.ErrorTypeNotFound, Field: "metadata.name", BadValue: name,
		Detail: ruleNamespaces.ID + ": namespace " + name + " is not a namespace of tenant " + t.Name + "; allowed: " + quoteList(namespacesOf(t))}).WithOrigin(ruleNamespaces.ID)
}

// Hidden reports whether errs deny a namespace as if it did not exist:
// the answer must then be the apiserver's NotFound, nothing more.
func Hidden(errs field.ErrorList) bool {
	return len(errs) == 1 && errs[0].Type == field.ErrorTypeNotFound && RuleID(errs[0]) == ruleNamespaces.ID
}

// changed reports whether an update alters what a namespace is; Flux
// re-applying the self-service namespace its tenant declares alters
// nothing, and must go on reconciling.
func changed(old, ns *corev1.Namespace) bool {
	return !maps.Equal(old.Labels, ns.Labels) || !maps.Equal(old.Annotations, ns.Annotations) ||
		!slices.Equal(old.Finalizers, ns.Finalizers) || !slices.Equal(old.Spec.Finalizers, ns.Spec.Finalizers) ||
		!equality.Semantic.DeepEqual(old.OwnerReferences, ns.OwnerReferences)
}

// landlordFieldsChanged reports whether an update alters the controller's
// entries in a namespace's managed fields. Only the controller writes
// them; a tenant that moved a platform annotation into them would have the
// controller remove it.
func landlordFieldsChanged(old, ns *corev1.Namespace) bool {
	entries := func(n *corev1.Namespace) []metav1.ManagedFieldsEntry {
		return slices.DeleteFunc(slices.Clone(n.ManagedFields), func(e metav1.ManagedFieldsEntry) bool { return e.Manager != v1alpha1.FieldManager })
	}
	return !equality.Semantic.DeepEqual(entries(old), entries(ns))
}

// namespaceOf is the namespace written, or deleted.
func namespaceOf(req Request) *corev1.Namespace {
	if ns, ok := req.Object.(*corev1.Namespace); ok {
		return ns
	}
	return req.OldObject.(*corev1.Namespace)
}

// claims reports whether a namespace says it is Landlord's.
func claims(ns *corev1.Namespace) bool {
	_, tenant := ns.Labels[v1alpha1.TenantLabel]
	_, origin := ns.Labels[v1alpha1.OriginLabel]
	return tenant || origin || isManaged(ns)
}

// createNamespace lets a tenant create a namespace only through
// self-service: its prefix, its label, within its count.
func createNamespace(ns *corev1.Namespace, who identity, owner *v1alpha1.Tenant, tenants Tenants, platform Platform) field.ErrorList {
	name := field.NewPath("metadata", "name")
	labels := field.NewPath("metadata", "labels")
	if owner != nil && slices.Contains(owner.NamespaceNames(), ns.Name) {
		return field.ErrorList{forbidden(ruleNamespaces, name, "namespace "+ns.Name+" is assigned to tenant "+owner.Name+" by the platform; allowed: creation by "+platform.Controller()+" only")}
	}
	t := who.tenant
	if t == nil {
		return field.ErrorList{forbidden(ruleNamespaces, labels, "only a tenant creates its self-service namespaces; allowed: no "+
			v1alpha1.TenantLabel+", "+v1alpha1.OriginLabel+" or "+v1alpha1.ManagedByLabel+" label")}
	}
	ss := t.Spec.SelfService
	if ss == nil {
		return field.ErrorList{forbidden(ruleNamespaces, name, "tenant "+t.Name+" has no spec.selfService; allowed: namespaces the platform assigns")}
	}
	var errs field.ErrorList
	if !strings.HasPrefix(ns.Name, ss.Prefix) {
		errs = append(errs, invalid(ruleNamespaces, name, ns.Name, "not a self-service namespace of tenant "+t.Name+"; allowed: names starting with "+strconv.Quote(ss.Prefix)))
	}
	if got := ns.Labels[v1alpha1.TenantLabel]; got != t.Name {
		errs = append(errs, notSupported(ruleNamespaces, labels.Key(v1alpha1.TenantLabel), got,
			"a self-service namespace is labelled with its tenant", []string{t.Name}))
	}
	for _, key := range slices.Sorted(maps.Keys(ns.Labels)) {
		if key != v1alpha1.TenantLabel && protectedLabel(key) {
			errs = append(errs, forbidden(ruleNamespaces, labels.Key(key), "the platform sets this label; allowed: unset"))
		}
	}
	for _, key := range slices.Sorted(maps.Keys(ns.Annotations)) {
		if v1alpha1.IsLandlordKey(key) {
			errs = append(errs, forbidden(ruleNamespaces, field.NewPath("metadata", "annotations").Key(key), "the platform sets this annotation; allowed: unset"))
		}
	}
	errs = append(errs, namespaceMetadata(nil, ns, t)...)
	if n := tenants.SelfServiceCount(t.Name); n >= int(ss.MaxNamespaces) {
		errs = append(errs, forbidden(ruleNamespaces, name, "tenant "+t.Name+" has "+strconv.Itoa(n)+
			" self-service namespaces; allowed: at most spec.selfService.maxNamespaces="+strconv.Itoa(int(ss.MaxNamespaces))))
	}
	return errs
}

// deleteNamespace lets a tenant delete its own self-service namespaces, and
// no one but the platform delete any other tenant namespace.
func deleteNamespace(ns *corev1.Namespace, who identity, owner *v1alpha1.Tenant) field.ErrorList {
	if owner == nil {
		if label := ns.Labels[v1alpha1.TenantLabel]; label != "" {
			// Labelled for a tenant that does not hold it (never adopted, or
			// its tenant gone): frozen, as LL026 freezes what is in it.
			return unheld(field.NewPath("metadata", "name"), ns.Name, label)
		}
		return nil // claims but unowned: a released namespace, RBAC decides
	}
	platformAssigned := slices.Contains(owner.NamespaceNames(), ns.Name) ||
		ns.Labels[v1alpha1.OriginLabel] == string(v1alpha1.NamespaceOriginPlatform)
	if who.tenant != nil && who.tenant.Name == owner.Name && !platformAssigned {
		return nil
	}
	return field.ErrorList{forbidden(ruleNamespaces, field.NewPath("metadata", "name"),
		"namespace "+ns.Name+" of tenant "+owner.Name+" may be deleted only by the platform; allowed: the tenant's own self-service namespaces")}
}

// platformMetadataChanges denies adding, changing or removing a protected
// label, or a Landlord annotation: the API server's policies read both.
func platformMetadataChanges(old, ns *corev1.Namespace) field.ErrorList {
	var before corev1.Namespace
	if old != nil {
		before = *old
	}
	meta := field.NewPath("metadata")
	errs := protectedChanges(meta.Child("labels"), "label", before.Labels, ns.Labels, protectedLabel)
	return append(errs, protectedChanges(meta.Child("annotations"), "annotation", before.Annotations, ns.Annotations, v1alpha1.IsLandlordKey)...)
}

// protectedChanges denies a change to the keys of before and after that
// protected reports.
func protectedChanges(p *field.Path, kind string, before, after map[string]string, protected func(string) bool) field.ErrorList {
	keys := maps.Collect(maps.All(before))
	maps.Copy(keys, after)
	var errs field.ErrorList
	for _, key := range slices.Sorted(maps.Keys(keys)) {
		if !protected(key) {
			continue
		}
		was, had := before[key]
		is, has := after[key]
		if had != has || was != is {
			errs = append(errs, forbidden(ruleNamespaces, p.Key(key), "the platform sets this "+kind+"; allowed: "+allowedValue(was, had)))
		}
	}
	return errs
}

func allowedValue(v string, set bool) string {
	if !set {
		return "unset"
	}
	return strconv.Quote(v) + ", unchanged"
}
