package lint

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/template"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// DefaultSchemaLocation names, as in kubeconform, the schemas lint has
// without being told: the built-in kinds, Flux's and Landlord's, and the
// CRDs the fleet installs. They are always used and take precedence: they
// are what the apiserver judges by.
const DefaultSchemaLocation = "default"

// schemaTree is what kubeconform appends to a location that is not a
// template of a JSON file: the layout of kubernetes-json-schema.
const schemaTree = "/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json"

// schemaLocations finds JSON schemas, for kinds lint has no schema of, in
// local directories laid out as kubeconform reads them.
type schemaLocations struct {
	templates []*template.Template
	strict    bool

	mu     sync.Mutex
	byKind map[schema.GroupVersionKind]*located
}

// located is the JSON schema found for a kind, or why it could not be read.
type located struct {
	file   string
	schema *jsonschema.Schema
	err    error
}

// newSchemaLocations reads --schema-location values the way kubeconform
// does: "default", a directory laid out as kubernetes-json-schema, or a Go
// template of a path ending in .json. Lint runs offline: URLs are refused.
func newSchemaLocations(values []string, strict bool) (*schemaLocations, error) {
	s := &schemaLocations{strict: strict, byKind: map[schema.GroupVersionKind]*located{}}
	for _, v := range values {
		switch {
		case v == DefaultSchemaLocation:
			continue
		case strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://"):
			return nil, fmt.Errorf("--schema-location %q: lint runs offline; allowed: %s, a local directory, or a templated path ending in .json such as 'schemas/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json'", v, DefaultSchemaLocation)
		case !strings.HasSuffix(v, "json"):
			if info, err := os.Stat(v); err != nil || !info.IsDir() {
				return nil, fmt.Errorf("--schema-location %q: not a directory; allowed: %s, a local directory, or a templated path ending in .json", v, DefaultSchemaLocation)
			}
			v = strings.TrimSuffix(v, "/") + schemaTree
		}
		tpl, err := template.New("schema-location").Option("missingkey=error").Parse(v)
		if err == nil {
			_, err = s.path(tpl, schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
		}
		if err != nil {
			return nil, fmt.Errorf("--schema-location %q: %w; variables: NormalizedKubernetesVersion, StrictSuffix, ResourceKind, ResourceAPIVersion, Group, KindSuffix", v, err)
		}
		s.templates = append(s.templates, tpl)
	}
	return s, nil
}

// path is the file tpl names for gvk, with kubeconform's variables: the
// kind in lower case, the version, the group ("v1" for the core group, as
// kubeconform has it), the suffix kubeval's registries use (-apps-v1,
// -kyverno-v1 for kyverno.io/v1), and the Kubernetes version "master".
func (s *schemaLocations) path(tpl *template.Template, gvk schema.GroupVersionKind) (string, error) {
	apiVersion := gvk.GroupVersion().String()
	parts := strings.Split(apiVersion, "/")
	suffix := "-" + strings.ToLower(strings.Split(parts[0], ".")[0])
	if len(parts) > 1 {
		suffix += "-" + strings.ToLower(parts[1])
	}
	strictSuffix := ""
	if s.strict {
		strictSuffix = "-strict"
	}
	var b bytes.Buffer
	err := tpl.Execute(&b, map[string]string{
		"NormalizedKubernetesVersion": "master",
		"StrictSuffix":                strictSuffix,
		"ResourceKind":                strings.ToLower(gvk.Kind),
		"ResourceAPIVersion":          parts[len(parts)-1],
		"Group":                       parts[0],
		"KindSuffix":                  suffix,
	})
	return b.String(), err
}

// lookup is the JSON schema of the first location holding a file for gvk,
// nil when none does.
func (s *schemaLocations) lookup(gvk schema.GroupVersionKind) *located {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.byKind[gvk]; ok {
		return l
	}
	var found *located
	for _, tpl := range s.templates {
		file, err := s.path(tpl, gvk)
		if err != nil {
			continue // checked with another kind when read
		}
		data, err := os.ReadFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		found = &located{file: file}
		if err == nil {
			found.schema, err = compileSchema(file, data)
		}
		found.err = err
		break
	}
	s.byKind[gvk] = found
	return found
}

// compileSchema compiles one JSON schema file; a schema naming no draft is
// read as draft 4, as kubeconform's registries are written.
func compileSchema(file string, data []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft4)
	url := "file://" + filepath.ToSlash(abs)
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// schemaProblem is one place an object fails a JSON schema.
type schemaProblem struct {
	// field is a path such as spec.rules.0.name, empty for the object.
	field   string
	message string
}

var english = message.NewPrinter(language.English)

// validateJSON lists where obj fails sch: the innermost errors, each at
// its field.
func validateJSON(sch *jsonschema.Schema, obj map[string]any) []schemaProblem {
	err := sch.Validate(obj)
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		if err != nil {
			return []schemaProblem{{message: err.Error()}}
		}
		return nil
	}
	var problems []schemaProblem
	var leaves func(e *jsonschema.ValidationError)
	leaves = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			field := fieldPath(e.InstanceLocation)
			msg := e.ErrorKind.LocalizedString(english)
			if field != "" {
				msg = field + ": " + msg
			}
			problems = append(problems, schemaProblem{field: field, message: msg})
			return
		}
		for _, c := range e.Causes {
			leaves(c)
		}
	}
	leaves(verr)
	slices.SortFunc(problems, func(a, b schemaProblem) int { return strings.Compare(a.message, b.message) })
	return slices.Compact(problems)
}

// fieldPath writes a JSON schema's instance location as the apiserver
// writes field paths: spec.rules[0].name.
func fieldPath(parts []string) string {
	var b strings.Builder
	for _, p := range parts {
		if p != "" && strings.Trim(p, "0123456789") == "" {
			b.WriteString("[" + p + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}
