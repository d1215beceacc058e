package fleet

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/resid"

	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/fluxoperator"
	"github.com/landlord-dev/landlord/internal/lockdown"
)

// Names in the fleet repository.
const (
	FluxNamespace = "flux-system"
	// FluxSource is the GitRepository flux bootstrap creates for the fleet.
	FluxSource = "flux-system"
	// FluxSync is the Kustomization flux bootstrap creates for the cluster's
	// directory.
	FluxSync = "flux-system"
	// InfrastructureName is the Flux Kustomization installing Landlord.
	InfrastructureName = "infrastructure"
	// TenantsName is the Flux Kustomization applying the Tenants.
	TenantsName = "tenants"
	// TenantsBase holds one directory per tenant.
	TenantsBase = "tenants/base"
	// LockdownComponent is the kustomize component locking Flux down.
	LockdownComponent = "infrastructure/flux-lockdown"
	// KustomizationFile is kustomize's file name.
	KustomizationFile = "kustomization.yaml"
)

// DefaultClusters are the environments of a fleet scaffolded without a list.
var DefaultClusters = []string{"staging", "production"}

// Install says what a fleet's infrastructure installs of Landlord.
type Install string

const (
	// FullInstall is what `landlord install` applies: the CRD, RBAC, the
	// controller and its webhooks. The tenants wait until it is ready.
	FullInstall Install = "full"
	// CRDOnly is Landlord's CRDs alone, for a controller that runs outside
	// the cluster, as `landlord dev up` runs it.
	CRDOnly Install = "crd"
	// HelmInstall is Landlord's chart, installed by a Flux HelmRelease:
	// the same objects as FullInstall.
	HelmInstall Install = "helm"
)

// Installs are the values of Install.
var Installs = []Install{FullInstall, CRDOnly, HelmInstall}

// FleetOptions say what InitFleetWith scaffolds.
type FleetOptions struct {
	Clusters []string
	Install  Install
	// Chart is what HelmInstall installs; LandlordChart when its name is
	// empty.
	Chart Chart
	// FluxOperator, given a URL, scaffolds per cluster a FluxInstance
	// installing Flux locked down and syncing the cluster's directory from
	// that repository and branch, instead of the lockdown component for
	// flux bootstrap.
	FluxOperator fluxoperator.Sync
}

// FluxInstanceFile is where a cluster keeps its FluxInstance: in the
// directory it syncs, so that the instance manages itself.
func FluxInstanceFile(cluster string) string {
	return path.Join("clusters", cluster, FluxNamespace, "flux-instance.yaml")
}

// InitFleet writes a fleet repository below dir: per cluster the Flux
// Kustomizations of infrastructure and tenants, the infrastructure holding
// Landlord as install says and the Flux lockdown, and an empty tenants
// tree. It leaves identical files alone, refuses to replace different ones,
// and adds to existing kustomization.yaml files what they lack.
func InitFleet(dir string, clusters []string, install Install) ([]Change, error) {
	return InitFleetWith(dir, FleetOptions{Clusters: clusters, Install: install})
}

