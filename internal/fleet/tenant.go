package fleet

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/resid"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/apivalidation"
)

// TenantOptions are what `landlord tenant create` takes from its flags.
type TenantOptions struct {
	Name       string
	Namespaces []string
	// GitURL is the tenant's repository; empty for a tenant without source.
	GitURL    string
	Ref       v1alpha1.GitRef
	Path      string
	SecretRef string
	Variables map[string]string
	Quota     corev1.ResourceList
	// PodSecurity is left to the CRD's default, restricted, when empty.
	PodSecurity v1alpha1.PodSecurityLevel
	Owners      []v1alpha1.Owner
	// SelfService lets the tenant create namespaces itself; nil when not.
	SelfService *v1alpha1.SelfService
}

// NewTenant builds a Tenant from options and validates it as the apiserver
// would; the error lists the fields refused, as *field.Error. Its one
// source, if any, is named after the tenant.
func NewTenant(o TenantOptions) (*v1alpha1.Tenant, error) {
	t := &v1alpha1.Tenant{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "Tenant"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Name},
		Spec: v1alpha1.TenantSpec{
			Variables:   o.Variables,
			PodSecurity: o.PodSecurity,
			Owners:      o.Owners,
			SelfService: o.SelfService,
		},
	}
	for _, ns := range o.Namespaces {
		t.Spec.Namespaces = append(t.Spec.Namespaces, v1alpha1.TenantNamespace{Name: ns})
	}
	if len(o.Quota) > 0 {
		t.Spec.Quota = &v1alpha1.Quota{Hard: o.Quota}
	}
	if o.GitURL != "" {
		git := &v1alpha1.GitSource{URL: o.GitURL, SecretRef: o.SecretRef}
		if o.Ref != (v1alpha1.GitRef{}) {
			ref := o.Ref
			git.Ref = &ref
		}
		t.Spec.Sources = []v1alpha1.Source{{Name: o.Name, Git: git, Path: o.Path}}
	}
	if errs := apivalidation.ValidateTenant(t); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return t, nil
}

// MarshalTenant is the Tenant's YAML as it goes into a fleet repository.
func MarshalTenant(t *v1alpha1.Tenant) ([]byte, error) {
	return marshal(t)
}

// EnvPath is the path of the tenant's repository one cluster syncs.
type EnvPath struct {
	Env  string
	Path string
}

// ParseVariables reads K=V pairs; the Tenant's schema judges the names.
func ParseVariables(pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	vars := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q: want K=V", p)
		}
		if _, dup := vars[k]; dup {
			return nil, fmt.Errorf("%q: %s set twice", p, k)
		}
		vars[k] = v
	}
	return vars, nil
}

// ParseOwners reads Kind:name owners: User:ana, Group:dev-team or
// ServiceAccount:namespace/name; the Tenant's schema judges the kinds.
func ParseOwners(values []string) ([]v1alpha1.Owner, error) {
	var owners []v1alpha1.Owner
	for _, v := range values {
		kind, name, ok := strings.Cut(v, ":")
		if !ok || kind == "" || name == "" {
			return nil, fmt.Errorf("%q: want Kind:name, such as User:ana, Group:dev-team or ServiceAccount:ci/deployer", v)
		}
		o := v1alpha1.Owner{Kind: kind, Name: name}
		if kind == "ServiceAccount" {
			if o.Namespace, o.Name, ok = strings.Cut(name, "/"); !ok {
				return nil, fmt.Errorf("%q: a ServiceAccount owner is ServiceAccount:namespace/name", v)
			}
		}
		owners = append(owners, o)
	}
	return owners, nil
}

// ParseQuota reads resource=quantity pairs of a ResourceQuota's hard limits.
func ParseQuota(pairs []string) (corev1.ResourceList, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	hard := corev1.ResourceList{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q: want resource=quantity, such as requests.cpu=4", p)
		}
		q, err := resource.ParseQuantity(v)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", p, err)
		}
		hard[corev1.ResourceName(k)] = q
	}
	return hard, nil
}

