// Package apivalidation validates objects offline as kube-apiserver does on
// create: ObjectMeta, pruning of unknown fields, defaulting, the OpenAPI
// schema, list types and a CRD's validation rules (CEL). It knows the
// built-in kinds by their published schemas and Landlord's and Flux's kinds
// by the CRDs of package config.
package apivalidation

import (
	"cmp"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	metavalidation "k8s.io/apimachinery/pkg/api/validation"
	apipath "k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/landlord-dev/landlord/config"
)

// builtinFiles are the OpenAPI v3 schemas of the built-in stable
// group-versions and their resources' scopes, written by hack/openapi from
// the pinned kube-apiserver.
//
//go:embed schemas/*.json
var builtinFiles embed.FS

// resourcesFile lists each built-in kind and whether it is namespaced.
const resourcesFile = "schemas/resources.json"

// Kind judges objects of one kind as the apiserver does on create.
type Kind struct {
	gvk        schema.GroupVersionKind
	namespaced bool
	// builtin kinds are validated by Go code in the apiserver; this package
	// has their published OpenAPI schema only.
	builtin bool
	// dropStatus is set when the apiserver ignores status on create.
	dropStatus bool
	structural *structuralschema.Structural
	validator  validation.SchemaValidator
	// cel holds the CRD's x-kubernetes-validations, nil when it has none.
	cel *cel.Validator
}

// Namespaced reports whether objects of the kind live in a namespace.
func (k *Kind) Namespaced() bool {
	return k.namespaced
}

// Result is what the apiserver refuses in an object, by what refuses it.
type Result struct {
	// Unknown are the paths of fields the schema does not define: the
	// apiserver drops them, or refuses them under strict field validation.
	Unknown []string
	// Schema are the errors of ObjectMeta, the OpenAPI schema and list types.
	Schema field.ErrorList
	// Rules are the errors of the CRD's validation rules (CEL), or the one
	// error on the whole object saying they were not checked.
	Rules field.ErrorList
}

// Errors are every error of r, an unknown field as Forbidden, as the
// apiserver lists them.
func (r Result) Errors() field.ErrorList {
	var errs field.ErrorList
	for _, p := range r.Unknown {
		errs = append(errs, &field.Error{Type: field.ErrorTypeForbidden, Field: p, BadValue: field.OmitValueType{}, Detail: "unknown field"})
	}
	errs = append(errs, r.Schema...)
	return append(errs, r.Rules...)
}

// Validate judges obj, created in namespace (empty when unknown), the way
// the apiserver's custom resource handler does: ObjectMeta, pruning of
// unknown fields, defaulting, then the schema, list types and CEL rules.
// Built-in kinds go through the same steps less defaulting, list types and
// CEL, which the apiserver implements in Go for them. obj is not changed.
func (k *Kind) Validate(ctx context.Context, obj map[string]any, namespace string) Result {
	return k.validate(ctx, runtime.DeepCopyJSON(obj), namespace)
}

// Default returns a copy of obj with the defaults of the kind's schema set,
// as the apiserver stores a custom resource; a built-in kind's is unchanged.
func (k *Kind) Default(obj map[string]any) map[string]any {
	out := runtime.DeepCopyJSON(obj)
	if !k.builtin {
		structuraldefaulting.Default(out, k.structural)
	}
	return out
}