// InitFleetWith is InitFleet with the chart HelmInstall installs.
func InitFleetWith(dir string, opts FleetOptions) ([]Change, error) {
	clusters := opts.Clusters
	if len(clusters) == 0 {
		return nil, fmt.Errorf("a fleet needs at least one cluster")
	}
	seen := map[string]bool{}
	for _, c := range clusters {
		if errs := validation.IsDNS1123Label(c); len(errs) > 0 || c == "base" {
			return nil, fmt.Errorf("cluster name %q: must be a DNS label other than base", c)
		}
		if seen[c] {
			return nil, fmt.Errorf("cluster name %q listed twice", c)
		}
		seen[c] = true
	}

	operator := opts.FluxOperator.URL != ""
	readme, err := fleetReadmeFile(dir, clusters, opts.Install, operator)
	if err != nil {
		return nil, err
	}
	release, err := LandlordChart()
	if err != nil {
		return nil, err
	}
	files := []file{readme, workflowFile(release.Version)}
	add := func(f file, err error) error {
		files = append(files, f)
		return err
	}
	for _, c := range clusters {
		if err := add(objectFile(path.Join("clusters", c, "infrastructure.yaml"), infrastructureSync())); err != nil {
			return nil, err
		}
		if err := add(objectFile(path.Join("clusters", c, "tenants.yaml"), tenantsSync(c))); err != nil {
			return nil, err
		}
		if operator {
			sync := opts.FluxOperator
			sync.Path = path.Join("clusters", c)
			if err := add(objectFile(FluxInstanceFile(c), fluxoperator.Instance(FluxNamespace, sync))); err != nil {
				return nil, err
			}
		}
	}
	infra, err := infrastructureFiles(dir, opts)
	if err != nil {
		return nil, err
	}
	files = append(files, infra...)
	if err := add(mergedKustomization(dir, path.Join(TenantsBase, KustomizationFile))); err != nil {
		return nil, err
	}
	for _, c := range clusters {
		if err := add(mergedKustomization(dir, path.Join("tenants", c, KustomizationFile), "../base")); err != nil {
			return nil, err
		}
	}
	return writeFiles(dir, files)
}

// infrastructureSync applies ./infrastructure and waits until it is ready,
// Landlord's controller and guard included, so that the tenants wait too.
func infrastructureSync() *kustomizev1.Kustomization {
	k := platformSync(InfrastructureName, "./infrastructure")
	k.Spec.Wait = true
	return k
}

// tenantsSync applies the cluster's Tenants once the infrastructure is ready.
func tenantsSync(cluster string) *kustomizev1.Kustomization {
	k := platformSync(TenantsName, "./tenants/"+cluster)
	k.Spec.DependsOn = []kustomizev1.DependencyReference{{Name: InfrastructureName}}
	return k
}

// platformServiceAccount is kustomize-controller's own service account,
// bound to cluster-admin by flux install.
const platformServiceAccount = "kustomize-controller"

// platformSync runs as kustomize-controller's own service account: with
// the lockdown's --default-service-account, a platform Kustomization
// without one would impersonate flux-system's powerless default account.
func platformSync(name, dir string) *kustomizev1.Kustomization {
	return &kustomizev1.Kustomization{
		TypeMeta:   metav1.TypeMeta{APIVersion: kustomizev1.GroupVersion.String(), Kind: kustomizev1.KustomizationKind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: FluxNamespace},
		Spec: kustomizev1.KustomizationSpec{
			Interval:           metav1.Duration{Duration: 10 * time.Minute},
			RetryInterval:      &metav1.Duration{Duration: time.Minute},
			Timeout:            &metav1.Duration{Duration: 5 * time.Minute},
			Path:               dir,
			Prune:              true,
			ServiceAccountName: platformServiceAccount,
			SourceRef: kustomizev1.CrossNamespaceSourceReference{
				Kind: sourcev1.GitRepositoryKind,
				Name: FluxSource,
			},
		},
	}
}

