package dashboard

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
)

// pageSize is how many tenants one page of the index shows.
const pageSize = 50

// Values a parameter of the tenants page allows.
var (
	statuses = []string{"", "ready", "notready", "unknown"}
	sorts    = []string{"name", "ready", "age", "denials"}
	orders   = []string{"asc", "desc"}
)

// statusOf is the Ready condition's status each status parameter selects.
var statusOf = map[string]string{"ready": "True", "notready": "False", "unknown": "Unknown"}

// query is what the tenants page is asked in its URL, so that a link
// shares it and the page needs no script:
// ?q=&status=&denials=1&owner=&label=&sort=&order=&page=.
type query struct {
	// Q is part of a tenant's name, in any case.
	Q string
	// Status is "", ready, notready or unknown.
	Status string
	// Denials keeps the tenants the guard refused in the last hour.
	Denials bool
	// Owner is the name of one of a tenant's owners, of any kind.
	Owner string
	// Label is a label selector, as kubectl -l takes it.
	Label    string
	selector labels.Selector
	// Sort is the column: name, ready, age or denials; Desc reverses it.
	Sort string
	Desc bool
	// Page counts from 1.
	Page int
}

// paramError answers 400: a parameter of the tenants page with a value it
// does not allow.
type paramError struct {
	param, value, allowed string
}

func (e *paramError) Error() string {
	return fmt.Sprintf("parameter %s=%q is not allowed; allowed: %s", e.param, e.value, e.allowed)
}

// oneOf spells the allowed values of a paramError, quoted.
func oneOf(values []string) string {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = strconv.Quote(v)
	}
	return "one of " + strings.Join(quoted, ", ")
}

// parseQuery reads and checks the tenants page's parameters.
func parseQuery(v url.Values) (query, error) {
	q := query{Q: strings.TrimSpace(v.Get("q")), Status: v.Get("status"), Owner: strings.TrimSpace(v.Get("owner")),
		Label: strings.TrimSpace(v.Get("label")), Sort: cmp.Or(v.Get("sort"), "name"), Page: 1, selector: labels.Everything()}
	if !slices.Contains(statuses, q.Status) {
		return q, &paramError{"status", q.Status, oneOf(statuses)}
	}
	switch d := v.Get("denials"); d {
	case "", "0":
	case "1":
		q.Denials = true
	default:
		return q, &paramError{"denials", d, oneOf([]string{"", "0", "1"})}
	}
	if q.Label != "" {
		sel, err := labels.Parse(q.Label)
		if err != nil {
			return q, &paramError{"label", q.Label, "a label selector such as team=payments,env!=prod (" + err.Error() + ")"}
		}
		q.selector = sel
	}
	if !slices.Contains(sorts, q.Sort) {
		return q, &paramError{"sort", q.Sort, oneOf(sorts)}
	}
	switch o := v.Get("order"); o {
	case "", "asc":
	case "desc":
		q.Desc = true
	default:
		return q, &paramError{"order", o, oneOf(orders)}
	}
	if p := v.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return q, &paramError{"page", p, "a whole number from 1"}
		}
		q.Page = n
	}
	return q, nil
}

// values spells q as URL parameters, defaults left out.
func (q query) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"q": q.Q, "status": q.Status, "owner": q.Owner, "label": q.Label} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if q.Denials {
		v.Set("denials", "1")
	}
	if q.Sort != "name" {
		v.Set("sort", q.Sort)
	}
	if q.Desc {
		v.Set("order", "desc")
	}
	if q.Page > 1 {
		v.Set("page", strconv.Itoa(q.Page))
	}
	return v
}

func (q query) link() string {
	if v := q.values().Encode(); v != "" {
		return "/?" + v
	}
	return "/"
}

// SortLink is the index sorted by column, reversed when it is sorted so
// already, from its first page.
func (q query) SortLink(column string) string {
	q.Desc = q.Sort == column && !q.Desc
	q.Sort, q.Page = column, 1
	return q.link()
}

