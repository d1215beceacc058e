// Package config embeds the manifests Landlord installs: its own CRD, the
// controller's ClusterRole, the Flux CRDs generated from the pinned Flux
// API modules, the Gateway API's CRDs from its pinned module, and the
// kustomize tree of the whole install.
package config

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"

	"github.com/fluxcd/pkg/ssa/utils"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

//go:embed crd/bases/*.yaml flux/crd/*.yaml gateway/crd/*.yaml rbac/role.yaml
var manifests embed.FS

// installTree is every directory config/default takes in, so that the
// binary builds the install without the repository at hand.
//
//go:embed default crd manager rbac webhook
var installTree embed.FS

//go:embed dashboard
var dashboardTree embed.FS

// ControllerRoles are the least-privilege ClusterRole and namespaced Role
// of landlord-controller, generated from the RBAC markers.
func ControllerRoles() ([]*unstructured.Unstructured, error) {
	data, err := manifests.ReadFile("rbac/role.yaml")
	if err != nil {
		return nil, err
	}
	roles, err := utils.ReadObjects(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decoding rbac/role.yaml: %w", err)
	}
	return roles, nil
}

// CRDs returns Landlord's CRDs followed by the Flux CRDs and the Gateway
// API's, which lint validates against and the local control plane
// serves; landlord install applies none but Landlord's.
func CRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	return readCRDs("crd/bases/*.yaml", "flux/crd/*.yaml", "gateway/crd/*.yaml")
}

// LandlordCRDs returns Landlord's own CRDs: Tenant and TenantResource.
func LandlordCRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	return readCRDs("crd/bases/*.yaml")
}

// readCRDs decodes the embedded CRDs the patterns match, in their order.
func readCRDs(patterns ...string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, pattern := range patterns {
		paths, err := fs.Glob(manifests, pattern)
		if err != nil {
			return nil, err
		}
		for _, path := range paths {
			data, err := manifests.ReadFile(path)
			if err != nil {
				return nil, err
			}
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := yaml.UnmarshalStrict(data, crd); err != nil {
				return nil, fmt.Errorf("decoding %s: %w", path, err)
			}
			crds = append(crds, crd)
		}
	}
	return crds, nil
}

// Install builds config/default with kustomize from the embedded tree: the
// CRD, RBAC, controller Deployment, webhook Service and configurations, in
// kustomize's order (namespaces and CRDs first, webhook configurations last).
func Install() ([]*unstructured.Unstructured, error) {
	return buildEmbedded(installTree, "default")
}

// Dashboard builds config/dashboard: the RBAC and Service the controller's
// dashboard needs where --dashboard-bind-address enables it.
func Dashboard() ([]*unstructured.Unstructured, error) {
	return buildEmbedded(dashboardTree, "dashboard")
}

// buildEmbedded builds dir of an embedded tree with kustomize.
func buildEmbedded(tree embed.FS, dir string) ([]*unstructured.Unstructured, error) {
	mem := filesys.MakeFsInMemory()
	err := fs.WalkDir(tree, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := tree.ReadFile(path)
		if err != nil {
			return err
		}
		return mem.WriteFile("/"+path, data)
	})
	if err != nil {
		return nil, fmt.Errorf("copying the embedded %s tree: %w", dir, err)
	}
	return Build(mem, "/"+dir)
}

// Build runs kustomize on dir of fsys and returns the objects, in
// kustomize's order.
func Build(fsys filesys.FileSystem, dir string) ([]*unstructured.Unstructured, error) {
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	objects := make([]*unstructured.Unstructured, 0, len(resources.Resources()))
	for _, res := range resources.Resources() {
		// Through JSON, for int64 numbers: kustomize's maps hold ints,
		// which unstructured objects cannot deep-copy.
		data, err := res.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", dir, res.CurId(), err)
		}
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(data); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", dir, res.CurId(), err)
		}
		objects = append(objects, obj)
	}
	return objects, nil
}