// infrastructureFiles are Landlord as install says, applied by the
// infrastructure Kustomization, and the lockdown component, which the
// flux-system kustomization.yaml of each cluster takes in. The
// kustomization.yaml files keep what was added to them since.
func infrastructureFiles(dir string, opts FleetOptions) ([]file, error) {
	var landlord []file
	var err error
	switch opts.Install {
	case FullInstall:
		var f file
		f, err = installFile()
		landlord = []file{f}
	case CRDOnly:
		crds, crdErr := config.LandlordCRDs()
		if crdErr != nil {
			return nil, crdErr
		}
		own := make([]any, len(crds))
		for i, crd := range crds {
			own[i] = crd
		}
		var f file
		f, err = streamFile(CRDFile, own)
		landlord = []file{f}
	case HelmInstall:
		chart := opts.Chart
		if chart.Name == "" {
			if chart, err = LandlordChart(); err != nil {
				return nil, err
			}
		}
		landlord, err = helmFiles(chart)
	default:
		return nil, fmt.Errorf("install %q: want one of %s, %s, %s", opts.Install, FullInstall, CRDOnly, HelmInstall)
	}
	if err != nil {
		return nil, err
	}
	resources := make([]string, len(landlord))
	for i, f := range landlord {
		resources[i] = path.Base(f.path)
	}
	list, err := mergedKustomization(dir, "infrastructure/landlord/"+KustomizationFile, resources...)
	if err != nil {
		return nil, err
	}
	infra, err := mergedKustomization(dir, "infrastructure/"+KustomizationFile, "landlord")
	if err != nil {
		return nil, err
	}
	files := append(append([]file{infra}, landlord...), list)
	// The Flux Operator reverts patches to its Deployments: its
	// FluxInstance carries the lockdown instead.
	if opts.FluxOperator.URL != "" {
		return files, nil
	}
	lockdown, err := kustomizationFile(path.Join(LockdownComponent, KustomizationFile), lockdownComponent())
	if err != nil {
		return nil, err
	}
	return append(files, lockdown), nil
}

// Where the infrastructure keeps Landlord, for each Install.
const (
	InstallFile = "infrastructure/landlord/landlord.yaml"
	CRDFile     = "infrastructure/landlord/tenant-crd.yaml"
)

// installFile is what `landlord install --export` prints, as one stream.
func installFile() (file, error) {
	objects, err := config.Install()
	if err != nil {
		return file{}, err
	}
	all := make([]any, len(objects))
	for i, obj := range objects {
		all[i] = obj
	}
	return streamFile(InstallFile, all)
}

// streamFile is a YAML stream of objects.
func streamFile(path string, objects []any) (file, error) {
	var data []byte
	for i, obj := range objects {
		doc, err := marshal(obj)
		if err != nil {
			return file{}, fmt.Errorf("%s: %w", path, err)
		}
		if i > 0 {
			data = append(data, "---\n"...)
		}
		data = append(data, doc...)
	}
	return file{path: path, data: data}, nil
}

// lockdownComponent is Flux's multi-tenancy lockdown: no cross-namespace
// references, no remote bases, and a default service account so that a
// tenant's Kustomization or HelmRelease without one has no rights. The
// flux-system Kustomization, which flux bootstrap writes without a service
// account, gets kustomize-controller's own, as the platform Kustomizations
// have: else the default account would leave the fleet's sync powerless.
func lockdownComponent() *types.Kustomization {
	k := &types.Kustomization{}
	k.Kind = types.ComponentKind
	k.FixKustomization()
	// One patch per flag, on every controller that needs it.
	for _, setting := range lockdown.Settings() {
		names := strings.Join(setting.Controllers, "|")
		if len(setting.Controllers) > 1 {
			names = "(" + names + ")"
		}
		k.Patches = append(k.Patches, types.Patch{
			Patch:  fmt.Sprintf("- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: %s\n", setting.Flag),
			Target: &types.Selector{ResId: resIDKindName("Deployment", names)},
		})
	}
	k.Patches = append(k.Patches, types.Patch{
		Patch: "- op: add\n  path: /spec/serviceAccountName\n  value: " + platformServiceAccount + "\n",
		Target: &types.Selector{ResId: resid.ResId{
			Gvk:  resid.Gvk{Group: kustomizev1.GroupVersion.Group, Kind: kustomizev1.KustomizationKind},
			Name: FluxSync,
		}},
	})
	return k
}

// readmeClusters finds the clusters a fleet's README lists.
var readmeClusters = regexp.MustCompile("(?m)^Scaffolded by `landlord init fleet` for the clusters (.+)\\.$")

