package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/lint"
	"github.com/landlord-dev/landlord/internal/manager"
)

// The fleet built by hand the way Flux's multi-tenancy guide builds it:
// two tenants of flux create tenant with a GitRepository and a
// Kustomization each, Kyverno from a HelmRelease with a ClusterPolicy,
// objects of Flux's gotk-components.yaml; and the tenants' repositories.
const (
	handMadeFleet = "testdata/handmade/fleet"
	team1Repo     = "testdata/handmade/team1"
	team2Repo     = "testdata/handmade/team2"
)

// TestLintHandMadeFleet lints the hand-made fleet and both tenants'
// repositories, judged as the tenants' reconcilers apply them: no error,
// the ClusterPolicy a warning; then an escape planted in team2's
// repository is reported at its file and line.
func TestLintHandMadeFleet(t *testing.T) {
	code, stdout, stderr := execute("lint", handMadeFleet, "--tenant-repo", "team1="+team1Repo, "--tenant-repo", "team2="+team2Repo)
	want := `infrastructure/kyverno-policies/verify-git-repositories.yaml:1: LINT004: warning: no schema for apiVersion "kyverno.io/v1", kind "ClusterPolicy"`
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, want) || strings.Count(stdout, "\n") != 1 {
		t.Errorf("exit code %d, stderr %q, want 0 and only the ClusterPolicy's warning:\n%s", code, stderr, stdout)
	}

	planted := plant(t, team2Repo, map[string]string{
		"staging/kustomization.yaml": "resources:\n- ../base\n- admin.yaml\n- platform-sync.yaml\npatches:\n- path: podinfo-values.yaml\n",
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
  name: team2
  namespace: team2-apps
`,
		"staging/platform-sync.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: platform
spec:
  interval: 5m
  path: ./
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
    namespace: flux-system
`,
	})
	code, stdout, _ = execute("lint", handMadeFleet, "--tenant-repo", "team1="+team1Repo, "--tenant-repo", "team2="+planted)
	if code != 1 {
		t.Errorf("exit code %d with planted escapes, want 1", code)
	}
	for _, want := range []string{
		`staging/admin.yaml:8: LL015: tenant team2: roleRef.name: Unsupported value: "cluster-admin"`,
		`staging/platform-sync.yaml:12: LL002: tenant team2: spec.sourceRef.namespace: Forbidden: cross-namespace references are denied (flux-system)`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
}

// TestTenantImportHandMadeFleet prints a Tenant per hand-made tenant and
// says, at its file and line, what does not map.
func TestTenantImportHandMadeFleet(t *testing.T) {
	code, stdout, stderr := execute("tenant", "import", handMadeFleet)
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr)
	}
	tenants := decodeStream(t, stdout)
	if len(tenants) != 2 || tenants[0].GetName() != "team1" || tenants[1].GetName() != "team2" {
		t.Fatalf("want Tenants team1 and team2, got\n%s", stdout)
	}
	for _, want := range []string{
		"tenants/base/team1/rbac.yaml:17: RoleBinding team1-apps/gotk-reconciler grants cluster-admin in team1-apps: the Tenant's reconciler gets the default tenant role landlord-tenant instead",
		"tenants/base/team2/rbac.yaml:17: RoleBinding team2-apps/gotk-reconciler: subject User gotk:team2-apps:reconciler dropped",
		"tenants/base/team1/rbac.yaml:2: tenant team1 gets what it did not have: Pod Security restricted",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr says nothing of %q:\n%s", want, stderr)
		}
	}
	if code, _, stderr := execute("tenant", "import", team1Repo); code != 1 || !strings.Contains(stderr, "no tenant made by hand") {
		t.Errorf("import of a repository without tenants: exit code %d, stderr %q", code, stderr)
	}
}

