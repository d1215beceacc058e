package lint_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/fleet"
	"github.com/landlord-dev/landlord/internal/hostilerepo"
	"github.com/landlord-dev/landlord/internal/lint"
)

// scaffold writes a fleet for staging and production with tenant dev-team
// (namespaces apps and apps-jobs, self-service prefix dev-team-, up to two)
// and tenant ops, and dev-team's repository, with the fleet package as the
// CLI does; then the files of a case over them, an empty content removing
// a file.
func scaffold(t *testing.T, fleetFiles, repoFiles map[string]string) (fleetDir, repoDir string) {
	t.Helper()
	dir := t.TempDir()
	fleetDir, repoDir = filepath.Join(dir, "fleet"), filepath.Join(dir, "dev-team")
	if _, err := fleet.InitFleet(fleetDir, fleet.DefaultClusters, fleet.FullInstall); err != nil {
		t.Fatal(err)
	}
	envs := []fleet.EnvPath{{Env: "staging", Path: "./staging"}, {Env: "production", Path: "./production"}}
	for _, o := range []fleet.TenantOptions{
		{Name: "dev-team", Namespaces: []string{"apps", "apps-jobs"}, GitURL: "https://git.example.com/org/dev-team", Ref: v1alpha1.GitRef{Branch: "main"},
			Variables: map[string]string{"CLUSTER_DOMAIN": "example.com"}},
		{Name: "ops", Namespaces: []string{"ops-apps"}, GitURL: "https://git.example.com/org/ops"},
	} {
		tenant, err := fleet.NewTenant(o)
		if err != nil {
			t.Fatal(err)
		}
		if o.Name == "dev-team" {
			tenant.Spec.SelfService = &v1alpha1.SelfService{Prefix: "dev-team-", MaxNamespaces: 2}
			tenant.Spec.ClusterResources = []v1alpha1.ClusterResource{{APIGroup: "storage.k8s.io", Kind: "StorageClass", Names: []string{"dev-team-fast"}}}
		}
		e := envs
		if o.Name == "ops" {
			e = nil
		}
		if _, err := fleet.AddTenant(fleetDir, tenant, e); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := fleet.InitTenantRepo(repoDir, fleet.Podinfo); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, fleetDir, fleetFiles)
	writeFiles(t, repoDir, repoFiles)
	return fleetDir, repoDir
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if content == "" {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// lintDirs lints a fleet and dev-team's repository and returns the
// findings as repo:file:line: RULE, the repository empty for the fleet.
func lintDirs(t *testing.T, fleetDir, repoDir string) ([]string, []lint.Finding) {
	t.Helper()
	findings, err := lint.Lint(context.Background(), lint.Options{Dir: fleetDir, TenantRepos: []lint.TenantRepo{{Tenant: "dev-team", Dir: repoDir}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range findings {
		got = append(got, fmt.Sprintf("%s:%s:%d: %s", f.Repo, f.File, f.Line, f.Rule))
	}
	return got, findings
}

// overlay lists resources in a tenant-repo overlay after ../base.
func overlay(resources ...string) string {
	return "resources:\n- ../base\n" + "- " + strings.Join(resources, "\n- ") + "\n"
}

func TestLint(t *testing.T) {
	for name, tc := range map[string]struct {
		fleet, repo map[string]string
		want        []string
	}{
		"scaffolded fleet and tenant repository": {},
		"a missing resource fails the build at its entry": {
			fleet: map[string]string{"infrastructure/kustomization.yaml": "resources:\n- landlord\n- missing.yaml\n"},
			want:  []string{":infrastructure/kustomization.yaml:3: LINT001"},
		},
		"a failing base is reported once, not in each overlay": {
			fleet: map[string]string{"tenants/base/ops/kustomization.yaml": "resources:\n- tenant.yaml\n- gone.yaml\n"},
			want:  []string{":tenants/base/ops/kustomization.yaml:3: LINT001"},
		},
		"unknown and mistyped fields of a built-in kind": {
			fleet: map[string]string{
				"infrastructure/kustomization.yaml": "resources:\n- landlord\n- quota.yaml\n",
				"infrastructure/quota.yaml": "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: q\n  namespace: flux-system\nspec:\n  hardd: {}\n" +
					"  scopeSelector:\n    matchExpressions: yes\n",
			},
			want: []string{":infrastructure/quota.yaml:7: LINT002", ":infrastructure/quota.yaml:9: LINT002"},
		},
		"a Tenant failing a CEL rule": {
			fleet: map[string]string{"tenants/base/ops/tenant.yaml": "apiVersion: landlord.dev/v1alpha1\nkind: Tenant\nmetadata:\n  name: ops\nspec:\n" +
				"  namespaces:\n  - name: ops-apps\n  owners:\n  - kind: ServiceAccount\n    name: ci\n"},
			want: []string{":tenants/base/ops/tenant.yaml:9: LINT003"},
		},
		"a Tenant failing its schema is not judged by its CEL rules": {
			fleet: map[string]string{"tenants/base/ops/tenant.yaml": "apiVersion: landlord.dev/v1alpha1\nkind: Tenant\nmetadata:\n  name: ops\nspec:\n" +
				"  namespaces:\n  - name: ops-apps\n  podSecurity: strict\n  owners:\n  - kind: ServiceAccount\n    name: ci\n"},
			want: []string{":tenants/base/ops/tenant.yaml:1: LINT003", ":tenants/base/ops/tenant.yaml:8: LINT002"},
		},
		"a CRD of the fleet validates its objects; a kind nobody defines is unknown": {
			fleet: map[string]string{
				"infrastructure/kustomization.yaml": "resources:\n- landlord\n- widgets.yaml\n",
				"infrastructure/widgets.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, maximum: 10}
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: big
spec:
  size: 11
---
apiVersion: example.com/v1
kind: Gadget
metadata:
  name: g
`,
			},
			want: []string{":infrastructure/widgets.yaml:27: LINT002", ":infrastructure/widgets.yaml:29: LINT004"},
		},
		"remote bases of each spelling": {
			fleet: map[string]string{
				"infrastructure/remote/kustomization.yaml": "resources:\n- github.com/org/repo//deploy?ref=v1\n- git@github.com:org/repo.git\n" +
					"components:\n- https://example.com/component\npatches:\n- path: https://example.com/patch.yaml\n",
			},
			want: []string{
				":infrastructure/remote/kustomization.yaml:2: LINT005", ":infrastructure/remote/kustomization.yaml:3: LINT005",
				":infrastructure/remote/kustomization.yaml:5: LINT005", ":infrastructure/remote/kustomization.yaml:7: LINT005",
			},
		},
		"a remote base in a base stops the overlays' builds, not their report": {
			fleet: map[string]string{"tenants/base/ops/kustomization.yaml": "resources:\n- tenant.yaml\n- https://example.com/extra.yaml\n"},
			want:  []string{":tenants/base/ops/kustomization.yaml:3: LINT005"},
		},
		"a remote base hides no finding of the files beside it, in the fleet or a tenant's overlay": {
			fleet: map[string]string{
				"infrastructure/remote/kustomization.yaml": "resources:\n- https://example.com/app.yaml\n- quota.yaml\n",
				"infrastructure/remote/quota.yaml":         "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: q\n  namespace: flux-system\nspec:\n  hardd: {}\n",
			},
			repo: map[string]string{
				"staging/kustomization.yaml": overlay("https://example.com/app.yaml", "worker.yaml"),
				"staging/worker.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: worker\nspec:\n  replicas: many\n" +
					"  selector: {matchLabels: {app: worker}}\n  template:\n    metadata: {labels: {app: worker}}\n" +
					"    spec:\n      containers: [{name: worker, image: ghcr.io/example/worker:1.0.0}]\n",
			},
			want: []string{
				":infrastructure/remote/kustomization.yaml:2: LINT005", ":infrastructure/remote/quota.yaml:7: LINT002",
				"dev-team:staging/kustomization.yaml:3: LINT005", "dev-team:staging/worker.yaml:6: LINT002",
			},
		},
		"a remote base hides no escape of the files beside it": {
			repo: map[string]string{
				"staging/kustomization.yaml": overlay("https://example.com/app.yaml", "escape.yaml"),
				"staging/escape.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: grab\nspec:\n  interval: 5m\n  prune: true\n" +
					"  sourceRef:\n    kind: GitRepository\n    name: flux-system\n    namespace: flux-system\n---\n" +
					"apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: grab\nrules: []\n",
			},
			want: []string{"dev-team:staging/kustomization.yaml:3: LINT005", "dev-team:staging/escape.yaml:11: LL002", "dev-team:staging/escape.yaml:15: LL014"},
		},
		"images from the tenant's registry, pulled every time, and others": {
			fleet: map[string]string{"tenants/base/dev-team/kustomization.yaml": "resources:\n- tenant.yaml\npatches:\n- target: {kind: Tenant, name: dev-team}\n" +
				"  patch: '[{\"op\": \"add\", \"path\": \"/spec/images\", \"value\": {\"allowed\": [\"ghcr.io/dev-team\"], \"pullAlways\": true}}]'\n"},
			repo: map[string]string{
				"staging/kustomization.yaml": overlay("app.yaml"),
				"staging/app.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  selector:\n    matchLabels: {app: app}\n  template:\n" +
					"    metadata:\n      labels: {app: app}\n    spec:\n      containers:\n      - name: app\n        image: ghcr.io/dev-team/app:1.0\n        imagePullPolicy: Always\n" +
					"      - name: sidecar\n        image: docker.io/attacker/proxy:1.0\n        imagePullPolicy: Always\n" +
					"      - name: cached\n        image: ghcr.io/dev-team/cache:1.0\n",
			},
			want: []string{"dev-team:staging/app.yaml:17: LL029", "dev-team:staging/app.yaml:19: LL029"},
		},
		"a FluxInstance with the lockdown, and one without": {
			fleet: map[string]string{
				"clusters/staging/flux-system/flux-instance.yaml":    fluxInstance("true"),
				"clusters/production/flux-system/flux-instance.yaml": fluxInstance("false"),
			},
			want: []string{
				":clusters/production/flux-system/flux-instance.yaml:1: LINT004", ":clusters/production/flux-system/flux-instance.yaml:8: LINT010",
				":clusters/staging/flux-system/flux-instance.yaml:1: LINT004",
			},
		},
		"a cluster-scoped object the platform approved, and one it did not": {
			repo: map[string]string{
				"staging/kustomization.yaml": overlay("classes.yaml"),
				"staging/classes.yaml": "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: dev-team-fast\nprovisioner: example.com/fast\n" +
					"---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: dev-team-slow\nprovisioner: example.com/slow\n",
			},
			want: []string{"dev-team:staging/classes.yaml:9: LL014"},
		},
		"paths leaving the repository, lexically or by a symlink": {
			fleet: map[string]string{
				"infrastructure/escape/kustomization.yaml": "resources:\n- ../../../shared\nconfigMapGenerator:\n- name: c\n  files:\n  - key=../../../secret.txt\n",
				"infrastructure/link/kustomization.yaml":   "resources:\n- outside/ns.yaml\n",
			},
			want: []string{
				":infrastructure/escape/kustomization.yaml:2: LINT006", ":infrastructure/escape/kustomization.yaml:6: LINT006",
				":infrastructure/link/kustomization.yaml:2: LINT006",
			},
		},
		"Secrets: plain ones and generated from literals or plain files, not SOPS-encrypted ones": {
			fleet: map[string]string{
				"infrastructure/kustomization.yaml": "resources:\n- landlord\n- secrets.yaml\nsecretGenerator:\n- name: literal\n  namespace: flux-system\n  literals: [a=b]\n" +
					"- name: encrypted\n  namespace: flux-system\n  envs: [encrypted.env]\n- name: from-files\n  namespace: flux-system\n  files: [plain.txt]\n",
				"infrastructure/encrypted.env": "token=ENC[AES256_GCM,data:AA==,iv:AA==,tag:AA==,type:str]\nsops_mac=ENC[AES256_GCM,data:AA==,iv:AA==,tag:AA==,type:str]\n",
				"infrastructure/plain.txt":     "hunter2\n",
				"infrastructure/secrets.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: plain\n  namespace: flux-system\nstringData:\n  a: b\n---\n" +
					"apiVersion: v1\nkind: Secret\nmetadata:\n  name: sealed\n  namespace: flux-system\nstringData:\n  a: ENC[AES256_GCM,data:AA==,iv:AA==,tag:AA==,type:str]\nsops:\n  mac: x\n",
			},
			want: []string{":infrastructure/kustomization.yaml:5: LINT007", ":infrastructure/kustomization.yaml:11: LINT007", ":infrastructure/secrets.yaml:1: LINT007"},
		},
		"a Flux Kustomization of the fleet naming a missing path": {
			fleet: map[string]string{"clusters/staging/apps.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\n" +
				"spec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"},
			want: []string{":clusters/staging/apps.yaml:8: LINT009"},
		},
		"loose YAML that is no manifest is not applied": {
			fleet: map[string]string{"docs/values.yaml": "replicaCount: 2\n", ".github/workflows/ci.yaml": "on: push\n"},
		},
		"a tenant source path missing from the tenant repository": {
			fleet: map[string]string{"tenants/production/dev-team-patch.yaml": "- op: add\n  path: /spec/sources/0/path\n  value: ./prod\n"},
			want:  []string{":tenants/base/dev-team/tenant.yaml:18: LINT009"},
		},
		"policy violations of the tenant's objects, where the source file has them": {
			repo: map[string]string{
				"staging/kustomization.yaml": overlay("bad.yaml"),
				"staging/bad.yaml": `apiVersion: v1
kind: Service
metadata:
  name: exposed
spec:
  type: LoadBalancer
  externalIPs: [203.0.113.10]
  ports:
  - port: 80
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: everyone
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects:
- {kind: Group, name: system:authenticated, apiGroup: rbac.authorization.k8s.io}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: elsewhere
spec:
  interval: 1h
  targetNamespace: ops-apps
  chart:
    spec:
      chart: podinfo
      sourceRef: {kind: HelmRepository, name: podinfo, namespace: flux-system}
---
apiVersion: v1
kind: Namespace
metadata:
  name: stolen
  labels:
    landlord.dev/tenant: dev-team
`,
			},
			want: []string{
				"dev-team:staging/bad.yaml:6: LL013", "dev-team:staging/bad.yaml:7: LL017",
				"dev-team:staging/bad.yaml:15: LL015", "dev-team:staging/bad.yaml:17: LL011",
				"dev-team:staging/bad.yaml:25: LL003", "dev-team:staging/bad.yaml:29: LL002",
				"dev-team:staging/bad.yaml:34: LL009",
			},
		},
		"the guard's neighbours: defaults, own namespaces, self-service within the allowance, substituted variables": {
			repo: map[string]string{
				"staging/kustomization.yaml": overlay("good.yaml"),
				"staging/good.yaml": `apiVersion: v1
kind: Namespace
metadata:
  name: dev-team-preview
  labels:
    landlord.dev/tenant: dev-team
---
apiVersion: v1
kind: Namespace
metadata:
  name: dev-team-review
  labels:
    landlord.dev/tenant: dev-team
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: app
spec:
  interval: 10m
  path: ./deploy
  prune: true
  targetNamespace: dev-team-preview
  sourceRef: {kind: GitRepository, name: app}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: jobs-view
  namespace: apps-jobs
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects:
- {kind: ServiceAccount, name: worker, namespace: "${TENANT_NAMESPACE}"}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: worker
  namespace: dev-team-preview
spec:
  replicas: ${REPLICAS:=2}
  selector: {matchLabels: {app: worker}}
  template:
    metadata: {labels: {app: worker}}
    spec:
      containers:
      - name: worker
        image: ghcr.io/example/worker:1.0.0
        env: [{name: URL, value: "https://${TENANT_NAME}.${CLUSTER_DOMAIN}"}]
`,
			},
		},
		"self-service namespaces beyond the allowance": {
			repo: map[string]string{
				"staging/kustomization.yaml": overlay("namespaces.yaml"),
				"staging/namespaces.yaml": "apiVersion: v1\nkind: List\nitems:\n" +
					"- {apiVersion: v1, kind: Namespace, metadata: {name: dev-team-a, labels: {landlord.dev/tenant: dev-team}}}\n" +
					"- {apiVersion: v1, kind: Namespace, metadata: {name: dev-team-b, labels: {landlord.dev/tenant: dev-team}}}\n" +
					"- {apiVersion: v1, kind: Namespace, metadata: {name: dev-team-c, labels: {landlord.dev/tenant: dev-team}}}\n",
			},
			want: []string{"dev-team:staging/namespaces.yaml:1: LL009"},
		},
		"objects outside the tenant's namespaces, and a targetNamespace overriding them": {
			repo: map[string]string{
				"staging/kustomization.yaml": overlay("elsewhere.yaml"),
				"staging/elsewhere.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: ops-apps\n",
			},
			want: []string{"dev-team:staging/elsewhere.yaml:5: LINT008"},
		},
		"a directory without kustomization.yaml is built as Flux generates one": {
			fleet: map[string]string{"tenants/staging/dev-team-patch.yaml": "- op: add\n  path: /spec/sources/0/path\n  value: ./apps\n"},
			repo: map[string]string{
				"apps/service.yaml":              "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  type: NodePort\n  ports:\n  - port: 80\n",
				"apps/nested/kustomization.yaml": "resources:\n- cm.yaml\n",
				"apps/nested/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: kube-system\n",
			},
			want: []string{"dev-team:apps/nested/cm.yaml:5: LINT008", "dev-team:apps/service.yaml:6: LL013"},
		},
		"kustomizations taking each other in": {
			fleet: map[string]string{
				"infrastructure/a/kustomization.yaml": "resources:\n- ../b\n",
				"infrastructure/b/kustomization.yaml": "resources:\n- ../a\n",
				"infrastructure/kustomization.yaml":   "resources:\n- landlord\n- a\n",
			},
			want: []string{":infrastructure/b/kustomization.yaml:2: LINT001"},
		},
		"a remote base below a directory Flux generates a kustomization for": {
			fleet: map[string]string{"tenants/staging/dev-team-patch.yaml": "- op: add\n  path: /spec/sources/0/path\n  value: ./apps\n"},
			repo:  map[string]string{"apps/remote/kustomization.yaml": "resources:\n- https://example.com/app.yaml\n"},
			want:  []string{"dev-team:apps/remote/kustomization.yaml:2: LINT005"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			fleetDir, repoDir := scaffold(t, tc.fleet, tc.repo)
			if name == "paths leaving the repository, lexically or by a symlink" {
				outside := filepath.Join(filepath.Dir(fleetDir), "outside")
				writeFiles(t, outside, map[string]string{"ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n"})
				if err := os.Symlink(outside, filepath.Join(fleetDir, "infrastructure", "link", "outside")); err != nil {
					t.Fatal(err)
				}
			}
			got, findings := lintDirs(t, fleetDir, repoDir)
			want := tc.want
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("findings:\n got %q\nwant %q", got, want)
				for _, f := range findings {
					t.Log(f)
				}
			}
		})
	}
}

// TestLintMessages pins what a finding says: the field, what is wrong and
// what is allowed, and whose repository it is in.
func TestLintMessages(t *testing.T) {
	fleetDir, repoDir := scaffold(t, nil, map[string]string{
		"staging/kustomization.yaml": overlay("svc.yaml"),
		"staging/svc.yaml":           "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  type: NodePort\n  ports:\n  - port: 80\n",
	})
	_, findings := lintDirs(t, fleetDir, repoDir)
	want := lint.Finding{Repo: "dev-team", File: "staging/svc.yaml", Line: 6, Rule: "LL013", Severity: lint.SeverityError,
		Message: `tenant dev-team: spec.type: Forbidden: type NodePort exposes tenant dev-team outside the cluster; allowed: ClusterIP`}
	if len(findings) != 1 || findings[0] != want {
		t.Errorf("findings = %v, want [%v]", findings, want)
	}
	if got := want.String(); got != `staging/svc.yaml:6: LL013: `+want.Message {
		t.Errorf("String() = %q", got)
	}
}

func TestLintErrors(t *testing.T) {
	fleetDir, repoDir := scaffold(t, nil, nil)
	for name, tc := range map[string]struct {
		opts lint.Options
		want string
	}{
		"no fleet":         {lint.Options{}, "no fleet directory"},
		"fleet not a dir":  {lint.Options{Dir: filepath.Join(fleetDir, "README.md")}, "not a directory"},
		"missing fleet":    {lint.Options{Dir: filepath.Join(fleetDir, "nope")}, "no such file"},
		"unknown tenant":   {lint.Options{Dir: fleetDir, TenantRepos: []lint.TenantRepo{{Tenant: "nobody", Dir: repoDir}}}, "no Tenant nobody, nor a tenant made by hand of that name, in the kustomizations the fleet applies; allowed: dev-team, ops"},
		"unknown source":   {lint.Options{Dir: fleetDir, TenantRepos: []lint.TenantRepo{{Tenant: "dev-team", Source: "x", Dir: repoDir}}}, "has no Git source x; allowed: dev-team"},
		"repository twice": {lint.Options{Dir: fleetDir, TenantRepos: []lint.TenantRepo{{Tenant: "ops", Dir: repoDir}, {Tenant: "ops", Dir: repoDir}}}, "given twice"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := lint.Lint(context.Background(), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestRulesAreStable keeps the ids CI configurations name.
func TestRulesAreStable(t *testing.T) {
	var got []string
	for _, r := range lint.Rules {
		got = append(got, r.ID+" "+r.Name)
	}
	want := []string{"LINT001 build-error", "LINT002 schema", "LINT003 validation-rule", "LINT004 unknown-kind", "LINT005 remote-base",
		"LINT006 path-escape", "LINT007 unencrypted-secret", "LINT008 tenant-namespace", "LINT009 source-path", "LINT010 flux-lockdown"}
	if !slices.Equal(got, want) {
		t.Errorf("rules = %q, want %q", got, want)
	}
}

// TestLintReadsNothingOutsideTheRepository: a tenant repository whose
// kustomization file, or a file its kustomization lists, is a symlink to a
// file of the machine lint runs on gets a finding, and no finding, in any
// output format, carries a byte of that file.
func TestLintReadsNothingOutsideTheRepository(t *testing.T) {
	fleetDir, repoDir := scaffold(t, nil, map[string]string{"staging/kustomization.yaml": overlay("extra.yaml")})
	secret := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(secret, []byte("resources:\n- https://SECRET-TOKEN-123.example/x.yaml\n- SECRET-TOKEN-123.yaml\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{"staging/extra.yaml", "production/kustomization.yaml"} {
		path := filepath.Join(repoDir, filepath.FromSlash(link))
		_ = os.Remove(path)
		if err := os.Symlink(secret, path); err != nil {
			t.Fatal(err)
		}
	}
	_, findings := lintDirs(t, fleetDir, repoDir)
	for _, f := range findings {
		t.Log(f)
	}
	if len(findings) == 0 {
		t.Error("no finding on files that lead out of the repository")
	}
	// Every output format (text, JSON, SARIF, GitHub) is made of these fields.
	for _, f := range findings {
		if strings.Contains(f.String(), "SECRET-TOKEN-123") {
			t.Errorf("a finding carries the outside file: %s", f)
		}
	}
}

// TestMultipliedBuildsAreBounded: kustomizations taking one another in
// twice per level (14 levels, 43 files) are refused where the loads first
// cross the bound, before kustomize runs; 8 levels build. A build reading
// more than its bound stops with a finding naming it, and a cancelled lint
// returns at once with the context's error.
func TestMultipliedBuildsAreBounded(t *testing.T) {
	deep := t.TempDir()
	writeFiles(t, deep, hostilerepo.Diamond(14))
	findings, err := lint.Lint(context.Background(), lint.Options{Dir: deep})
	if err != nil {
		t.Fatal(err)
	}
	if len(findings) != 1 || findings[0].File != "l9/kustomization.yaml" || findings[0].Rule != lint.RuleBuild.ID || !strings.Contains(findings[0].Message, "would load more than 1430 kustomizations") {
		t.Errorf("14 levels: %v, want one LINT001 at l9 naming the bound of 1430", findings)
	}

	shallow := t.TempDir()
	writeFiles(t, shallow, hostilerepo.Diamond(8))
	if findings, err := lint.Lint(context.Background(), lint.Options{Dir: shallow}); err != nil || len(findings) != 0 {
		t.Errorf("8 levels: %v, %v; want it built", findings, err)
	}
	findings, err = lint.Lint(context.Background(), lint.Options{Dir: shallow, MaxBuildReads: 100})
	if err != nil || len(findings) == 0 || !strings.Contains(findings[0].Message, "the build stopped after 100 file reads") {
		t.Errorf("8 levels, 100 reads: %v, %v; want the bound named", findings, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := lint.Lint(ctx, lint.Options{Dir: shallow, MaxBuildReads: 1 << 30}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

// TestYAMLAliasBombsAreRefused: a file whose aliases expand to billions of
// nodes is a finding, read by kustomize or by lint itself, before anything
// expands it; a file reusing an anchor a few times lints clean.
func TestYAMLAliasBombsAreRefused(t *testing.T) {
	var bomb strings.Builder
	bomb.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb, namespace: team}\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&bomb, "l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 9), ", "))
	}
	bomb.WriteString("data: {x: *l9}\n")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"built/kustomization.yaml": "resources: [cm.yaml]\n",
		"built/cm.yaml":            bomb.String(),
		"loose/cm.yaml":            bomb.String(),
		"reuse/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: reuse, namespace: team, labels: &labels {app: web}, annotations: *labels}\n",
	})
	findings, err := lint.Lint(context.Background(), lint.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range findings {
		if !strings.Contains(f.Message, "YAML aliases expand to more than 1000000 nodes") {
			t.Errorf("unexpected finding %s", f)
		}
		files = append(files, f.File)
	}
	if !slices.Equal(files, []string{"built/kustomization.yaml", "loose/cm.yaml"}) {
		t.Errorf("findings in %v, want the kustomization building the bomb and the loose one", files)
	}
}

// TestLintBuildsNothingPastItsBounds: a .sourceignore leading out of the
// repository (to an endless device), which Flux's generator would read
// with a plain open, and a remote base hidden behind a YAML alias, which
// the path checks read as written, are findings; nothing is read from or
// fetched for them. A regular .sourceignore is the neighbour.
func TestLintBuildsNothingPastItsBounds(t *testing.T) {
	fleetDir, repoDir := scaffold(t, nil, map[string]string{
		"production/kustomization.yaml": "metadata: {name: &u 'http://127.0.0.1:9/cm.yaml'}\nresources: [../base, *u]\n",
		"base/.sourceignore":            "*.md\n",
	})
	if err := os.Symlink("/dev/zero", filepath.Join(repoDir, "staging", ".sourceignore")); err != nil {
		t.Fatal(err)
	}
	got, findings := lintDirs(t, fleetDir, repoDir)
	for _, f := range findings {
		t.Log(f)
	}
	for _, want := range []string{"dev-team:staging/.sourceignore:1: LINT001", "dev-team:production/kustomization.yaml:2: LINT001"} {
		if !slices.Contains(got, want) {
			t.Errorf("findings %v, want %s", got, want)
		}
	}
	for _, f := range got {
		if strings.HasPrefix(f, "dev-team:base/") {
			t.Errorf("a regular .sourceignore is a finding: %s", f)
		}
	}
}

// fluxInstance is a Flux Operator FluxInstance, multitenant as given, its
// other lockdown settings on.
func fluxInstance(multitenant string) string {
	return "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\nspec:\n" +
		"  distribution: {version: 2.7.x, registry: ghcr.io/fluxcd}\n" +
		"  cluster:\n    multitenant: " + multitenant + "\n    objectLevelWorkloadIdentity: true\n    multitenantWorkloadIdentity: true\n"
}
