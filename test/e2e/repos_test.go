package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"helm.sh/helm/v3/pkg/chartutil"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/internal/cli"
	"github.com/landlord-dev/landlord/internal/gitserver"
	"github.com/landlord-dev/landlord/internal/helmrepo"
)

// The credentials of the private Git server.
const (
	privateUser     = "flux"
	privatePassword = "e2e-s3cret"
)

// The podinfo chart versions the chart repository serves: staging's
// overlay tracks pre-releases, production's releases only.
const (
	releaseVersion    = "6.0.0"
	prereleaseVersion = "6.1.0-rc.1"
)

// appTenant is a tenant onboarded through the fleet with a repository made
// by `landlord init tenant`.
type appTenant struct {
	name     string
	greeting string // its --var GREETING
}

var appTenants = []appTenant{{"dev-team", "hello from dev-team"}, {"ops", "hello from ops"}}

// vault is the tenant whose repository is on the private Git server.
const vault = "vault"

// repoDir is the working copy of a repository.
func repoDir(name string) string { return filepath.Join(work, "repos", name) }

// landlord runs the CLI in process.
func landlord(ctx context.Context, stdin string, args ...string) (string, error) {
	var out, errOut bytes.Buffer
	cmd := cli.NewRootCommand()
	cmd.SetArgs(args)
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	if err := cmd.ExecuteContext(ctx); err != nil {
		return "", fmt.Errorf("landlord %s: %w\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String(), nil
}

// addPodinfoCharts packages a podinfo chart in both versions: a ConfigMap
// telling which version with which replicaCount, since no pod runs without
// nodes.
func addPodinfoCharts(charts *helmrepo.Server) error {
	for _, version := range []string{releaseVersion, prereleaseVersion} {
		dir := filepath.Join(work, "chart-sources", version, "podinfo")
		files := map[string]string{
			chartutil.ChartfileName:  "apiVersion: v2\nname: podinfo\ntype: application\nversion: " + version + "\n",
			chartutil.ValuesfileName: "replicaCount: 1\n",
			"templates/configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}
data:
  chartVersion: {{ .Chart.Version | quote }}
  replicaCount: {{ .Values.replicaCount | quote }}
`,
		}
		if err := writeFiles(dir, files); err != nil {
			return err
		}
		if _, _, err := charts.AddChart(dir); err != nil {
			return err
		}
	}
	return nil
}

// pushRepositories makes the tenant repositories and the fleet and pushes
// them, as a platform admin and tenants would before bootstrapping Flux.
func pushRepositories(ctx context.Context) error {
	for _, t := range appTenants {
		if err := pushAppRepo(ctx, t.name); err != nil {
			return err
		}
	}
	if err := pushVaultRepo(ctx); err != nil {
		return err
	}
	return pushFleet(ctx)
}

// pushAppRepo scaffolds a tenant repository installing podinfo from the
// local chart repository and pushes it; the tenant adds a staging-only
// ConfigMap taking its variables and one more it will remove.
func pushAppRepo(ctx context.Context, name string) error {
	dir := repoDir(name)
	if _, err := public.CreateRepo(name); err != nil {
		return err
	}
	if _, err := landlord(ctx, "", "init", "tenant", dir, "--chart-url", chartsURL); err != nil {
		return err
	}
	if err := writeFiles(filepath.Join(dir, "staging"), map[string]string{
		"settings.yaml": settingsYAML("blue"),
		"feature.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: feature-flags\ndata:\n  beta: \"true\"\n",
	}); err != nil {
		return err
	}
	if err := addResources(filepath.Join(dir, "staging"), "settings.yaml", "feature.yaml"); err != nil {
		return err
	}
	_, err := public.PushDir(ctx, name, dir, "scaffold with landlord init tenant")
	return err
}

// settingsYAML is the staging ConfigMap of an app tenant: its variables,
// substituted by Flux, and a color the tenant changes in a later commit.
func settingsYAML(color string) string {
	return `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  tenant: ${TENANT_NAME}
  namespace: ${TENANT_NAMESPACE}
  greeting: ${GREETING}
  color: ` + color + "\n"
}

// pushVaultRepo pushes the private tenant's repository: one ConfigMap.
func pushVaultRepo(ctx context.Context) error {
	if _, err := private.CreateRepo(vault); err != nil {
		return err
	}
	dir := repoDir(vault)
	if err := writeFiles(dir, map[string]string{
		"configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: vault-data\n  namespace: vault\ndata:\n  from: private\n",
	}); err != nil {
		return err
	}
	_, err := private.PushDir(ctx, vault, dir, "private data")
	return err
}

// fleetDir is the working copy of the fleet repository.
func fleetDir() string { return repoDir("fleet") }

// pushFleet makes the fleet with `landlord init fleet` and `landlord tenant
// create --export --fleet`, adds what `flux bootstrap` would commit per
// cluster and the private tenant's SOPS-encrypted Git credential, and
// pushes it.
func pushFleet(ctx context.Context) error {
	dir := fleetDir()
	if _, err := public.CreateRepo("fleet"); err != nil {
		return err
	}
	// Landlord runs in the test process: the fleet installs its CRD only.
	if _, err := landlord(ctx, "", "init", "fleet", dir, "--install", "crd"); err != nil {
		return err
	}
	for _, t := range appTenants {
		if _, err := landlord(ctx, "", "tenant", "create", t.name, "--namespace", t.name,
			"--git-url", public.RepoURL(t.name), "--branch", gitserver.Branch,
			"--env", "staging=./staging,production=./production", "--var", "GREETING="+t.greeting,
			"--export", "--fleet", dir); err != nil {
			return err
		}
	}
	if _, err := landlord(ctx, "", "tenant", "create", vault, "--namespace", vault,
		"--git-url", private.RepoURL(vault), "--branch", gitserver.Branch, "--secret-ref", vault+"-git",
		"--export", "--fleet", dir); err != nil {
		return err
	}
	if err := addVaultCredential(ctx, dir); err != nil {
		return err
	}
	for _, cluster := range []string{"staging", "production"} {
		if err := writeFiles(filepath.Join(dir, "clusters", cluster, "flux-system"), bootstrapFiles(cluster)); err != nil {
			return err
		}
	}
	_, err := public.PushDir(ctx, "fleet", dir, "fleet for staging and production")
	return err
}

// addVaultCredential commits the private tenant's Git credential made by
// `landlord secret git`, SOPS-encrypted for the cluster's age key. It cannot
// sit beside the Tenant in tenants/: Flux dry-runs a whole apply before
// writing any of it, and the Secret's namespace exists only once Landlord
// has provisioned the Tenant. So a Kustomization of its own applies it,
// after the tenants, decrypting with the key in Secret sops-age.
func addVaultCredential(ctx context.Context, fleet string) error {
	encrypted, err := landlord(ctx, privatePassword, "secret", "git", vault+"-git", "--namespace", vault,
		"--url", private.RepoURL(vault), "--username", privateUser, "--password-stdin",
		"--age-recipient", sopsKey.Recipient().String(), "--export")
	if err != nil {
		return err
	}
	if strings.Contains(encrypted, privatePassword) {
		return fmt.Errorf("landlord secret git --export printed the password in clear")
	}
	return writeFiles(fleet, map[string]string{
		"tenant-secrets/staging/vault-git.yaml":     encrypted,
		"tenant-secrets/staging/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- vault-git.yaml\n",
		"clusters/staging/tenant-secrets.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: tenant-secrets
  namespace: flux-system
spec:
  dependsOn:
  - name: tenants
  interval: 10m0s
  retryInterval: 5s
  path: ./tenant-secrets/staging
  prune: true
  serviceAccountName: kustomize-controller
  sourceRef:
    kind: GitRepository
    name: flux-system
  decryption:
    provider: sops
    secretRef:
      name: sops-age
`,
	})
}

// bootstrapFiles are what `flux bootstrap --path=clusters/CLUSTER` commits,
// less gotk-components.yaml: the controllers run as local processes. The
// fleet's lockdown component goes in as its README says.
func bootstrapFiles(cluster string) map[string]string {
	return map[string]string{
		"gotk-sync.yaml": fmt.Sprintf(`apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10s
  ref:
    branch: %s
  url: %s
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m0s
  path: ./clusters/%s
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`, gitserver.Branch, public.RepoURL("fleet"), cluster),
		"kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- gotk-sync.yaml
components:
- ../../../infrastructure/flux-lockdown
`,
	}
}

// writeFiles writes files, by path relative to dir.
func writeFiles(dir string, files map[string]string) error {
	for name, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// addResources lists resources in dir's kustomization.yaml.
func addResources(dir string, resources ...string) error {
	return editKustomization(dir, func(k *types.Kustomization) { k.Resources = append(k.Resources, resources...) })
}

func editKustomization(dir string, edit func(*types.Kustomization)) error {
	path := filepath.Join(dir, "kustomization.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	k := &types.Kustomization{}
	if err := yaml.UnmarshalStrict(data, k); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	edit(k)
	if data, err = yaml.Marshal(k); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
