// Package install puts Landlord into a cluster the way flux install puts
// Flux: fluxcd/pkg/ssa applies the objects in stages and reports a change
// set, kstatus waits until they are ready.
package install

import (
	"context"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/polling"
	"github.com/fluxcd/cli-utils/pkg/object"
	"github.com/fluxcd/pkg/ssa"
	"github.com/fluxcd/pkg/ssa/normalize"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/render"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// FieldOwner manages what the installer applies.
const FieldOwner = "landlord-install"

// stageWait bounds the wait for the first stage (CRDs, namespaces and
// ClusterRoles) before the objects that need it are applied.
var stageWait = ssa.WaitOptions{Interval: 100 * time.Millisecond, Timeout: time.Minute}

// Apply server-side applies objects under FieldOwner in stages — CRDs,
// namespaces and ClusterRoles first, established before the rest — and
// writes one line per object to out saying whether it was created,
// configured or left unchanged, as kubectl apply does. Objects must carry
// their kind; they are not modified.
func Apply(ctx context.Context, c client.Client, out io.Writer, objects ...client.Object) (*ssa.ChangeSet, error) {
	desired, err := normalized(objects)
	if err != nil {
		return nil, err
	}
	changes, err := manager(c, polling.Options{}).ApplyAllStaged(ctx, desired, ssa.ApplyOptions{
		WaitInterval: stageWait.Interval, WaitTimeout: stageWait.Timeout,
	})
	// What was applied before a failure is reported too.
	for _, entry := range changes.Entries {
		fmt.Fprintf(out, "%s %s\n", name(entry.ObjMetadata), entry.Action)
	}
	return changes, err
}

// DryRun sends each object as Apply would, with dryRun=All, and writes
// one line per object saying what Apply would do; nothing is stored. An
// object in a namespace the install would create cannot be judged before
// it exists, and is reported so.
func DryRun(ctx context.Context, c client.Client, out io.Writer, objects ...client.Object) error {
	desired, err := normalized(objects)
	if err != nil {
		return err
	}
	sort.Sort(ssa.SortableUnstructureds(desired))
	m := manager(c, polling.Options{})
	creating := map[string]bool{}
	for _, u := range desired {
		id := name(object.UnstructuredToObjMetadata(u))
		if ns := u.GetNamespace(); creating[ns] {
			fmt.Fprintf(out, "%s created (server dry run: not judged before namespace %s exists)\n", id, ns)
			continue
		}
		entry, _, _, err := m.Diff(ctx, u, ssa.DiffOptions{})
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		if u.GetKind() == "Namespace" && entry.Action == ssa.CreatedAction {
			creating[u.GetName()] = true
		}
		fmt.Fprintf(out, "%s %s (server dry run)\n", id, entry.Action)
	}
	return nil
}

// normalized are copies of objects as ssa applies them: ssa sorts and
// edits what it is given.
func normalized(objects []client.Object) ([]*unstructured.Unstructured, error) {
	desired := make([]*unstructured.Unstructured, 0, len(objects))
	for _, obj := range objects {
		u, err := normalize.ToUnstructured(obj)
		if err != nil {
			return nil, fmt.Errorf("converting %T: %w", obj, err)
		}
		DropNulls(u.Object)
		desired = append(desired, u)
	}
	return desired, normalize.UnstructuredList(desired)
}

// DropNulls removes the top-level fields of a converted object that a
// typed nil left null, such as an aggregated ClusterRole's rules: applied,
// a null would claim the field and clear what its owner wrote.
func DropNulls(u map[string]any) {
	for k, v := range u {
		if v == nil {
			delete(u, k)
		}
	}
}

func manager(c client.Client, opts polling.Options) *ssa.ResourceManager {
	poller := polling.NewStatusPoller(c, c.RESTMapper(), opts)
	return ssa.NewResourceManager(c, poller, ssa.Owner{Field: FieldOwner})
}

// name is Kind namespace/name, or Kind name when cluster-scoped.
func name(id object.ObjMetadata) string {
	if id.Namespace == "" {
		return id.GroupKind.Kind + " " + id.Name
	}
	return id.GroupKind.Kind + " " + id.Namespace + "/" + id.Name
}

// Prerequisites applies the CRDs and the tenant ClusterRoles; Apply's
// first stage leaves the CRDs served.
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
	_, err = Apply(ctx, c, io.Discard, objects...)
	return err
}

// ControllerRBAC applies the controller's generated roles, and its
// namespace, and binds them to its service account there.
func ControllerRBAC(ctx context.Context, c client.Client, namespace string) error {
	roles, err := config.ControllerRoles()
	if err != nil {
		return err
	}
	objects := []client.Object{&corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: namespace},
	}}
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: tenancy.ControllerServiceAccount}}
	for _, role := range roles {
		if role.GetNamespace() != "" {
			role.SetNamespace(namespace)
		}
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
	_, err = Apply(ctx, c, io.Discard, objects...)
	return err
}
