package fleet_test

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/fleet"
	"github.com/landlord-dev/landlord/internal/lockdown"
)

func newTenant(t *testing.T, name string) *v1alpha1.Tenant {
	t.Helper()
	tenant, err := fleet.NewTenant(fleet.TenantOptions{
		Name:       name,
		Namespaces: []string{name + "-apps"},
		GitURL:     "https://git.example.com/org/" + name,
		Ref:        v1alpha1.GitRef{Branch: "main"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tenant
}

func initFleet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := fleet.InitFleet(dir, fleet.DefaultClusters, fleet.FullInstall); err != nil {
		t.Fatal(err)
	}
	return dir
}

func build(t *testing.T, dir string) resmap.ResMap {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	return m
}

// TestFleetBuildsPerCluster builds each cluster's tenants with kustomize:
// every tenant is there, syncing the path of that cluster.
func TestFleetBuildsPerCluster(t *testing.T) {
	dir := initFleet(t)
	envs := []fleet.EnvPath{{Env: "staging", Path: "./staging"}, {Env: "production", Path: "./prod"}}
	for _, name := range []string{"team-a", "team-b"} {
		if _, err := fleet.AddTenant(dir, newTenant(t, name), envs); err != nil {
			t.Fatal(err)
		}
	}
	for _, env := range envs {
		paths := map[string]string{}
		for _, res := range build(t, filepath.Join(dir, "tenants", env.Env)).Resources() {
			if res.GetKind() != "Tenant" {
				t.Errorf("tenants/%s: unexpected %s %s", env.Env, res.GetKind(), res.GetName())
				continue
			}
			data, err := res.AsYAML()
			if err != nil {
				t.Fatal(err)
			}
			tenant := &v1alpha1.Tenant{}
			if err := yaml.UnmarshalStrict(data, tenant); err != nil {
				t.Fatal(err)
			}
			paths[tenant.Name] = tenant.Spec.Sources[0].Path
		}
		want := map[string]string{"team-a": env.Path, "team-b": env.Path}
		if !reflect.DeepEqual(paths, want) {
			t.Errorf("tenants/%s: source paths %v, want %v", env.Env, paths, want)
		}
	}
}

// TestInfrastructureHoldsTheTenantCRD builds ./infrastructure, what the
// infrastructure Kustomization applies.
func TestInfrastructureInstallsLandlord(t *testing.T) {
	install, err := config.Install()
	if err != nil {
		t.Fatal(err)
	}
	var everything []string
	for _, obj := range install {
		everything = append(everything, obj.GetKind()+"/"+obj.GetName())
	}
	crds, err := config.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	for mode, want := range map[fleet.Install][]string{
		fleet.FullInstall: everything,
		fleet.CRDOnly:     landlordCRDs(crds),
	} {
		t.Run(string(mode), func(t *testing.T) {
			dir := t.TempDir()
			if _, err := fleet.InitFleet(dir, fleet.DefaultClusters, mode); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, res := range build(t, filepath.Join(dir, "infrastructure")).Resources() {
				got = append(got, res.GetKind()+"/"+res.GetName())
				if res.GetKind() != "CustomResourceDefinition" {
					continue
				}
				data, err := res.AsYAML()
				if err != nil {
					t.Fatal(err)
				}
				crd := &apiextensionsv1.CustomResourceDefinition{}
				if err := yaml.UnmarshalStrict(data, crd); err != nil {
					t.Fatal(err)
				}
				embedded := crds[slices.IndexFunc(crds, func(c *apiextensionsv1.CustomResourceDefinition) bool { return c.Name == crd.Name })]
				if !equality.Semantic.DeepEqual(crd.Spec, embedded.Spec) {
					t.Errorf("infrastructure holds a %s CRD other than the embedded one", crd.Name)
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("infrastructure builds %v, want %v", got, want)
			}
		})
	}
	if _, err := fleet.InitFleet(t.TempDir(), fleet.DefaultClusters, "some"); err == nil || !strings.Contains(err.Error(), `install "some": want one of full, crd`) {
		t.Errorf("unknown install: %v", err)
	}
}

// TestLockdownComponentPatchesFlux takes the component into a stand-in for
// the flux-system kustomization flux bootstrap writes.
func TestLockdownComponentPatchesFlux(t *testing.T) {
	dir := initFleet(t)
	system := filepath.Join(dir, "clusters", "staging", "flux-system")
	var components strings.Builder
	for _, name := range []string{"kustomize-controller", "helm-controller", "source-controller"} {
		components.WriteString(`---
apiVersion: apps/v1
kind: Deployment
metadata: {name: ` + name + `, namespace: flux-system}
spec:
  selector: {matchLabels: {app: ` + name + `}}
  template:
    metadata: {labels: {app: ` + name + `}}
    spec:
      containers:
      - name: manager
        args: [--events-addr=http://notification-controller.flux-system.svc]
`)
	}
	write(t, filepath.Join(system, "gotk-components.yaml"), components.String())
	write(t, filepath.Join(system, "kustomization.yaml"), `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [gotk-components.yaml]
components: [../../../infrastructure/flux-lockdown]
`)
	args := map[string][]string{}
	for _, res := range build(t, system).Resources() {
		m, err := res.Map()
		if err != nil {
			t.Fatal(err)
		}
		containers, _, _ := unstructured.NestedSlice(m, "spec", "template", "spec", "containers")
		got, _, _ := unstructured.NestedStringSlice(containers[0].(map[string]any), "args")
		args[res.GetName()] = got
	}
	events := "--events-addr=http://notification-controller.flux-system.svc"
	for _, name := range []string{"kustomize-controller", "helm-controller", "source-controller"} {
		// Each flag once, in patch order, after Flux's own.
		got, want := args[name], append([]string{events}, lockdown.Args(name)...)
		slices.Sort(got[1:])
		slices.Sort(want[1:])
		if !slices.Equal(got, want) || lockdown.Missing(name, args[name]) != nil {
			t.Errorf("%s args after the lockdown:\n got %q\nwant %q", name, got, want)
		}
	}
}

// TestLockdownComponentKeepsTheFleetSync takes the component into the
// flux-system kustomization flux bootstrap writes: its Kustomization must
// run as kustomize-controller, not as the default account the lockdown
// imposes on Kustomizations without one.
func TestLockdownComponentKeepsTheFleetSync(t *testing.T) {
	dir := initFleet(t)
	system := filepath.Join(dir, "clusters", "staging", "flux-system")
	write(t, filepath.Join(system, "gotk-sync.yaml"), `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec:
  interval: 10m0s
  path: ./clusters/staging
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
`)
	write(t, filepath.Join(system, "kustomization.yaml"), `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [gotk-sync.yaml]
components: [../../../infrastructure/flux-lockdown]
`)
	res := build(t, system).Resources()
	if len(res) != 1 {
		t.Fatalf("built %d objects, want the Kustomization", len(res))
	}
	if sa, err := res[0].GetString("spec.serviceAccountName"); err != nil || sa != "kustomize-controller" {
		t.Errorf("flux-system Kustomization serviceAccountName = %q (%v), want kustomize-controller", sa, err)
	}
}

// TestTenantRepoBuilds builds both overlays of a tenant repository: every
// object in the namespace Flux substitutes, the chart range per overlay.
func TestTenantRepoBuilds(t *testing.T) {
	dir := t.TempDir()
	if _, err := fleet.InitTenantRepo(dir, fleet.Podinfo); err != nil {
		t.Fatal(err)
	}
	for env, want := range map[string]string{"staging": ">=1.0.0-0", "production": ">=1.0.0"} {
		var version string
		for _, res := range build(t, filepath.Join(dir, env)).Resources() {
			if ns := res.GetNamespace(); ns != "${TENANT_NAMESPACE}" {
				t.Errorf("%s: %s %s in namespace %q, want ${TENANT_NAMESPACE}", env, res.GetKind(), res.GetName(), ns)
			}
			if res.GetKind() == "HelmRelease" {
				v, err := res.GetString("spec.chart.spec.version")
				if err != nil {
					t.Fatal(err)
				}
				version = v
			}
		}
		if version != want {
			t.Errorf("%s: chart version %q, want %q", env, version, want)
		}
	}
}

func TestScaffoldsAreIdempotent(t *testing.T) {
	for name, scaffold := range map[string]func(dir string) ([]fleet.Change, error){
		"fleet": func(dir string) ([]fleet.Change, error) {
			return fleet.InitFleet(dir, []string{"dev"}, fleet.FullInstall)
		},
		"tenant": func(dir string) ([]fleet.Change, error) { return fleet.InitTenantRepo(dir, fleet.Podinfo) },
		"add tenant": func(dir string) ([]fleet.Change, error) {
			if _, err := fleet.InitFleet(dir, []string{"dev"}, fleet.FullInstall); err != nil {
				return nil, err
			}
			return fleet.AddTenant(dir, newTenant(t, "team-a"), []fleet.EnvPath{{Env: "dev", Path: "./dev"}})
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := scaffold(dir); err != nil {
				t.Fatal(err)
			}
			before := tree(t, dir)
			changes, err := scaffold(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range changes {
				if c.Action != fleet.Unchanged {
					t.Errorf("second run: %s %s", c.Action, c.Path)
				}
			}
			if after := tree(t, dir); !reflect.DeepEqual(before, after) {
				t.Errorf("second run changed the tree")
			}
		})
	}
}

// TestScaffoldRefusesToOverwrite leaves the repository as it was.
func TestScaffoldRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "clusters", "staging", "tenants.yaml"), "mine\n")
	_, err := fleet.InitFleet(dir, fleet.DefaultClusters, fleet.FullInstall)
	if err == nil || !strings.Contains(err.Error(), filepath.Join("clusters", "staging", "tenants.yaml")) {
		t.Fatalf("err = %v, want a refusal naming clusters/staging/tenants.yaml", err)
	}
	if got := tree(t, dir); len(got) != 1 {
		t.Errorf("refusal wrote files: %v", slices.Sorted(maps.Keys(got)))
	}
}

