package lint

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// secret reports a Secret committed without SOPS encryption: a Secret
// object without sops metadata, or one a secretGenerator makes from
// literals or from files SOPS did not encrypt.
func (l *linter) secret(o *object) {
	if !isKind(o.gvk, "", "Secret") {
		return
	}
	gen := o.generator()
	if gen == nil {
		if _, ok := o.obj["sops"]; !ok {
			l.add(o.repo.finding(RuleSecret, o.file, o.line(""),
				fmt.Sprintf("Secret %s has no sops metadata: its data is committed in plain text; allowed: a Secret encrypted with sops --encrypt, which Flux decrypts", o.name)))
		}
		return
	}
	var plain []string
	if literals := child(gen, "literals"); literals != nil && len(literals.Content) > 0 {
		plain = append(plain, "literals")
	}
	dir := path.Dir(o.file)
	for _, key := range []string{"files", "envs"} {
		list := child(gen, key)
		if list == nil {
			continue
		}
		for _, f := range list.Content {
			p := f.Value
			if _, after, ok := strings.Cut(p, "="); ok && key == "files" {
				p = after
			}
			if !sopsEncrypted(o.repo, path.Join(dir, p)) {
				plain = append(plain, p)
			}
		}
	}
	if env := scalar(gen, "env"); env != "" && !sopsEncrypted(o.repo, path.Join(dir, env)) {
		plain = append(plain, env)
	}
	if len(plain) > 0 {
		l.add(o.repo.finding(RuleSecret, o.file, gen.Line,
			fmt.Sprintf("secretGenerator %s makes Secret %s from %s, not encrypted with SOPS; allowed: files encrypted with sops --encrypt, which Flux decrypts", scalar(gen, "name"), o.name, strings.Join(plain, ", "))))
	}
}

// sopsEncrypted reports whether a file of the repository carries SOPS
// metadata: a sops_mac line in a dotenv or INI file, a top-level sops key
// in YAML or JSON.
func sopsEncrypted(r *repo, file string) bool {
	data, err := r.readFile(file)
	if err != nil {
		return false
	}
	if bytes.Contains(data, []byte("sops_mac=")) {
		return true
	}
	var doc map[string]any
	if yaml.Unmarshal(data, &doc) != nil {
		return false
	}
	meta, ok := doc["sops"].(map[string]any)
	return ok && meta["mac"] != nil
}
