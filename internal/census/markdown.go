package census

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/landlord-dev/landlord/internal/kinds"
	"github.com/landlord-dev/landlord/internal/policy"
)

// The markers around the census in docs/security.md; Splice writes what
// lies between them.
const (
	Begin = "<!-- BEGIN census: written by `go run ./hack/census` (make generate) from internal/census; do not edit -->"
	End   = "<!-- END census -->"
)

// Splice replaces the census between the markers of doc with Markdown().
func Splice(doc []byte) ([]byte, error) {
	begin := bytes.Index(doc, []byte(Begin))
	end := bytes.Index(doc, []byte(End))
	if begin < 0 || end < begin {
		return nil, errors.New("no census markers, in order: " + Begin + " ... " + End)
	}
	var out bytes.Buffer
	out.Write(doc[:begin+len(Begin)])
	out.WriteString("\n")
	out.WriteString(Markdown())
	out.Write(doc[end:])
	return out.Bytes(), nil
}

// Markdown renders the census for docs/security.md.
func Markdown() string {
	var b strings.Builder
	rule, safe, open := Counts()
	fmt.Fprintf(&b, "%d rows over the %d kinds tenants may write or the guard judges (the registry's, `kinds.Kind.Tenant` write or create, or `Judged`): "+
		"%d refused pointing outside by a rule, %d safe, %d open. "+
		"`go test ./internal/census` walks every served version of each kind's schema, as the pinned API server and the Flux CRDs serve it, "+
		"and fails on a field the patterns below match that no row covers; it runs each rule row's attack through the policy "+
		"at every place the field sits, as a tenant's reconciler and owner, and fails unless the rule refuses it and lets the neighbour through. "+
		"`landlord audit` sends the same attacks to a live cluster as each tenant's reconciler, in dry run, wherever the policy refuses them for that tenant (`go test ./internal/audit -run TestAudit$`).\n\n",
		len(Rows), len(Scope()), rule, safe, open)

	b.WriteString("**Open: what no rule refuses.**\n\n")
	for _, r := range Rows {
		if r.Open != "" {
			fmt.Fprintf(&b, "- %s `%s`: %s.\n", r.On, r.Path, r.Open)
		}
	}

	b.WriteString("\n**Patterns.** A field is in the census when its name matches one of:\n\n")
	for _, p := range Patterns {
		fmt.Fprintf(&b, "- %s\n", p.What)
	}

	b.WriteString("\n**Shapes.** A row on a shape holds wherever the shape sits; `internal/census` derives each kind's places from these, and `TestEmbeddingsAgree` holds them to the schemas.\n\n")
	b.WriteString("| shape | what | sits in |\n|---|---|---|\n")
	for _, s := range Shapes {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", s.Name, s.Doc, strings.Join(places(s), ", "))
	}

	b.WriteString("\n**Rows.** Paths are from the kind's or the shape's root: `[]` is any item of a list, `{}` any value of a map, `{key}` one key; a path ending in `…` holds for everything below it.\n\n")
	b.WriteString("| kind or shape | field | can point at | judged |\n|---|---|---|---|\n")
	for _, r := range ordered() {
		path := "`" + r.Path + "`"
		if r.Whole {
			path = "`" + r.Path + "…`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.On, path, r.Points, verdict(r))
	}
	return b.String()
}

// places lists where a shape sits, ObjectMeta's every kind at once.
func places(s *Shape) []string {
	if s == ObjectMeta {
		return []string{"every kind, at `metadata`"}
	}
	var out []string
	for _, e := range Embeddings() {
		if e.Shape == s {
			out = append(out, e.In.String()+" `"+e.Path()+"`")
		}
	}
	return out
}

// ordered lists the rows as the table shows them: kinds in the
// registry's order, then shapes in Shapes' order, each in the table's.
func ordered() []Row {
	rank := map[string]int{}
	for i, s := range Shapes {
		rank[s.Name] = i
	}
	for i, k := range kinds.All {
		rank[k.Kind] = len(Shapes) + i
	}
	rank[ObjectMeta.Name] = -1
	out := slices.Clone(Rows)
	slices.SortStableFunc(out, func(a, b Row) int {
		ka, kb := rank[a.On.String()], rank[b.On.String()]
		if a.On.Shape != nil && a.On != (On{Shape: ObjectMeta}) {
			ka += len(kinds.All) + len(Shapes)
		}
		if b.On.Shape != nil && b.On != (On{Shape: ObjectMeta}) {
			kb += len(kinds.All) + len(Shapes)
		}
		return ka - kb
	})
	return out
}

// verdict is the last column: the rule and its name, or why.
func verdict(r Row) string {
	switch {
	case r.Rule != "":
		i := slices.IndexFunc(policy.Rules, func(p policy.Rule) bool { return p.ID == r.Rule })
		if i < 0 {
			return r.Rule
		}
		return r.Rule + " " + policy.Rules[i].Name
	case r.Open != "":
		return "**open**: " + r.Open
	}
	return "safe: " + r.Safe
}