// validate is Validate on an object it may prune and default.
func (k *Kind) validate(ctx context.Context, obj map[string]any, namespace string) Result {
	if k.dropStatus {
		delete(obj, "status")
	}
	var r Result
	meta, _, metaUnknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		r.Schema = field.ErrorList{{Type: field.ErrorTypeTypeInvalid, Field: "metadata", BadValue: field.OmitValueType{}, Detail: err.Error()}}
		return r
	}
	r.Unknown = append(r.Unknown, metaUnknown...)
	r.Unknown = append(r.Unknown, structuralpruning.PruneWithOptions(obj, k.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, k.structural)
	if !k.builtin {
		err, paths := schemaobjectmeta.CoerceWithOptions(nil, obj, k.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
		if err != nil {
			r.Schema = field.ErrorList{err}
			return r
		}
		r.Unknown = append(r.Unknown, paths...)
		structuraldefaulting.Default(obj, k.structural)
	}

	if meta != nil {
		// The request's namespace is the object's: cluster-scoped objects
		// lose theirs, and namespace, where Flux applies it, wins.
		u := &unstructured.Unstructured{Object: map[string]any{}}
		u.SetName(meta.Name)
		u.SetGenerateName(meta.GenerateName)
		u.SetLabels(meta.Labels)
		u.SetAnnotations(meta.Annotations)
		u.SetFinalizers(meta.Finalizers)
		u.SetOwnerReferences(meta.OwnerReferences)
		if k.namespaced {
			u.SetNamespace(cmp.Or(namespace, meta.Namespace))
		}
		r.Schema = append(r.Schema, metaErrors(u, k)...)
	}
	r.Schema = append(r.Schema, validation.ValidateCustomResource(nil, obj, k.validator)...)
	if !k.builtin {
		r.Schema = append(r.Schema, schemaobjectmeta.Validate(nil, obj, k.structural, false)...)
		r.Schema = append(r.Schema, structurallisttype.ValidateListSetsAndMaps(nil, k.structural, obj)...)
	}
	if k.cel == nil {
		return r
	}
	if blocked := blocking(r.Schema); blocked != nil {
		r.Rules = field.ErrorList{blocked}
		return r
	}
	r.Rules, _ = k.cel.Validate(ctx, nil, k.structural, obj, nil, celconfig.RuntimeCELCostBudget)
	return r
}

// metaErrors validates ObjectMeta as the apiserver does. Names of custom
// resources are DNS subdomains; each built-in kind checks its names in Go,
// which OpenAPI does not publish, so this package checks the rule they all share:
// a name must be a valid path segment.
func metaErrors(u *unstructured.Unstructured, k *Kind) field.ErrorList {
	nameFn := metavalidation.NameIsDNSSubdomain
	if k.builtin {
		nameFn = apipath.ValidatePathSegmentName
	}
	namespaced := k.namespaced && u.GetNamespace() != ""
	return metavalidation.ValidateObjectMetaAccessor(u, namespaced, nameFn, field.NewPath("metadata"))
}

// blocking is the apiserver's hasBlockingErr: CEL rules do not run on an
// object whose errors would make them misleading.
func blocking(errs field.ErrorList) *field.Error {
	for _, err := range errs {
		switch err.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")
		}
	}
	return nil
}

// Schemas finds the schema of a kind: built-in kinds from the embedded
// OpenAPI, Landlord's and Flux's kinds from the CRDs in config/, then the
// CRDs added with AddCRD.
type Schemas struct {
	builtin *builtinSchemas
	crds    map[schema.GroupVersionKind]*Kind

	mu    sync.Mutex
	kinds map[schema.GroupVersionKind]*Kind
}

// NewSchemas starts from the built-in kinds and config/'s CRDs, compiled
// once per process since compiling them dominates a small lint.
func NewSchemas() (*Schemas, error) {
	base, err := loadBase()
	if err != nil {
		return nil, err
	}
	crds := make(map[schema.GroupVersionKind]*Kind, len(base.crds))
	for gvk, k := range base.crds {
		crds[gvk] = k
	}
	return &Schemas{builtin: base.builtin, crds: crds, kinds: map[schema.GroupVersionKind]*Kind{}}, nil
}

// baseSchemas are the schemas every run starts from.
type baseSchemas struct {
	builtin *builtinSchemas
	crds    map[schema.GroupVersionKind]*Kind
}

var loadBase = sync.OnceValues(func() (*baseSchemas, error) {
	builtin, err := loadBuiltins()
	if err != nil {
		return nil, err
	}
	crds, err := config.CRDs()
	if err != nil {
		return nil, fmt.Errorf("config CRDs: %w", err)
	}
	base := &baseSchemas{builtin: builtin, crds: map[schema.GroupVersionKind]*Kind{}}
	for _, crd := range crds {
		kinds, err := crdSchemas(crd)
		if err != nil {
			return nil, err
		}
		for _, k := range kinds {
			base.crds[k.gvk] = k
		}
	}
	return base, nil
})

// AddCRD makes the kinds of a CRD known, unless a built-in or config/
// schema already defines them.
func (s *Schemas) AddCRD(crd *apiextensionsv1.CustomResourceDefinition) error {
	kinds, err := crdSchemas(crd)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range kinds {
		if _, ok := s.crds[k.gvk]; !ok && !s.builtin.has(k.gvk) {
			s.crds[k.gvk] = k
		}
	}
	return nil
}