func TestAddTenantRefusesADifferentTenant(t *testing.T) {
	dir := initFleet(t)
	if _, err := fleet.AddTenant(dir, newTenant(t, "team-a"), nil); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	other := newTenant(t, "team-a")
	other.Spec.Namespaces[0].Name = "elsewhere"
	_, err := fleet.AddTenant(dir, other, []fleet.EnvPath{{Env: "staging", Path: "./staging"}})
	if err == nil || !strings.Contains(err.Error(), "tenant team-a already exists") {
		t.Fatalf("err = %v, want a refusal naming the tenant", err)
	}
	if after := tree(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("refusal changed the tree")
	}
}

func TestAddTenantErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		init   bool
		tenant *v1alpha1.Tenant
		envs   []fleet.EnvPath
		want   string
	}{
		"not a fleet":        {tenant: newTenant(t, "a"), want: "not a fleet repository"},
		"unknown cluster":    {init: true, tenant: newTenant(t, "a"), envs: []fleet.EnvPath{{Env: "qa", Path: "./qa"}}, want: "cluster qa:"},
		"env without source": {init: true, tenant: &v1alpha1.Tenant{}, envs: []fleet.EnvPath{{Env: "staging", Path: "./s"}}, want: "no source"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.init {
				dir = initFleet(t)
			}
			_, err := fleet.AddTenant(dir, tc.tenant, tc.envs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestParseVariables(t *testing.T) {
	for in, want := range map[string]string{
		"A=b":      "",
		"_x1=a=b":  "",
		"EMPTY=":   "",
		"novalue":  "want K=V",
		"=nothing": "want K=V",
	} {
		_, err := fleet.ParseVariables([]string{in})
		checkErr(t, in, err, want)
	}
	if _, err := fleet.ParseVariables([]string{"A=1", "A=2"}); err == nil {
		t.Error("A set twice: no error")
	}
}

func TestParseQuota(t *testing.T) {
	for in, want := range map[string]string{
		"requests.cpu=4": "",
		"pods=50":        "",
		"memory=8Gi":     "",
		"pods=lots":      "quantities must match",
		"pods":           "want resource=quantity",
		"=4":             "want resource=quantity",
	} {
		_, err := fleet.ParseQuota([]string{in})
		checkErr(t, in, err, want)
	}
	got, err := fleet.ParseQuota([]string{"requests.memory=8Gi"})
	if err != nil || !got["requests.memory"].Equal(resource.MustParse("8Gi")) {
		t.Errorf("ParseQuota = %v, %v", got, err)
	}
}

func TestParseEnvPaths(t *testing.T) {
	for in, want := range map[string]string{
		"staging=./staging": "",
		"staging":           "want cluster=path",
		"staging=":          "want cluster=path",
		"Staging=./s":       "must be a DNS label",
		"base=./b":          "other than base",
		"prod=../x":         "must not contain '..'",
	} {
		_, err := fleet.ParseEnvPaths([]string{in})
		checkErr(t, in, err, want)
	}
	if _, err := fleet.ParseEnvPaths([]string{"a=./a", "a=./b"}); err == nil {
		t.Error("cluster listed twice: no error")
	}
}

func TestNewTenantErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		opts fleet.TenantOptions
		want string
	}{
		"bad name":      {fleet.TenantOptions{Name: "Team", Namespaces: []string{"a"}}, `metadata.name: Invalid value: "Team"`},
		"bad namespace": {fleet.TenantOptions{Name: "team", Namespaces: []string{"a_b"}}, `spec.namespaces[0].name: Invalid value: "a_b"`},
		"reserved var": {fleet.TenantOptions{Name: "team", Namespaces: []string{"a"},
			Variables: map[string]string{"TENANT_NAME": "x"}}, "spec.variables: Forbidden: spec.variables must not set TENANT_NAME"},
		"variable name": {fleet.TenantOptions{Name: "team", Namespaces: []string{"a"},
			Variables: map[string]string{"1A": "b", "A-B": "c"}}, "spec.variables: Invalid value: spec.variables keys must be shell-style names"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := fleet.NewTenant(tc.opts)
			checkErr(t, name, err, tc.want)
		})
	}
}

