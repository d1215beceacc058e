package policy

import (
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/render"
)

// TestRenderedObjectsAllowed checks the policy admits what the controller
// applies for a tenant, and denies a tenant changing any of it.
func TestRenderedObjectsAllowed(t *testing.T) {
	tenant := testTenants.tenants[0]
	objects, err := render.Objects(tenant, render.Holdings{SelfService: testTenants.selfService[tenant.Name]})
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range objects {
		name := obj.GetObjectKind().GroupVersionKind().Kind + "/" + obj.GetNamespace() + "/" + obj.GetName()
		t.Run(name, func(t *testing.T) {
			for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
				if errs := Evaluate(request(op, controller, obj), testTenants); len(errs) > 0 {
					t.Errorf("%s by the controller: %v", op, errs)
				}
			}
			if obj.GetNamespace() == render.TemplatesNamespace {
				return // a platform namespace: RBAC keeps the tenant out, not the guard
			}
			edited := obj.DeepCopyObject().(client.Object)
			edited.SetLabels(map[string]string{"team": "b"})
			tenantEdit := request(admissionv1.Update, owner, edited)
			tenantEdit.OldObject = obj
			if errs := Evaluate(tenantEdit, testTenants); len(errs) == 0 {
				t.Errorf("update by the tenant allowed")
			}
		})
	}
}

func request(op admissionv1.Operation, user authenticationv1.UserInfo, obj client.Object) Request {
	req := Request{Operation: op, Namespace: obj.GetNamespace(), Object: obj, User: user}
	if op == admissionv1.Update {
		req.OldObject = obj
	}
	return req
}
