package policy

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

var ruleReleased = Rule{"LL024", "released-namespace", "a namespace a tenant released keeps its data but no tenant: frozen for all but the platform, so that no identity the tenant left behind writes there unjudged"}

// released is rule LL024: every write in or to a namespace a tenant
// released, by anyone but the platform, is refused.
func released(req Request, tenants Tenants) field.ErrorList {
	ns, by := releasedNamespace(req, tenants)
	if by == "" || identify(req.User, tenants, req.Platform, "").platform {
		return nil
	}
	return field.ErrorList{forbidden(ruleReleased, field.NewPath("metadata", "namespace"),
		"namespace "+ns+" was released by tenant "+by+"; allowed: writes by platform identities")}
}

// releasedNamespace is the namespace written in, or the Namespace written,
// and the tenant that released it, "" when it was not released. A
// Namespace counts as released before and after the write, so that the
// mark can be neither removed nor added.
func releasedNamespace(req Request, tenants Tenants) (ns, by string) {
	if !isNamespace(req.Object) && !isNamespace(req.OldObject) {
		if req.Namespace == "" {
			return "", ""
		}
		return req.Namespace, tenants.Released(req.Namespace)
	}
	for _, obj := range []runtime.Object{req.OldObject, req.Object} {
		if by := labelsOf(obj)[v1alpha1.ReleasedLabel]; by != "" {
			return namespaceOf(req).Name, by
		}
	}
	return "", ""
}