func checkErr(t *testing.T, in string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%q: %v", in, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%q: err = %v, want it to contain %q", in, err, want)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tree maps each file below dir to its content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		files[path] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestFleetWithoutTenantsBuilds: Flux builds tenants/<cluster> of a new
// fleet before any tenant is added.
func TestFleetWithoutTenantsBuilds(t *testing.T) {
	dir := initFleet(t)
	for _, cluster := range fleet.DefaultClusters {
		if n := build(t, filepath.Join(dir, "tenants", cluster)).Size(); n != 0 {
			t.Errorf("tenants/%s builds %d objects, want none", cluster, n)
		}
	}
}

// landlordCRDs names Landlord's own CRDs among crds, as the fleet lists them.
func landlordCRDs(crds []*apiextensionsv1.CustomResourceDefinition) []string {
	var names []string
	for _, crd := range crds {
		if crd.Spec.Group == v1alpha1.GroupVersion.Group {
			names = append(names, "CustomResourceDefinition/"+crd.Name)
		}
	}
	return names
}

// TestInitFleetAddsClusters: run again with more clusters, init fleet adds
// them and updates its own README; a README edited by hand is kept and
// reported, not overwritten nor a reason to refuse the rest.
func TestInitFleetAddsClusters(t *testing.T) {
	dir := t.TempDir()
	if _, err := fleet.InitFleet(dir, []string{"staging", "production"}, fleet.FullInstall); err != nil {
		t.Fatal(err)
	}
	actions := func(changes []fleet.Change) map[string]string {
		got := map[string]string{}
		for _, c := range changes {
			if c.Action != fleet.Unchanged {
				got[c.Path] = string(c.Action) + " " + c.Note
			}
		}
		return got
	}
	changes, err := fleet.InitFleet(dir, []string{"qa"}, fleet.FullInstall)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"README.md":                       "updated ",
		"clusters/qa/infrastructure.yaml": "created ",
		"clusters/qa/tenants.yaml":        "created ",
		"tenants/qa/kustomization.yaml":   "created ",
	}
	if got := actions(changes); !reflect.DeepEqual(got, want) {
		t.Errorf("adding qa: %v, want %v", got, want)
	}
	readme := filepath.Join(dir, "README.md")
	if readme := read(t, readme); !strings.Contains(readme, "for the clusters staging, production, qa.") {
		t.Errorf("README.md does not list the three clusters:\n%s", readme)
	}

	edited := strings.Replace(read(t, readme), "# Fleet", "# Our fleet", 1)
	write(t, readme, edited)
	changes, err = fleet.InitFleet(dir, []string{"dev"}, fleet.FullInstall)
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]string{
		"README.md":                        "kept edited by hand; it should list the clusters staging, production, qa, dev",
		"clusters/dev/infrastructure.yaml": "created ",
		"clusters/dev/tenants.yaml":        "created ",
		"tenants/dev/kustomization.yaml":   "created ",
	}
	if got := actions(changes); !reflect.DeepEqual(got, want) {
		t.Errorf("adding dev beside an edited README: %v, want %v", got, want)
	}
	if got := read(t, readme); got != edited {
		t.Errorf("the edited README was rewritten:\n%s", got)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