// TestImportedTenantsProvisionTheHandMadeFleet applies the Tenants tenant
// import writes for the hand-made fleet and checks that the controller
// provisions what the fleet made by hand: the namespaces, the reconciler
// accounts, each GitRepository's URL, ref and interval and each
// Kustomization's path, interval, prune, source and service account. The
// neighbour: the reconciler, cluster-admin in its namespace by hand, may
// no longer bind cluster-admin there.
func TestImportedTenantsProvisionTheHandMadeFleet(t *testing.T) {
	t.Parallel()
	applyImported(t, handMadeFleet, "team1", "team2")

	builds, _, err := lint.Applied(ctx, handMadeFleet)
	if err != nil {
		t.Fatal(err)
	}
	compared := map[string]int{}
	for _, b := range builds {
		for _, o := range b.Objects {
			want := o.Unstructured
			if !strings.HasPrefix(want.GetNamespace()+want.GetName(), "team") {
				continue
			}
			var fields [][]string
			switch want.GetKind() {
			case "Namespace", "ServiceAccount":
			case "GitRepository":
				fields = [][]string{{"spec", "url"}, {"spec", "ref"}, {"spec", "interval"}}
			case "Kustomization":
				fields = [][]string{{"spec", "path"}, {"spec", "interval"}, {"spec", "prune"}, {"spec", "sourceRef"}, {"spec", "serviceAccountName"}}
			default:
				continue
			}
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(want.GroupVersionKind())
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(want), got); err != nil {
				t.Errorf("%s %s/%s made by hand, not by the imported Tenant: %v", want.GetKind(), want.GetNamespace(), want.GetName(), err)
				continue
			}
			compared[want.GetKind()]++
			for _, f := range fields {
				w, _, _ := unstructured.NestedFieldNoCopy(want.Object, f...)
				g, _, _ := unstructured.NestedFieldNoCopy(got.Object, f...)
				if !sameValue(w, g) {
					t.Errorf("%s %s/%s: %s is %v, by hand %v", want.GetKind(), want.GetNamespace(), want.GetName(), strings.Join(f, "."), g, w)
				}
			}
		}
	}
	for _, kind := range []string{"Namespace", "ServiceAccount", "GitRepository", "Kustomization"} {
		if compared[kind] != 2 {
			t.Errorf("%d %ss compared, want 2", compared[kind], kind)
		}
	}

	reconciler := rest.CopyConfig(env.Config)
	reconciler.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:team1-apps:team1",
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:team1-apps", "system:authenticated"}}
	c, err := client.New(reconciler, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	escape := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "admin", Namespace: "team1-apps"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "team1", Namespace: "team1-apps"}},
	}
	if err := c.Create(ctx, escape); !apierrors.IsForbidden(err) {
		t.Errorf("the imported tenant's reconciler binds cluster-admin: %v, want Forbidden", err)
	}
}

// plant copies repo and writes files over the copy, returning its path.
func plant(t *testing.T, repo string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(repo)); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// applyImported imports the fleet's tenants of staging, creates them on
// the local control plane, and waits until each has its namespaces Ready.
func applyImported(t *testing.T, fleet string, names ...string) {
	t.Helper()
	startLandlord(t)
	out := t.TempDir()
	if code, _, stderr := execute("tenant", "import", fleet, "--output-dir", out); code != 0 {
		t.Fatalf("tenant import: exit code %d: %s", code, stderr)
	}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(out, "tenants", "staging", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := k8s.Create(ctx, decodeStream(t, string(data))[0]); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _, _, _ = landlordLive("tenant", "delete", name) })
	}
	for _, name := range names {
		waitFor(t, name, func(tenant *v1alpha1.Tenant) bool {
			ready := len(tenant.Status.Namespaces) > 0
			for _, ns := range tenant.Status.Namespaces {
				ready = ready && ns.Ready
			}
			return ready && tenant.Status.ObservedGeneration == tenant.Generation
		})
	}
}

// sameValue compares a field as written by hand with the live one;
// durations by their length, since Flux writes 5m as 5m0s.
func sameValue(want, got any) bool {
	if ws, ok := want.(string); ok {
		if gs, ok := got.(string); ok {
			wd, werr := time.ParseDuration(ws)
			gd, gerr := time.ParseDuration(gs)
			if werr == nil && gerr == nil {
				return wd == gd
			}
			return ws == gs
		}
	}
	wm, _ := want.(map[string]any)
	gm, _ := got.(map[string]any)
	if wm != nil || gm != nil {
		if len(wm) != len(gm) {
			return false
		}
		for k, v := range wm {
			if !sameValue(v, gm[k]) {
				return false
			}
		}
		return true
	}
	return want == got
}

// TestTenantImportWritesOnlyInsideItsDirectory: a hand-made fleet whose
// tenant label climbs out of the output directory gets nothing imported:
// the name is refused, naming the file and what is allowed, before any
// file is written, and nothing appears outside the directory.
func TestTenantImportWritesOnlyInsideItsDirectory(t *testing.T) {
	work := t.TempDir()
	fleetDir := filepath.Join(work, "fleet")
	if err := os.CopyFS(fleetDir, os.DirFS(handMadeFleet)); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"rbac.yaml", "sync.yaml"} {
		file := filepath.Join(fleetDir, "tenants", "base", "team2", name)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(strings.ReplaceAll(string(data), "toolkit.fluxcd.io/tenant: team2", "toolkit.fluxcd.io/tenant: ../../../escaped")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(work, "out", "tenants")
	code, _, stderr := execute("tenant", "import", fleetDir, "--output-dir", out)
	if code == 0 || !strings.Contains(stderr, `tenant name "../../../escaped"`) || !strings.Contains(stderr, "nothing imported") {
		t.Errorf("exit code %d, stderr %q: want a refusal naming the tenant name", code, stderr)
	}
	var written []string
	_ = filepath.WalkDir(work, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(p, fleetDir) {
			written = append(written, p)
		}
		return nil
	})
	if len(written) > 0 {
		t.Errorf("files written although the import was refused: %v", written)
	}
}
