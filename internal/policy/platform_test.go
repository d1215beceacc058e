package policy

import "testing"

func TestPlatformValidate(t *testing.T) {
	cases := map[string]struct {
		platform Platform
		ok       bool
	}{
		"admins' group and user":            {Platform{Users: []string{"ops@example.com"}, Groups: []string{"platform-admins"}}, true},
		"a platform tool's service account": {Platform{Users: []string{"system:serviceaccount:argocd:argocd-application-controller"}}, true},
		"every authenticated user":          {Platform{Groups: []string{"system:authenticated"}}, false},
		"every service account":             {Platform{Groups: []string{"system:serviceaccounts"}}, false},
		"a tenant namespace's accounts":     {Platform{Groups: []string{"system:serviceaccounts:team-a-apps"}}, false},
		"the anonymous user":                {Platform{Users: []string{"system:anonymous"}}, false},
	}
	for name, tc := range cases {
		if err := tc.platform.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v, want ok %v", name, err, tc.ok)
		}
	}
}
