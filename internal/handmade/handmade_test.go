package handmade_test

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/internal/handmade"
)

// objects decodes a YAML stream, each document on the line it starts.
func objects(t *testing.T, stream string) []*handmade.Object {
	t.Helper()
	var out []*handmade.Object
	line := 1
	for _, doc := range strings.Split(stream, "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		out = append(out, &handmade.Object{Unstructured: u, File: "fleet.yaml", Line: line})
		line += strings.Count(doc, "\n") + 2
	}
	return out
}

// tenantYAML is what flux create tenant --export writes, for a tenant in
// two namespaces, with a person bound beside the reconciler.
const tenantYAML = `apiVersion: v1
kind: Namespace
metadata: {name: apps, labels: {toolkit.fluxcd.io/tenant: dev-team}}
---
apiVersion: v1
kind: Namespace
metadata: {name: jobs, labels: {toolkit.fluxcd.io/tenant: dev-team}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: dev-team, namespace: apps, labels: {toolkit.fluxcd.io/tenant: dev-team}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: dev-team, namespace: jobs, labels: {toolkit.fluxcd.io/tenant: dev-team}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: gotk-reconciler, namespace: apps}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects:
- {kind: User, name: "gotk:apps:reconciler"}
- {kind: ServiceAccount, name: dev-team, namespace: apps}
- {kind: Group, name: dev-team-leads}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: gotk-reconciler, namespace: jobs}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects:
- {kind: ServiceAccount, name: dev-team, namespace: jobs}
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: dev-team, namespace: apps}
spec:
  interval: 1m
  url: https://git.example.com/dev-team
  ref: {tag: v1.2.0}
  secretRef: {name: dev-team-git}
  ignore: "/docs"
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: dev-team, namespace: apps}
spec:
  serviceAccountName: dev-team
  interval: 5m
  path: ./staging
  prune: true
  timeout: 2m
  targetNamespace: jobs
  sourceRef: {kind: GitRepository, name: dev-team}
  postBuild: {substitute: {DOMAIN: example.com}}
  wait: true
---
apiVersion: v1
kind: Secret
metadata: {name: dev-team-git, namespace: apps}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: db, namespace: jobs}
spec: {serviceAccountName: dev-team, interval: 5m, chart: {spec: {chart: db, sourceRef: {kind: HelmRepository, name: db}}}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: platform, namespace: apps}
spec:
  serviceAccountName: dev-team
  interval: 5m
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}
---
apiVersion: v1
kind: Namespace
metadata: {name: flux-system}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: kustomize-controller, namespace: flux-system}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: tenants, namespace: flux-system}
spec:
  serviceAccountName: kustomize-controller
  interval: 5m
  prune: true
  path: ./tenants
  sourceRef: {kind: GitRepository, name: flux-system}`

