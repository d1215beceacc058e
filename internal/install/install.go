// Package install puts Landlord's cluster-wide parts into a cluster: its
// CRD, the Flux CRDs when Flux is absent, and the ClusterRoles tenants are
// bound to.
package install

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/apply"
	"github.com/landlord-dev/landlord/internal/render"
)

// FieldOwner manages what the installer applies.
const FieldOwner = "landlord-install"

// Prerequisites applies the CRDs and the tenant ClusterRoles and waits until
// the CRDs are served.
func Prerequisites(ctx context.Context, c client.Client) error {
	crds, err := config.CRDs()
	if err != nil {
		return err
	}
	var objects []client.Object
	for _, role := range render.ClusterRoles() {
		objects = append(objects, role)
	}
	for _, crd := range crds {
		crd.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
		objects = append(objects, crd)
	}
	if err := apply.Objects(ctx, c, FieldOwner, objects...); err != nil {
		return err
	}
	for _, crd := range crds {
		if err := waitEstablished(ctx, c, crd.Name); err != nil {
			return err
		}
	}
	return nil
}

func waitEstablished(ctx context.Context, c client.Client, name string) error {
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for CRD %s to be established: %w", name, err)
	}
	return nil
}

// The controller's identity in cluster.
const (
	ControllerNamespace      = "landlord-system"
	ControllerServiceAccount = "landlord-controller"
)

// ControllerRBAC applies the controller's generated roles, and its
// namespace, and binds them to its service account.
func ControllerRBAC(ctx context.Context, c client.Client) error {
	roles, err := config.ControllerRoles()
	if err != nil {
		return err
	}
	objects := []client.Object{&corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: ControllerNamespace},
	}}
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ControllerNamespace, Name: ControllerServiceAccount}}
	for _, role := range roles {
		ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: role.GetKind(), Name: role.GetName()}
		var binding client.Object = &rbacv1.RoleBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "RoleBinding"},
			ObjectMeta: metav1.ObjectMeta{Name: role.GetName(), Namespace: role.GetNamespace()},
			RoleRef:    ref, Subjects: subjects,
		}
		if role.GetKind() == "ClusterRole" {
			binding = &rbacv1.ClusterRoleBinding{
				TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"},
				ObjectMeta: metav1.ObjectMeta{Name: role.GetName()},
				RoleRef:    ref, Subjects: subjects,
			}
		}
		objects = append(objects, role, binding)
	}
	return apply.Objects(ctx, c, FieldOwner, objects...)
}