// Lookup returns the schema of gvk, nil if no source knows it.
func (s *Schemas) Lookup(gvk schema.GroupVersionKind) (*Kind, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k, ok := s.kinds[gvk]; ok {
		return k, nil
	}
	var k *Kind
	if s.builtin.has(gvk) {
		var err error
		if k, err = s.builtin.kind(gvk); err != nil {
			return nil, err
		}
	} else {
		k = s.crds[gvk]
	}
	s.kinds[gvk] = k
	return k, nil
}

// crdSchemas are the served versions of a CRD, as the apiserver's custom
// resource handler builds them.
// CRDSchema is the schema of one version of crd as the API server reads
// it: its internal form, and its structural form with the defaults the API
// server prunes pruned.
func CRDSchema(crd *apiextensionsv1.CustomResourceDefinition, version string) (*apiextensions.JSONSchemaProps, *structuralschema.Structural, error) {
	val, err := apihelpers.GetSchemaForVersion(crd, version)
	if err != nil || val == nil {
		return nil, nil, fmt.Errorf("CRD %s version %s: no schema: %v", crd.Name, version, err)
	}
	internal := &apiextensions.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, internal, nil); err != nil {
		return nil, nil, fmt.Errorf("CRD %s version %s: %w", crd.Name, version, err)
	}
	structural, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, nil, fmt.Errorf("CRD %s version %s: not a structural schema: %w", crd.Name, version, err)
	}
	structural = structural.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(structural); err != nil {
		return nil, nil, fmt.Errorf("CRD %s version %s: %w", crd.Name, version, err)
	}
	return internal.OpenAPIV3Schema, structural, nil
}

func crdSchemas(crd *apiextensionsv1.CustomResourceDefinition) ([]*Kind, error) {
	var kinds []*Kind
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		internal, structural, err := CRDSchema(crd, v.Name)
		if err != nil {
			return nil, err
		}
		validator, _, err := validation.NewSchemaValidator(internal)
		if err != nil {
			return nil, fmt.Errorf("CRD %s version %s: %w", crd.Name, v.Name, err)
		}
		subresources, err := apihelpers.GetSubresourcesForVersion(crd, v.Name)
		if err != nil {
			return nil, err
		}
		kinds = append(kinds, &Kind{
			gvk:        schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind},
			namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
			dropStatus: subresources != nil && subresources.Status != nil,
			structural: structural,
			validator:  validator,
			cel:        cel.NewValidator(structural, true, celconfig.PerCallLimit),
		})
	}
	return kinds, nil
}

// builtinSchemas are the embedded OpenAPI definitions of the built-in
// kinds.
type builtinSchemas struct {
	defs       map[string]*spec.Schema
	kinds      map[schema.GroupVersionKind]string
	namespaced map[schema.GroupVersionKind]bool
}

const refPrefix = "#/components/schemas/"

func loadBuiltins() (*builtinSchemas, error) {
	b := &builtinSchemas{defs: map[string]*spec.Schema{}, kinds: map[schema.GroupVersionKind]string{}, namespaced: map[schema.GroupVersionKind]bool{}}
	data, err := builtinFiles.ReadFile(resourcesFile)
	if err != nil {
		return nil, err
	}
	var scopes map[string]map[string]bool
	if err := json.Unmarshal(data, &scopes); err != nil {
		return nil, fmt.Errorf("%s: %w", resourcesFile, err)
	}
	for gv, kinds := range scopes {
		parsed, err := schema.ParseGroupVersion(gv)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", resourcesFile, err)
		}
		for kind, namespaced := range kinds {
			b.namespaced[parsed.WithKind(kind)] = namespaced
		}
	}
	files, err := builtinFiles.ReadDir("schemas")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		name := path.Join("schemas", f.Name())
		if name == resourcesFile {
			continue
		}
		data, err := builtinFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var defs map[string]*spec.Schema
		if err := json.Unmarshal(data, &defs); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for def, s := range defs {
			goDecodes(s)
			if def == quantityDef {
				quantityPattern(s)
			}
			b.defs[def] = s
			gvks, _ := s.Extensions["x-kubernetes-group-version-kind"].([]any)
			for _, g := range gvks {
				m, _ := g.(map[string]any)
				group, _ := m["group"].(string)
				version, _ := m["version"].(string)
				kind, _ := m["kind"].(string)
				gvk := schema.GroupVersionKind{Group: group, Version: version, Kind: kind}
				// Only served resources: WatchEvent and the like name
				// every group-version too.
				if _, ok := b.namespaced[gvk]; ok {
					b.kinds[gvk] = def
				}
			}
		}
	}
	return b, nil
}

