package lint

import (
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/policy"
)

func TestWalkFindsTheDeepestLine(t *testing.T) {
	var doc yaml.Node
	src := "metadata:\n  name: x\n  labels:\n    app.kubernetes.io/name: x\nspec:\n  ports:\n  - port: 80\n  - name: b\n    port: 81\n"
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{
		"":              1,
		"metadata.name": 2,
		"metadata.labels[app.kubernetes.io/name]": 4,
		"metadata.labels.app.kubernetes.io/name":  4, // as pruning spells keys
		"spec.ports[1].port":                      9,
		"spec.ports[1]":                           8,
		"spec.ports[5].port":                      6, // the list, since a patch added the item
		"spec.type":                               5,
		"status.phase":                            1,
	} {
		if got := walk(doc.Content[0], policy.SplitFieldPath(path)); got != want {
			t.Errorf("walk(%q) = %d, want %d", path, got, want)
		}
	}
}

func TestIsRemote(t *testing.T) {
	for p, want := range map[string]bool{
		"../base":                              false,
		"deploy.yaml":                          false,
		"example.com/x":                        false, // kustomize reads it as a local path
		"github.com/org/repo//deploy?ref=v1":   true,
		"https://example.com/deploy.yaml":      true,
		"git@github.com:org/repo.git":          true,
		"ssh://git@example.com/org/repo.git":   true,
		"git::https://example.com/org/repo":    true,
		"file:///etc/passwd":                   true,
		"gitlab.com/org/repo//deploy?ref=main": false, // kustomize needs a scheme for hosts but github.com
	} {
		if got := isRemote(p); got != want {
			t.Errorf("isRemote(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestSubstitute(t *testing.T) {
	obj := func(annotations map[string]any) *object {
		meta := map[string]any{"name": "${TENANT_NAME}-x", "namespace": "${NS:=apps}"}
		if annotations != nil {
			meta["annotations"] = annotations
		}
		return &object{obj: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta,
			"data": map[string]any{"n": "${COUNT}", "unset": "[${UNSET}]"}}}
	}
	vars := map[string]string{"TENANT_NAME": "dev-team", "COUNT": "3\n"}
	got, err := substitute(obj(nil), vars)
	if err != nil {
		t.Fatal(err)
	}
	// As in Flux, a substituted number is a number: the schema then says
	// whether the field takes one.
	n := got.obj["data"].(map[string]any)["n"]
	if got.name != "dev-team-x" || got.namespace != "apps" || n != int64(3) || stringAt(got.obj, "data", "unset") != "[]" {
		t.Errorf("substituted: %v", got.obj)
	}
	off, err := substitute(obj(map[string]any{"kustomize.toolkit.fluxcd.io/substitute": "disabled"}), vars)
	if err != nil || stringAt(off.obj, "metadata", "name") != "${TENANT_NAME}-x" {
		t.Errorf("substitute disabled: %v, %v", off.obj, err)
	}
	if _, err := substitute(obj(nil), map[string]string{"BAD-NAME": "x"}); err == nil {
		t.Error("a variable name Flux refuses: no error")
	}
}

func TestTenantIndex(t *testing.T) {
	a := &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: v1alpha1.TenantSpec{
		Namespaces:  []v1alpha1.TenantNamespace{{Name: "a-apps"}},
		SelfService: &v1alpha1.SelfService{Prefix: "a-", MaxNamespaces: 2},
		Owners:      []v1alpha1.Owner{{Kind: "Group", Name: "team-a"}, {Kind: "ServiceAccount", Namespace: "ci", Name: "deployer"}},
	}}
	b := &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: v1alpha1.TenantSpec{
		Namespaces: []v1alpha1.TenantNamespace{{Name: "b-apps"}}, ServiceAccountName: "flux",
		Owners: []v1alpha1.Owner{{Kind: "User", Name: "bob"}},
	}}
	index := newTenantIndex([]*v1alpha1.Tenant{b, a}).withSelfService(map[string]string{"a-one": "a", "a-two": "a", "b-x": "b", "a-apps": "b"})
	x := index.resolver()
	name := func(t *v1alpha1.Tenant) string {
		if t == nil {
			return ""
		}
		return t.Name
	}
	names := func(ts []*v1alpha1.Tenant) string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Name)
		}
		return strings.Join(out, ",")
	}
	for ns, want := range map[string]string{"a-apps": "a", "b-apps": "b", "a-one": "a", "b-x": "", "other": ""} {
		if got := name(x.ForNamespace(ns)); got != want {
			t.Errorf("ForNamespace(%s) = %q, want %q", ns, got, want)
		}
	}
	for user, want := range map[string]string{
		"system:serviceaccount:a-apps:a":     "a",
		"system:serviceaccount:b-apps:flux":  "b",
		"system:serviceaccount:b-apps:b":     "",
		"system:serviceaccount:ci:deployer":  "a",
		"bob":                                "b",
		"system:serviceaccount:a-one:a":      "a",
		"system:serviceaccount:a-apps:other": "",
	} {
		if got := names(x.ForUser(authenticationv1.UserInfo{Username: user})); got != want {
			t.Errorf("ForUser(%s) = %q, want %q", user, got, want)
		}
	}
	if got := names(x.ForUser(authenticationv1.UserInfo{Username: "carol", Groups: []string{"x", "team-a"}})); got != "a" {
		t.Errorf("ForUser(group team-a) = %q, want a", got)
	}
	if n := x.SelfServiceCount("a"); n != 2 {
		t.Errorf("SelfServiceCount(a) = %d, want 2", n)
	}
	if n := index.creatingNamespace("a-two").resolver().SelfServiceCount("a"); n != 1 {
		t.Errorf("SelfServiceCount(a) while creating a-two = %d, want 1 (a-one exists)", n)
	}
}

func TestGitSource(t *testing.T) {
	git := &v1alpha1.GitSource{URL: "https://git.example.com/x"}
	tenant := func(sources ...v1alpha1.Source) *v1alpha1.Tenant {
		return &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "team"}, Spec: v1alpha1.TenantSpec{Sources: sources}}
	}
	template := v1alpha1.Source{Name: "base", Template: git}
	for name, tc := range map[string]struct {
		tenant *v1alpha1.Tenant
		source string
		want   int
		err    string
	}{
		"the only Git source, past a template": {tenant(template, v1alpha1.Source{Name: "apps", Git: git}), "", 1, ""},
		"the one named after the tenant":       {tenant(v1alpha1.Source{Name: "apps", Git: git}, v1alpha1.Source{Name: "team", Git: git}), "", 1, ""},
		"the one named":                        {tenant(v1alpha1.Source{Name: "apps", Git: git}, v1alpha1.Source{Name: "team", Git: git}), "apps", 0, ""},
		"several":                              {tenant(v1alpha1.Source{Name: "a", Git: git}, v1alpha1.Source{Name: "b", Git: git}), "", 0, "has 2 Git sources: name one as team/SOURCE=DIR, SOURCE one of a, b"},
		"unknown":                              {tenant(v1alpha1.Source{Name: "a", Git: git}), "b", 0, "has no Git source b; allowed: a"},
		"templates only":                       {tenant(template), "", 0, "has no Git source"},
	} {
		got, err := gitSource(tc.tenant, tc.source)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: err = %v, want %q", name, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%s: gitSource = %d, %v; want %d", name, got, err, tc.want)
		}
	}
}
