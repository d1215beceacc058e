package sourceurl

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	for name, tc := range map[string]struct {
		pattern, url string
		want         bool
	}{
		"exact":                  {"https://h.example.com/org/app", "https://h.example.com/org/app", true},
		"trailing slash":         {"https://h.example.com/org/app", "https://h.example.com/org/app/", true},
		"below":                  {"https://h.example.com/org/*", "https://h.example.com/org/a/b/c", true},
		"not the prefix itself":  {"https://h.example.com/org/*", "https://h.example.com/org", false},
		"sibling prefix":         {"https://h.example.com/org/*", "https://h.example.com/organisation/app", false},
		"in segment":             {"https://h.example.com/team-*/config", "https://h.example.com/team-a/config", true},
		"not across segments":    {"https://h.example.com/team-*/config", "https://h.example.com/team-a/x/config", false},
		"host wildcard":          {"https://*.example.com/org/*", "https://git.example.com/org/a", true},
		"host wildcard query":    {"https://*.example.com/org/*", "https://evil.io?.example.com/org/a", false},
		"host wildcard fragment": {"https://*.example.com/org/*", "https://evil.io#.example.com/org/a", false},
		"host wildcard user":     {"https://*.example.com/org/*", "https://evil.io@x.example.com/org/a", false},
		"host wildcard port":     {"https://*.example.com/org/*", "https://evil.io:443.example.com/org/a", false},
		"host case":              {"https://H.example.com/org/*", "https://h.EXAMPLE.com/org/a", true},
		"scheme case":            {"https://h.example.com/org/*", "HTTPS://h.example.com/org/a", true},
		"scheme":                 {"https://h.example.com/org/*", "http://h.example.com/org/a", false},
		"port":                   {"https://h.example.com/org/*", "https://h.example.com:8443/org/a", false},
		"pattern's port":         {"https://h.example.com:8443/org/*", "https://h.example.com:8443/org/a", true},
		"user":                   {"ssh://git@h.example.com/org/*", "ssh://git@h.example.com/org/a", true},
		"other user":             {"ssh://git@h.example.com/org/*", "ssh://root@h.example.com/org/a", false},
		"user info spoof":        {"https://h.example.com/org/*", "https://h.example.com@evil.io/org/a", false},
		"dot dot":                {"https://h.example.com/org/*", "https://h.example.com/org/../admin/a", false},
		"encoded dot dot":        {"https://h.example.com/org/*", "https://h.example.com/org/%2e%2e/admin", false},
		"encoded slash":          {"https://h.example.com/org/*", "https://h.example.com/org/a%2F..%2Fadmin", false},
		"backslash":              {"https://h.example.com/org/*", `https://h.example.com/org/a\..\admin`, false},
		"empty segment":          {"https://h.example.com/org/*", "https://h.example.com/org//a", false},
		"empty starred segment":  {"https://h.example.com/*/config", "https://h.example.com//config", false},
		"query":                  {"https://h.example.com/org/*", "https://h.example.com/org/a?ref=x", false},
		"fragment":               {"https://h.example.com/org/*", "https://h.example.com/org/a#x", false},
		"scp syntax":             {"ssh://git@h.example.com/org/*", "git@h.example.com:org/a", false},
		"oci":                    {"oci://registry.example.com/charts/*", "oci://registry.example.com/charts/podinfo", true},
		"multiple stars":         {"https://h.example.com/a*b*c", "https://h.example.com/aXbYc", true},
		"multiple stars overlap": {"https://h.example.com/a*ab", "https://h.example.com/ab", false},
		"regexp characters":      {"https://h.example.com/a.b", "https://h.example.com/aXb", false},
		"host only":              {"https://h.example.com", "https://h.example.com/", true},
		"host only, a path":      {"https://h.example.com", "https://h.example.com/a", false},
		"garbage pattern":        {"::", "https://h.example.com/a", false},
		"pattern with a query":   {"https://h.example.com/a?b", "https://h.example.com/a?b", false},
		"newline":                {"https://h.example.com/org/*", "https://h.example.com/org/a\nhttps://evil.io/x", false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := Match([]string{tc.pattern}, tc.url); got != tc.want {
				expr, _ := Regexp(tc.pattern)
				t.Fatalf("Match(%q, %q) = %v, want %v (expression %s)", tc.pattern, tc.url, got, tc.want, expr)
			}
		})
	}
}

// FuzzNeverLooser: whatever the regular expression admits, the URL's
// parsed parts match the pattern's too, so that no string is read one way
// by the expression and another by the client that fetches it.
func FuzzNeverLooser(f *testing.F) {
	for _, seed := range [][2]string{
		{"https://h.example.com/org/*", "https://h.example.com/org/a"},
		{"https://*.example.com/team-*/x", "https://a.b.example.com/team-1/x/"},
		{"ssh://git@h.example.com:22/org/*", "ssh://git@h.example.com:22/org/a/b"},
		{"oci://r.example.com/*", "oci://R.example.com/a%20b"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, raw string) {
		if Match([]string{pattern}, raw) && !parsedMatch(pattern, raw) {
			expr, _ := Regexp(pattern)
			t.Fatalf("%q admits %q (expression %s), whose parsed parts do not match", pattern, raw, expr)
		}
	})
}

// parsedMatch compares pattern and raw as net/url reads them: scheme, user
// and port exactly, the host without case, decoded path segments with '*'
// within one and a trailing "/*" below.
func parsedMatch(pattern, raw string) bool {
	p, err1 := url.Parse(pattern)
	u, err2 := url.Parse(raw)
	if err1 != nil || err2 != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return false
	}
	if p.Scheme != u.Scheme || p.User.String() != u.User.String() || p.Port() != u.Port() ||
		!starMatch(strings.ToLower(p.Hostname()), strings.ToLower(u.Hostname())) {
		return false
	}
	want, got := segments(p.Path), segments(u.Path)
	if slices.Contains(got, "") || slices.Contains(got, ".") || slices.Contains(got, "..") {
		return false
	}
	if n := len(want); n > 0 && want[n-1] == "*" {
		want = want[:n-1]
		if len(got) <= len(want) {
			return false
		}
		got = got[:len(want)]
	}
	return slices.EqualFunc(want, got, starMatch)
}

// starMatch matches s against pattern, '*' any run of characters.
func starMatch(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s = s[i+len(part):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}
