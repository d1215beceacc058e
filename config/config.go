// Package config embeds the manifests Landlord installs: its own CRD, the
// controller's ClusterRole and the Flux CRDs generated from the pinned Flux
// API modules.
package config

import (
	"embed"
	"fmt"
	"io/fs"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

//go:embed crd/bases/*.yaml flux/crd/*.yaml rbac/role.yaml
var manifests embed.FS

// ControllerRole is the least-privilege ClusterRole of landlord-controller,
// generated from the reconciler's RBAC markers.
func ControllerRole() (*rbacv1.ClusterRole, error) {
	data, err := manifests.ReadFile("rbac/role.yaml")
	if err != nil {
		return nil, err
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.UnmarshalStrict(data, role); err != nil {
		return nil, fmt.Errorf("decoding rbac/role.yaml: %w", err)
	}
	return role, nil
}

// CRDs returns Landlord's CRD followed by the Flux CRDs.
func CRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, pattern := range []string{"crd/bases/*.yaml", "flux/crd/*.yaml"} {
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