func TestFind(t *testing.T) {
	res := handmade.Find(objects(t, tenantYAML))
	if len(res.Tenants) != 1 {
		t.Fatalf("%d tenants, want dev-team alone (flux-system's Kustomization runs as an account no RoleBinding binds)", len(res.Tenants))
	}
	h := res.Tenants[0]
	got, err := yaml.Marshal(h.Tenant)
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: landlord.dev/v1alpha1
kind: Tenant
metadata:
  name: dev-team
spec:
  namespaces:
  - name: apps
  - name: jobs
  network: {}
  owners:
  - kind: Group
    name: dev-team-leads
  sources:
  - git:
      ref:
        tag: v1.2.0
      secretRef: dev-team-git
      url: https://git.example.com/dev-team
    interval: 5m0s
    name: dev-team
    path: ./staging
    prune: true
    targetNamespace: jobs
    timeout: 2m0s
  variables:
    DOMAIN: example.com
status: {}
`
	if string(got) != want {
		t.Errorf("Tenant:\n%s\nwant:\n%s", got, want)
	}
	var notes []string
	for _, n := range slices.Concat(h.Notes, res.Notes) {
		notes = append(notes, n.String())
	}
	for _, want := range []string{
		"fleet.yaml:17: RoleBinding apps/gotk-reconciler grants cluster-admin in apps: the Tenant's reconciler gets the default tenant role landlord-tenant",
		"fleet.yaml:17: RoleBinding apps/gotk-reconciler: subject User gotk:apps:reconciler dropped",
		"RoleBinding jobs/gotk-reconciler grants cluster-admin in jobs",
		"Kustomization apps/dev-team runs every 5m, GitRepository dev-team every 1m: a Tenant's source has one interval; imported as 5m",
		"Kustomization apps/dev-team: spec.wait not imported",
		"GitRepository apps/dev-team: spec.ignore not imported",
		"Secret apps/dev-team-git in tenant dev-team's namespace is not part of the Tenant",
		"HelmRelease jobs/db runs as dev-team of tenant dev-team: not imported; a Tenant syncs Git repositories",
		"Kustomization apps/platform syncs GitRepository flux-system/flux-system as tenant dev-team's account: not imported",
		"the other subjects of its reconciler's RoleBindings are imported as spec.owners",
		"tenant dev-team gets what it did not have: Pod Security restricted",
	} {
		if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("no note %q in\n%s", want, strings.Join(notes, "\n"))
		}
	}
	var made []string
	for _, o := range h.Objects {
		made = append(made, o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName())
	}
	slices.Sort(made)
	if wantMade := []string{
		"GitRepository/apps/dev-team", "Kustomization/apps/dev-team", "Namespace//apps", "Namespace//jobs",
		"RoleBinding/apps/gotk-reconciler", "RoleBinding/jobs/gotk-reconciler", "ServiceAccount/apps/dev-team", "ServiceAccount/jobs/dev-team",
	}; !slices.Equal(made, wantMade) {
		t.Errorf("the Tenant replaces %q, want %q", made, wantMade)
	}
}

// TestFindNamesTenants names a tenant by flux create tenant's label, else
// by its account, and makes one Tenant of one tenant's two syncs.
func TestFindNamesTenants(t *testing.T) {
	stream := `apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: shop-bot, namespace: shop}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: bot, namespace: shop}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects: [{kind: ServiceAccount, name: shop-bot}]
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: front, namespace: shop}
spec: {interval: 5m, url: "https://git.example.com/front"}
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: back, namespace: shop}
spec: {interval: 5m, url: "https://git.example.com/back"}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: front, namespace: shop}
spec: {serviceAccountName: shop-bot, interval: 5m, prune: false, sourceRef: {kind: GitRepository, name: front}, dependsOn: [{name: back}]}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: back, namespace: shop}
spec: {serviceAccountName: shop-bot, interval: 5m, prune: true, sourceRef: {kind: GitRepository, name: back}}`
	res := handmade.Find(objects(t, stream))
	if len(res.Tenants) != 1 {
		t.Fatalf("%d tenants, want 1", len(res.Tenants))
	}
	tenant := res.Tenants[0].Tenant
	if tenant.Name != "shop-bot" || tenant.Spec.ServiceAccountName != "" || tenant.Spec.Role != "edit" {
		t.Errorf("tenant %s, account %q, role %q; want shop-bot named after its account, role edit", tenant.Name, tenant.Spec.ServiceAccountName, tenant.Spec.Role)
	}
	names := []string{}
	for _, s := range tenant.Spec.Sources {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"front", "back"}) || !slices.Equal(tenant.Spec.Sources[0].DependsOn, []string{"back"}) ||
		*tenant.Spec.Sources[0].Prune || !*tenant.Spec.Sources[1].Prune {
		t.Errorf("sources %v: want front (prune false, after back) and back", tenant.Spec.Sources)
	}
	if tenant.Spec.Sources[0].Git.Ref != nil {
		t.Errorf("a GitRepository without ref imports ref %v, want none (the remote's default branch)", tenant.Spec.Sources[0].Git.Ref)
	}
}
