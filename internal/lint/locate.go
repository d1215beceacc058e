package lint

import (
	"bytes"
	"github.com/landlord-dev/landlord/internal/policy"
	"io"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// sourceFile is a parsed YAML file: its documents' top nodes.
type sourceFile struct {
	docs []*yaml.Node
}

// source parses file once; a file that does not parse has no documents,
// and its findings fall on line 1.
func (r *repo) source(file string) *sourceFile {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.sources[file]; ok {
		return s
	}
	s := &sourceFile{}
	r.sources[file] = s
	data, err := r.readFile(file)
	if err != nil {
		return s
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			if err != io.EOF {
				s.docs = nil
			}
			return s
		}
		if len(doc.Content) > 0 {
			s.docs = append(s.docs, doc.Content[0])
		}
	}
}

// line is the line of field (a field path such as spec.sources[0].path,
// empty for the object itself) of o in its source file: the deepest part of
// the path the file holds, since a patch elsewhere may have added the rest.
func (o *object) line(field string) int {
	doc := o.document()
	if doc == nil {
		return 1
	}
	return walk(doc, policy.SplitFieldPath(field))
}

// document finds the object's document in its source file: by kind and
// name, else by kind and a name the built one contains (a prefix or suffix
// was added), else the only document of that kind, else the first.
func (o *object) document() *yaml.Node {
	src := o.repo.source(o.file)
	if o.generatedBy != "" {
		if gen := o.generator(); gen != nil {
			return gen
		}
		return firstOf(src.docs)
	}
	var sameKind []*yaml.Node
	for _, doc := range src.docs {
		if scalar(doc, "kind") != o.gvk.Kind {
			continue
		}
		if name := scalar(child(doc, "metadata"), "name"); name == o.name {
			return doc
		}
		sameKind = append(sameKind, doc)
	}
	for _, doc := range sameKind {
		if name := scalar(child(doc, "metadata"), "name"); name != "" && strings.Contains(o.name, name) {
			return doc
		}
	}
	if len(sameKind) == 1 {
		return sameKind[0]
	}
	return firstOf(src.docs)
}

// generator is the kustomization's entry that made a generated object:
// of its kind, with the longest name the object's contains, since
// kustomize adds a hash suffix and any name prefix or suffix.
func (o *object) generator() *yaml.Node {
	field := map[string]string{"SecretGenerator": "secretGenerator", "ConfigMapGenerator": "configMapGenerator"}[o.generatedBy]
	var best *yaml.Node
	for _, doc := range o.repo.source(o.file).docs {
		list := child(doc, field)
		if list == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		for _, item := range list.Content {
			name := scalar(item, "name")
			if name != "" && strings.Contains(o.name, name) && (best == nil || len(name) > len(scalar(best, "name"))) {
				best = item
			}
		}
	}
	return best
}

func firstOf(docs []*yaml.Node) *yaml.Node {
	if len(docs) == 0 {
		return nil
	}
	return docs[0]
}

// walk follows parts from n and returns the line of the deepest node
// found. A part not found as a key is joined with the next ones, since keys
// such as app.kubernetes.io/name hold dots.
func walk(n *yaml.Node, parts []string) int {
	line := n.Line
	for i := 0; i < len(parts); i++ {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		switch n.Kind {
		case yaml.MappingNode:
			key, value, used := lookup(n, parts[i:])
			if key == nil {
				return line
			}
			line, n = key.Line, value
			i += used - 1
		case yaml.SequenceNode:
			idx, err := strconv.Atoi(parts[i])
			if err != nil || idx < 0 || idx >= len(n.Content) {
				return line
			}
			n = n.Content[idx]
			line = n.Line
		default:
			return line
		}
	}
	return line
}

// lookup finds the key of mapping n spelled by the fewest leading parts
// joined with dots, and how many parts it took.
func lookup(n *yaml.Node, parts []string) (key, value *yaml.Node, used int) {
	name := ""
	for j, part := range parts {
		if j > 0 {
			name += "."
		}
		name += part
		for k := 0; k+1 < len(n.Content); k += 2 {
			if n.Content[k].Value == name {
				return n.Content[k], n.Content[k+1], j + 1
			}
		}
	}
	return nil, nil, 0
}
