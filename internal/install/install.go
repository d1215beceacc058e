// Package install puts Landlord's cluster-wide parts into a cluster: its
// CRD, the Flux CRDs when Flux is absent, and the ClusterRoles tenants are
// bound to.
package install

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
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