// Sorted is "asc" or "desc" when the index is sorted by column, "" if not.
func (q query) Sorted(column string) string {
	switch {
	case q.Sort != column:
		return ""
	case q.Desc:
		return "desc"
	}
	return "asc"
}

// PageLink is the same index at page n.
func (q query) PageLink(n int) string {
	q.Page = n
	return q.link()
}

// Filtered tells whether any parameter narrows the index.
func (q query) Filtered() bool {
	return q.Q != "" || q.Status != "" || q.Denials || q.Owner != "" || q.Label != ""
}

// summary counts every tenant the viewer may see, whatever the filter.
type summary struct {
	Tenants, Ready, NotReady, Unknown int
	// Denials is the guard's refusals in the last hour, summed; Denied
	// counts the tenants refused. Both -1 when they could not be read.
	Denials, Denied int
}

// index is the tenants page: one page of the tenants the query keeps, in
// its order.
type index struct {
	Query   query
	Summary summary
	// Matched is how many tenants the query keeps, on every page.
	Matched     int
	Rows        []tenantRow
	Page, Pages int
}

// PrevLink and NextLink are the neighbouring pages, "" at either end.
func (x index) PrevLink() string {
	if x.Page <= 1 {
		return ""
	}
	return x.Query.PageLink(x.Page - 1)
}

func (x index) NextLink() string {
	if x.Page >= x.Pages {
		return ""
	}
	return x.Query.PageLink(x.Page + 1)
}

// First and Last number the page's rows among those matched, from 1.
func (x index) First() int { return (x.Page-1)*pageSize + 1 }
func (x index) Last() int  { return x.First() + len(x.Rows) - 1 }

// newIndex summarizes rows, keeps those q asks for, sorts them and cuts
// out q's page; a page past the last shows the last.
func newIndex(rows []tenantRow, q query) index {
	x := index{Query: q, Summary: summarize(rows)}
	var kept []tenantRow
	for _, r := range rows {
		if q.keeps(r) {
			kept = append(kept, r)
		}
	}
	slices.SortStableFunc(kept, q.compare)
	x.Matched = len(kept)
	x.Pages = max(1, (len(kept)+pageSize-1)/pageSize)
	x.Page = min(q.Page, x.Pages)
	x.Query.Page = x.Page
	start := (x.Page - 1) * pageSize
	x.Rows = kept[start:min(start+pageSize, len(kept))]
	return x
}

func summarize(rows []tenantRow) summary {
	s := summary{Tenants: len(rows)}
	for _, r := range rows {
		switch r.Ready {
		case "True":
			s.Ready++
		case "False":
			s.NotReady++
		default:
			s.Unknown++
		}
		switch {
		case r.Denials < 0:
			s.Denials, s.Denied = -1, -1
		case r.Denials > 0 && s.Denials >= 0:
			s.Denials += r.Denials
			s.Denied++
		}
	}
	return s
}

func (q query) keeps(r tenantRow) bool {
	switch {
	case q.Q != "" && !strings.Contains(strings.ToLower(r.Name), strings.ToLower(q.Q)):
		return false
	case q.Status != "" && r.Ready != statusOf[q.Status]:
		return false
	case q.Denials && r.Denials <= 0:
		return false
	case q.Owner != "" && !slices.ContainsFunc(r.Owners, func(o owner) bool { return o.Name == q.Owner }):
		return false
	}
	return q.selector.Matches(labels.Set(r.Labels))
}

// readiness orders Ready's statuses for the ready column: the tenants
// that need a look first.
var readiness = map[string]int{"False": 0, "Unknown": 1, "True": 2}

// compare orders two rows by q's column, then by name.
func (q query) compare(a, b tenantRow) int {
	var c int
	switch q.Sort {
	case "ready":
		c = cmp.Compare(readiness[a.Ready], readiness[b.Ready])
	case "age":
		// Youngest first: the age column grows down the page.
		c = b.Created.Compare(a.Created)
	case "denials":
		c = cmp.Compare(a.Denials, b.Denials)
	}
	if c == 0 {
		c = strings.Compare(a.Name, b.Name)
	}
	if q.Desc {
		return -c
	}
	return c
}