// goDecodes drops the formats of a built-in schema that Go decodes more
// leniently than OpenAPI validates: byte, which Go's base64 decodes across
// the line breaks kustomize's generators write, and int-or-string, which
// kube-openapi's validator takes for a type and so refuses every integer
// (a NetworkPolicy's port: 8080); the schema's oneOf integer or string
// still holds, and the extension keeps it int-or-string for pruning.
func goDecodes(s *spec.Schema) {
	if s == nil {
		return
	}
	switch s.Format {
	case "byte":
		s.Format = ""
	case "int-or-string":
		s.Format = ""
		s.AddExtension("x-kubernetes-int-or-string", true)
	}
	for name, p := range s.Properties {
		goDecodes(&p)
		s.Properties[name] = p
	}
	if s.Items != nil {
		goDecodes(s.Items.Schema)
	}
	if s.AdditionalProperties != nil {
		goDecodes(s.AdditionalProperties.Schema)
	}
	for i := range s.AllOf {
		goDecodes(&s.AllOf[i])
	}
}

// quantityDef is the definition of resource.Quantity.
const quantityDef = "io.k8s.apimachinery.pkg.api.resource.Quantity"

// quantityPattern gives the string form of a quantity the regular
// expression the apiserver's decoder names when it refuses one ("1x"),
// which the published schema leaves out.
func quantityPattern(s *spec.Schema) {
	for i := range s.OneOf {
		if s.OneOf[i].Type.Contains("string") {
			s.OneOf[i].Pattern = `^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$`
		}
	}
}

func (b *builtinSchemas) has(gvk schema.GroupVersionKind) bool {
	_, ok := b.kinds[gvk]
	return ok
}

// kind resolves the references of a built-in kind's schema and builds its
// validators.
func (b *builtinSchemas) kind(gvk schema.GroupVersionKind) (*Kind, error) {
	resolved, err := resolver.PopulateRefs(func(ref string) (*spec.Schema, bool) {
		s, ok := b.defs[strings.TrimPrefix(ref, refPrefix)]
		return s, ok
	}, refPrefix+b.kinds[gvk])
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", gvk, err)
	}
	return &Kind{
		gvk:        gvk,
		namespaced: b.namespaced[gvk],
		builtin:    true,
		dropStatus: true,
		structural: toStructural(resolved),
		validator:  validation.NewSchemaValidatorFromOpenAPI(resolved),
	}, nil
}

// toStructural is the skeleton of a built-in schema that pruning walks.
// An object with neither properties nor additionalProperties is free-form
// there (a RawExtension, or a cycle PopulateRefs cut), so its fields are
// kept rather than reported unknown.
func toStructural(s *spec.Schema) *structuralschema.Structural {
	st := &structuralschema.Structural{}
	if len(s.Type) == 1 {
		st.Type = s.Type[0]
	}
	preserve, _ := s.Extensions["x-kubernetes-preserve-unknown-fields"].(bool)
	embedded, _ := s.Extensions["x-kubernetes-embedded-resource"].(bool)
	intOrString, _ := s.Extensions["x-kubernetes-int-or-string"].(bool)
	st.XPreserveUnknownFields = preserve || st.Type == "object" && len(s.Properties) == 0 && s.AdditionalProperties == nil
	st.XEmbeddedResource = embedded
	st.XIntOrString = intOrString
	if len(s.Properties) > 0 {
		st.Properties = make(map[string]structuralschema.Structural, len(s.Properties))
		for name, p := range s.Properties {
			st.Properties[name] = *toStructural(&p)
		}
	}
	if s.Items != nil && s.Items.Schema != nil {
		st.Items = toStructural(s.Items.Schema)
	}
	if ap := s.AdditionalProperties; ap != nil {
		st.AdditionalProperties = &structuralschema.StructuralOrBool{Bool: ap.Allows}
		if ap.Schema != nil {
			st.AdditionalProperties = &structuralschema.StructuralOrBool{Bool: true, Structural: toStructural(ap.Schema)}
		}
	}
	return st
}
