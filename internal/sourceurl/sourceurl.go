// Package sourceurl turns a Tenant's allowedSources patterns into the
// regular expressions every judge of a URL matches: the API server's
// admission policy (CEL's matches is RE2, as Go's regexp is), the webhook,
// lint and audit. The pattern's meaning lives here once.
package sourceurl

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// Malformed matches the URLs no pattern allows whatever it says: dot
// segments, plain or percent-encoded, empty segments, and encoded slashes
// or backslashes, which a server may resolve to another path than the one
// matched.
const Malformed = `(?i)(/|^)(\.|%2e){1,2}(/|$)|%2f|%5c|\\|[^:/]//`

// Character classes of a URL's parts: a host's are those net/url accepts
// there but ':' (ASCII only, so a wildcard never matches a name net/url
// refuses), never '/', '?', '#' or '@', so that a query, a fragment or
// user information never passes for a host; a path segment holds no '/',
// '?', '#', control character or backslash, and '%' only to start an
// escape.
const (
	hostChars    = `[-a-zA-Z0-9._~!$&'()*+,;=]`
	segmentChars = `(?:[^/?#%\x00-\x20\x7f\\]|%[0-9A-Fa-f]{2})`
)

// Regexp is the anchored regular expression of an allowedSources pattern:
// scheme, user and port exactly, the host case-insensitively, host and
// path segment by segment with '*' any run within one, a trailing "/*"
// one segment or more below; a trailing slash, but no query or fragment.
// ok is false for a pattern that is no absolute URL, or holds a query, a
// fragment or an empty or dot segment: it matches nothing.
func Regexp(pattern string) (expr string, ok bool) {
	u, err := url.Parse(pattern)
	if err != nil || u.Scheme == "" || u.Host == "" || u.Opaque != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(pattern, "#") {
		return "", false
	}
	segments := segments(u.EscapedPath())
	for _, s := range segments {
		if s == "" || s == "." || s == ".." {
			return "", false
		}
	}
	var b strings.Builder
	b.WriteString(`^(?i:` + regexp.QuoteMeta(u.Scheme) + `)://`)
	if user := u.User.String(); user != "" {
		b.WriteString(regexp.QuoteMeta(user) + "@")
	}
	host := glob(strings.ToLower(u.Hostname()), hostChars)
	if strings.Contains(u.Hostname(), ":") {
		host = `\[` + host + `\]` // an IPv6 address
	}
	b.WriteString(`(?i:` + host + `)`)
	if port := u.Port(); port != "" {
		b.WriteString(":" + regexp.QuoteMeta(port))
	}
	below := len(segments) > 0 && segments[len(segments)-1] == "*"
	if below {
		segments = segments[:len(segments)-1]
	}
	for _, s := range segments {
		b.WriteString("/" + glob(s, segmentChars))
	}
	if below {
		b.WriteString(`(/` + segmentChars + `+)+`)
	}
	b.WriteString(`/?$`)
	return b.String(), true
}

// Regexps are the expressions of patterns that are valid, in order.
func Regexps(patterns []string) []string {
	var out []string
	for _, p := range patterns {
		if re := compiled(p); re != nil {
			out = append(out, re.String())
		}
	}
	return out
}

// Match reports whether raw matches one of patterns, as the API server's
// policy decides it.
func Match(patterns []string, raw string) bool {
	if malformed.MatchString(raw) {
		return false
	}
	for _, p := range patterns {
		if re := compiled(p); re != nil && re.MatchString(raw) {
			return true
		}
	}
	return false
}

var (
	malformed = regexp.MustCompile(Malformed)
	// cache holds each pattern's compiled expression: the webhook matches
	// the same few patterns on every Secret it judges, and the offline
	// evaluator renders them on every request it judges.
	cache sync.Map // pattern -> *regexp.Regexp, nil for none
)

// compiled is pattern's expression compiled, nil where it matches nothing.
func compiled(pattern string) *regexp.Regexp {
	if re, ok := cache.Load(pattern); ok {
		return re.(*regexp.Regexp)
	}
	var re *regexp.Regexp
	if expr, ok := Regexp(pattern); ok {
		re = regexp.MustCompile(expr)
	}
	cache.Store(pattern, re)
	return re
}

// segments splits an escaped path without its leading and trailing slash.
func segments(path string) []string {
	path = strings.TrimSuffix(strings.TrimPrefix(path, "/"), "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

// glob is s as a regular expression in which '*' matches any run of chars.
func glob(s, chars string) string {
	parts := strings.Split(s, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return strings.Join(parts, chars+"*")
}