// ParseEnvPaths reads cluster=path pairs, in the order given.
func ParseEnvPaths(pairs []string) ([]EnvPath, error) {
	var envs []EnvPath
	for _, p := range pairs {
		env, dir, ok := strings.Cut(p, "=")
		switch {
		case !ok || dir == "":
			return nil, fmt.Errorf("%q: want cluster=path, such as staging=./staging", p)
		case len(validation.IsDNS1123Label(env)) > 0 || env == "base":
			return nil, fmt.Errorf("%q: cluster %q must be a DNS label other than base", p, env)
		case strings.Contains(dir, ".."):
			return nil, fmt.Errorf("%q: the path must not contain '..'", p)
		case slices.ContainsFunc(envs, func(e EnvPath) bool { return e.Env == env }):
			return nil, fmt.Errorf("%q: cluster %s listed twice", p, env)
		}
		envs = append(envs, EnvPath{Env: env, Path: dir})
	}
	return envs, nil
}

// AddTenant writes a Tenant into the fleet repository at dir: the Tenant in
// tenants/base/NAME, listed in tenants/base, and for each cluster a patch
// setting the path its source syncs. Adding the same tenant again changes
// nothing; a different tenant of the same name is refused.
func AddTenant(dir string, t *v1alpha1.Tenant, envs []EnvPath) ([]Change, error) {
	if len(envs) > 0 && len(t.Spec.Sources) == 0 {
		return nil, fmt.Errorf("tenant %s has no source to set a path for in each cluster", t.Name)
	}
	base, err := readKustomization(dir, path.Join(TenantsBase, KustomizationFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is not a fleet repository (no %s): run landlord init fleet first", dir, path.Join(TenantsBase, KustomizationFile))
	}
	if err != nil {
		return nil, err
	}
	tenantPath := path.Join(TenantsBase, t.Name, "tenant.yaml")
	data, err := MarshalTenant(t)
	if err != nil {
		return nil, err
	}
	old, err := os.ReadFile(filepath.Join(dir, tenantPath))
	if err == nil && !bytes.Equal(old, data) {
		return nil, fmt.Errorf("tenant %s already exists in %s with a different spec: refusing to overwrite it", t.Name, filepath.Join(dir, tenantPath))
	}

	files := []file{{path: tenantPath, data: data}}
	own, err := kustomizationFile(path.Join(TenantsBase, t.Name, KustomizationFile), newKustomization("tenant.yaml"))
	if err != nil {
		return nil, err
	}
	files = append(files, own)
	addResource(base, t.Name)
	listed, err := kustomizationFile(path.Join(TenantsBase, KustomizationFile), base)
	if err != nil {
		return nil, err
	}
	listed.merged = true
	files = append(files, listed)

	for _, env := range envs {
		envFiles, err := envPatch(dir, t.Name, env)
		if err != nil {
			return nil, err
		}
		files = append(files, envFiles...)
	}
	return writeFiles(dir, files)
}

// envPatch is the JSON6902 patch of the tenant's source path for one
// cluster, and the cluster's kustomization.yaml listing it.
func envPatch(dir, name string, env EnvPath) ([]file, error) {
	kpath := path.Join("tenants", env.Env, KustomizationFile)
	k, err := readKustomization(dir, kpath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cluster %s: %s not found: scaffold it with landlord init fleet --clusters", env.Env, filepath.Join(dir, kpath))
	}
	if err != nil {
		return nil, err
	}
	patchName := name + "-patch.yaml"
	ops, err := yaml.Marshal([]map[string]any{{"op": "add", "path": "/spec/sources/0/path", "value": env.Path}})
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(k.Patches, func(p types.Patch) bool { return p.Path == patchName }) {
		k.Patches = append(k.Patches, types.Patch{
			Path: patchName,
			Target: &types.Selector{ResId: resid.ResId{
				Gvk:  resid.Gvk{Group: v1alpha1.GroupVersion.Group, Version: v1alpha1.GroupVersion.Version, Kind: "Tenant"},
				Name: name,
			}},
		})
	}
	kf, err := kustomizationFile(kpath, k)
	if err != nil {
		return nil, err
	}
	kf.merged = true
	return []file{{path: path.Join("tenants", env.Env, patchName), data: ops}, kf}, nil
}
