package cli_test

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// A fleet built the way Capsule's Flux addon guide and
// clastix/flux2-capsule-multi-tenancy build it: Capsule from a
// HelmRelease, tenant dev-team (Capsule v1beta2) owned by its GitOps
// reconciler ServiceAccount in the home namespace dev-team, which syncs
// the tenant's repository through capsule-proxy as Flux's default service
// account, with cluster-admin there, the namespace provisioner and
// self-impersonation; tenant ops-team (v1beta1), namespaces alone; and
// dev-team's repository.
const (
	capsuleFleet = "testdata/capsule/fleet"
	devTeamRepo  = "testdata/capsule/dev-team"
)

// TestLintCapsuleFleet lints the Capsule fleet and dev-team's repository
// as the Tenant equivalent to the Capsule tenant would sync it: no error,
// Capsule's own kinds warnings; then the escapes Capsule's layout invites
// (a child Kustomization through capsule-proxy, cluster-admin bound in the
// tenant's namespace) are reported at their file and line.
func TestLintCapsuleFleet(t *testing.T) {
	code, stdout, stderr := execute("lint", capsuleFleet, "--tenant-repo", "dev-team="+devTeamRepo)
	if code != 0 || stderr != "" || strings.Count(stdout, "LINT004: warning") != 3 || strings.Count(stdout, "\n") != 3 {
		t.Errorf("exit code %d, stderr %q, want 0 and the warnings of Capsule's three kinds:\n%s", code, stderr, stdout)
	}

	planted := plant(t, devTeamRepo, map[string]string{
		"staging/kustomization.yaml": "namespace: dev-team-apps\nresources:\n- deployment.yaml\n- service.yaml\n- admin.yaml\n- tools.yaml\n",
		"staging/admin.yaml": `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: admin
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
- kind: ServiceAccount
  name: gitops-reconciler
  namespace: dev-team
`,
		"staging/tools.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: tools
spec:
  interval: 5m
  path: ./tools
  prune: true
  kubeConfig:
    secretRef:
      name: gitops-reconciler-kubeconfig
      key: kubeconfig
  sourceRef:
    kind: GitRepository
    name: dev-team
    namespace: dev-team
`,
	})
	code, stdout, _ = execute("lint", capsuleFleet, "--tenant-repo", "dev-team="+planted)
	if code != 1 {
		t.Errorf("exit code %d with planted escapes, want 1", code)
	}
	for _, want := range []string{
		`staging/admin.yaml:8: LL015: tenant dev-team: roleRef.name: Unsupported value: "cluster-admin"`,
		`staging/tools.yaml:9: LL004: tenant dev-team: spec.kubeConfig`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
}

// TestTenantImportCapsuleFleet writes a Tenant per Capsule tenant and says
// by name what did not map, and why.
func TestTenantImportCapsuleFleet(t *testing.T) {
	code, stdout, stderr := execute("tenant", "import", capsuleFleet)
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr)
	}
	tenants := decodeStream(t, stdout)
	if len(tenants) != 2 || tenants[0].GetName() != "dev-team" || tenants[1].GetName() != "ops-team" {
		t.Fatalf("want Tenants dev-team and ops-team, got\n%s", stdout)
	}
	for _, want := range []string{
		"tenants/base/dev-team/sync.yaml:12: Kustomization dev-team/dev-team: kubeConfig gitops-reconciler-kubeconfig (capsule-proxy) dropped",
		"tenants/base/dev-team/rbac.yaml:19: RoleBinding dev-team/gitops-reconciler grants cluster-admin to the reconciler: replaced by the tenant role landlord-tenant",
		"Tenant dev-team: spec.additionalRoleBindings: cluster-admin is refused (LL018",
		"Tenant dev-team: owner dev-team-leads's proxySettings not imported",
		"Tenant dev-team: spec.networkPolicies: 1 NetworkPolicies not imported",
		`Tenant dev-team: spec.ingressOptions.allowedHostnames.allowedRegex ".*\\.dev-team\\.example\\.com" not imported`,
		`Tenant dev-team: spec.namespaceOptions.quota: namespace quota 5 imported as spec.selfService with prefix "dev-team-"`,
		"Tenant ops-team: spec.namespaceQuota: namespace quota 3",
		"Tenant ops-team: no Kustomization syncs as a ServiceAccount owner of it: imported without sources",
		"tenants/staging/capsule-configuration.yaml:1: CapsuleConfiguration default: not needed by Landlord",
		"tenants/base/ops-team/tenant.yaml:38: Tenant ops-team: spec.additionalRoleBindings: ops-deployer is refused: spec.role: Forbidden: LL018: ClusterRole ops-deployer grants create on serviceaccounts/token",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr says nothing of %q:\n%s", want, stderr)
		}
	}
}

// TestImportedCapsuleTenantsProvision applies the Tenants tenant import
// writes for the Capsule fleet and checks what the controller provisions
// against the fleet: dev-team's home namespace first, then the namespace
// the fleet labels for it; its owners bound; its repository synced at the
// same URL, ref, path, interval and prune, as the GitOps reconciler,
// without capsule-proxy's kubeconfig; ops-team's namespace and owner.
func TestImportedCapsuleTenantsProvision(t *testing.T) {
	t.Parallel()
	applyImported(t, capsuleFleet, "dev-team", "ops-team")

	for tenant, namespaces := range map[string][]string{"dev-team": {"dev-team", "dev-team-apps"}, "ops-team": {"ops-team-tools"}} {
		for _, name := range namespaces {
			ns := &corev1.Namespace{}
			if err := k8s.Get(ctx, client.ObjectKey{Name: name}, ns); err != nil || ns.Labels[v1alpha1.TenantLabel] != tenant {
				t.Errorf("namespace %s: %v, labels %v, want tenant %s's", name, err, ns.Labels, tenant)
			}
		}
	}
	owners := &rbacv1.RoleBinding{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "dev-team-apps", Name: "landlord-owners"}, owners); err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for _, s := range owners.Subjects {
		subjects = append(subjects, s.Kind+" "+s.Name)
	}
	if !slices.Contains(subjects, "User alice@example.com") || !slices.Contains(subjects, "Group dev-team-leads") {
		t.Errorf("dev-team-apps owners %v, want alice@example.com and dev-team-leads", subjects)
	}

	repo := &sourcev1.GitRepository{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "dev-team", Name: "dev-team"}, repo); err != nil {
		t.Fatal(err)
	}
	if repo.Spec.URL != "https://git.example.com/dev-team/apps" || repo.Spec.Reference == nil || repo.Spec.Reference.Branch != "main" || repo.Spec.Interval.Duration.String() != "1m0s" {
		t.Errorf("GitRepository dev-team/dev-team: %s %+v every %s, by hand https://git.example.com/dev-team/apps branch main every 1m", repo.Spec.URL, repo.Spec.Reference, repo.Spec.Interval.Duration)
	}
	ks := &kustomizev1.Kustomization{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "dev-team", Name: "dev-team"}, ks); err != nil {
		t.Fatal(err)
	}
	if ks.Spec.Path != "./staging" || !ks.Spec.Prune || ks.Spec.Interval.Duration.String() != "1m0s" || ks.Spec.SourceRef.Name != "dev-team" ||
		ks.Spec.ServiceAccountName != "gitops-reconciler" || ks.Spec.KubeConfig != nil {
		t.Errorf("Kustomization dev-team/dev-team: path %q prune %v every %s from %s as %q, kubeConfig %v; by hand ./staging, prune, 1m, dev-team, as the default gitops-reconciler through capsule-proxy",
			ks.Spec.Path, ks.Spec.Prune, ks.Spec.Interval.Duration, ks.Spec.SourceRef.Name, ks.Spec.ServiceAccountName, ks.Spec.KubeConfig)
	}
}