// fleetReadmeFile is the fleet's README listing its clusters: those the
// README there lists, then the new ones. A README that is not what Landlord
// wrote for the clusters it lists was edited by hand, and is kept.
func fleetReadmeFile(dir string, clusters []string, install Install, operator bool) (file, error) {
	old, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if errors.Is(err, fs.ErrNotExist) {
		return file{path: "README.md", data: []byte(fleetReadme(clusters, install, operator))}, nil
	}
	if err != nil {
		return file{}, err
	}
	var listed []string
	if m := readmeClusters.FindSubmatch(old); m != nil {
		listed = strings.Split(string(m[1]), ", ")
	}
	all := slices.Clone(listed)
	for _, c := range clusters {
		if !slices.Contains(all, c) {
			all = append(all, c)
		}
	}
	return file{
		path:       "README.md",
		data:       []byte(fleetReadme(all, install, operator)),
		previous:   []byte(fleetReadme(listed, install, operator)),
		handEdited: "edited by hand; it should list the clusters " + strings.Join(all, ", "),
	}, nil
}

func fleetReadme(clusters []string, install Install, operator bool) string {
	landlord := "- infrastructure/landlord/: Landlord: its CRDs, RBAC, controller and\n" +
		"  webhooks, as `landlord install --export` prints them (or the CRDs\n" +
		"  alone, with `--install crd`)."
	if install == HelmInstall {
		landlord = "- infrastructure/landlord/: Landlord's Helm chart, installed by a Flux\n" +
			"  HelmRelease into landlord-system: the chart's CRDs are created on\n" +
			"  install and replaced on upgrade (install.crds Create, upgrade.crds\n" +
			"  CreateReplace). Bump the source's version to upgrade."
	}
	clusterDir := "- clusters/<cluster>/: the Flux Kustomizations of one cluster. Point\n" +
		"  `flux bootstrap --path=clusters/<cluster>` here."
	lockdown := `- infrastructure/flux-lockdown/: a kustomize component locking Flux down for
  multi-tenancy (--no-cross-namespace-refs, --no-remote-bases, and the
  default service accounts of impersonation, decryption and cloud identity,
  which need Flux 2.6 or later). Take it into each cluster's
  clusters/<cluster>/flux-system/kustomization.yaml after bootstrap:

      components:
        - ../../../infrastructure/flux-lockdown
`
	if operator {
		clusterDir = "- clusters/<cluster>/: the Flux Kustomizations of one cluster, and in\n" +
			"  flux-system/flux-instance.yaml the Flux Operator's FluxInstance, which\n" +
			"  installs Flux " + fluxoperator.Distribution + " and syncs this directory. Apply it once\n" +
			"  after installing the operator; from then on it manages itself. Add\n" +
			"  `spec.sync.pullSecret` for a private repository."
		lockdown = "- Each FluxInstance locks Flux down for multi-tenancy through the\n" +
			"  operator's own settings, in spec.cluster:\n" +
			"  " + strings.Join(fluxoperator.Settings(), ", ") + ":\n" +
			"  no cross-namespace references, no remote bases, and the default\n" +
			"  service accounts of impersonation, decryption and cloud identity.\n"
	}
	return fmt.Sprintf(`# Fleet

Scaffolded by `+"`landlord init fleet`"+` for the clusters %s.

%s `+"`infrastructure`"+` applies
  ./infrastructure; `+"`tenants`"+` applies ./tenants/<cluster> once the
  infrastructure is ready.
%s
%s
- tenants/base/: one directory per tenant, added with
  `+"`landlord tenant create NAME --export --fleet .`"+`.
- tenants/<cluster>/: the tenants of one cluster, with per-cluster patches.
- .github/workflows/landlord.yaml: on each pull request, `+"`landlord lint`"+`, and
  `+"`landlord diff`"+` posted as a comment; destructive changes fail the check.
`, strings.Join(clusters, ", "), clusterDir, landlord, lockdown)
}

func resIDKindName(kind, name string) resid.ResId {
	return resid.ResId{Gvk: resid.Gvk{Kind: kind}, Name: name}
}
