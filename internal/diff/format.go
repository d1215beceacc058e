package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText writes the report for a terminal: destructive changes first.
func WriteText(w io.Writer, r *Report) error {
	var b strings.Builder
	if !r.Changed() {
		b.WriteString("no changes\n")
	}
	if len(r.Destructive) > 0 {
		b.WriteString("DESTRUCTIVE:\n")
		for _, d := range r.Destructive {
			fmt.Fprintf(&b, "  %s\n", d.label())
		}
	}
	for _, o := range r.Overlays {
		fmt.Fprintf(&b, "%s:\n", o.Name)
		for _, t := range o.Tenants {
			fmt.Fprintf(&b, "  tenant %s %s\n", t.Name, t.Change)
			for _, f := range t.Fields {
				fmt.Fprintf(&b, "    %s: %s -> %s\n", f.Path, orNone(f.Before), orNone(f.After))
			}
			for _, obj := range t.Objects {
				fmt.Fprintf(&b, "    %s %s\n", obj.Action, obj.label())
			}
		}
	}
	for _, g := range r.Guard {
		fmt.Fprintf(&b, "guard on tenant repository %s: %s -> %s\n", g.Tenant, verdict(g.Before), verdict(g.After))
		for _, f := range g.After.Findings {
			fmt.Fprintf(&b, "  %s\n", f)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the report as a pull-request comment.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	b.WriteString("## landlord diff\n\n")
	if !r.Changed() {
		b.WriteString("No change to any tenant.\n")
	}
	if len(r.Destructive) > 0 {
		b.WriteString("### :warning: Destructive changes\n\n")
		for _, d := range r.Destructive {
			fmt.Fprintf(&b, "- **%s**\n", d.label())
		}
		b.WriteString("\n")
	}
	for _, o := range r.Overlays {
		fmt.Fprintf(&b, "### `%s`\n\n", o.Name)
		for _, t := range o.Tenants {
			fmt.Fprintf(&b, "#### Tenant `%s` %s\n\n", t.Name, t.Change)
			if len(t.Fields) > 0 {
				b.WriteString("| Field | Before | After |\n|---|---|---|\n")
				for _, f := range t.Fields {
					fmt.Fprintf(&b, "| `%s` | %s | %s |\n", f.Path, cell(f.Before), cell(f.After))
				}
				b.WriteString("\n")
			}
			for _, obj := range t.Objects {
				fmt.Fprintf(&b, "- %s `%s`\n", obj.Action, obj.label())
			}
			if len(t.Objects) > 0 {
				b.WriteString("\n")
			}
		}
	}
	if len(r.Guard) > 0 {
		b.WriteString("### Guard on tenant repositories\n\n| Tenant | Before | After |\n|---|---|---|\n")
		for _, g := range r.Guard {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", g.Tenant, verdict(g.Before), verdict(g.After))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func (d Item) label() string {
	if d.Overlay == "" {
		return d.Message
	}
	return fmt.Sprintf("%s: tenant %s: %s", d.Overlay, d.Tenant, d.Message)
}

func (o Object) label() string {
	if o.Namespace == "" {
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
}

func verdict(v Verdict) string {
	if !v.Tenant {
		return "no such tenant"
	}
	switch len(v.Findings) {
	case 0:
		return "passes"
	case 1:
		return "1 finding"
	}
	return fmt.Sprintf("%d findings", len(v.Findings))
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// cell escapes a table cell's pipes and marks an absent value.
func cell(s string) string {
	if s == "" {
		return "—"
	}
	return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
}
