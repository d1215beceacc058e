package policy

import (
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// builtinRoles are the aggregated namespace roles a tenant may bind besides
// its own; any other ClusterRole is the platform's to grant.
var builtinRoles = []string{"admin", "edit", "view"}

// Groups that take in identities beyond the tenant's.
var foreignGroups = []string{"system:authenticated", "system:unauthenticated", "system:serviceaccounts"}

// foreignUsers are users anyone is: the anonymous requester.
var foreignUsers = []string{"system:anonymous"}

// roleBinding is rules LL011 and LL015.
func roleBinding(rb *rbacv1.RoleBinding, s scope) field.ErrorList {
	var errs field.ErrorList
	subjects := field.NewPath("subjects")
	for i, sub := range rb.Subjects {
		if isOwner(s.tenant, sub) {
			continue // the platform named it in spec.owners
		}
		if s.writer.platform && isTemplateAccount(s.tenant, sub) {
			continue // the controller binds it: the tenant's templates apply as it
		}
		if ns, ok := subjectNamespace(sub, s.ns); ok && !s.sameTenant(ns) {
			errs = append(errs, notSupported(ruleBindingSubjects, subjects.Index(i).Child("namespace"), ns,
				"subjects must be service accounts of tenant "+s.tenant.Name+" or its spec.owners", namespacesOf(s.tenant)))
		}
		if sub.Kind == rbacv1.GroupKind && (slices.Contains(foreignGroups, sub.Name) || strings.HasPrefix(sub.Name, "system:serviceaccounts:") && !s.sameTenant(strings.TrimPrefix(sub.Name, "system:serviceaccounts:"))) {
			errs = append(errs, forbidden(ruleBindingSubjects, subjects.Index(i).Child("name"),
				"group "+sub.Name+" holds identities of other tenants; allowed: the tenant's own users, groups and service accounts"))
		}
		if sub.Kind == rbacv1.UserKind && slices.Contains(foreignUsers, sub.Name) {
			errs = append(errs, forbidden(ruleBindingSubjects, subjects.Index(i).Child("name"),
				"user "+sub.Name+" is whoever sends no credentials; allowed: the tenant's own users, groups and service accounts"))
		}
	}
	allowed := append([]string{s.tenant.RoleName()}, builtinRoles...)
	if s.writer.platform {
		// The controller binds it inside self-service namespaces.
		allowed = append(allowed, render.SelfServiceNamespaceRole)
	}
	if rb.RoleRef.Kind == "ClusterRole" && !slices.Contains(allowed, rb.RoleRef.Name) {
		errs = append(errs, notSupported(ruleBindingRole, field.NewPath("roleRef", "name"), rb.RoleRef.Name,
			"a RoleBinding may bind a Role of its namespace or one of these ClusterRoles", allowed))
	}
	return errs
}

// isTemplateAccount reports whether sub is the account the tenant's
// template sources apply as (render.TemplatesNamespace).
func isTemplateAccount(t *v1alpha1.Tenant, sub rbacv1.Subject) bool {
	return sub.Kind == rbacv1.ServiceAccountKind && sub.Namespace == render.TemplatesNamespace && sub.Name == t.Name
}

// isOwner reports whether sub is one of the tenant's owners, whom the
// controller binds in every tenant namespace wherever they live.
func isOwner(t *v1alpha1.Tenant, sub rbacv1.Subject) bool {
	return slices.ContainsFunc(t.Spec.Owners, func(o v1alpha1.Owner) bool {
		return o.Kind == sub.Kind && o.Name == sub.Name && (o.Kind != rbacv1.ServiceAccountKind || o.Namespace == sub.Namespace)
	})
}

// subjectNamespace is the namespace of a service account a subject names:
// a ServiceAccount subject (its namespace defaults to the binding's), or a
// User subject spelled as a service account's user name.
func subjectNamespace(sub rbacv1.Subject, bindingNamespace string) (string, bool) {
	switch sub.Kind {
	case rbacv1.ServiceAccountKind:
		if sub.Namespace == "" {
			return bindingNamespace, true
		}
		return sub.Namespace, true
	case rbacv1.UserKind:
		ns, _, ok := tenancy.SplitServiceAccount(sub.Name)
		return ns, ok
	}
	return "", false
}
