package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/landlord-dev/landlord/internal/apivalidation"
	"github.com/landlord-dev/landlord/internal/fleet"
	"github.com/landlord-dev/landlord/internal/handmade"
	"github.com/landlord-dev/landlord/internal/lint"
)

type tenantImportOptions struct {
	dir    string
	outDir string
}

func newTenantImportCommand(run func(*cobra.Command, tenantImportOptions) error) *cobra.Command {
	opts := tenantImportOptions{}
	cmd := &cobra.Command{
		Use:   "import [FLEET_DIR]",
		Short: "Write the Tenants equivalent to a fleet's hand-made or Capsule tenants",
		Long: `Read the fleet repository in FLEET_DIR (default .) as Flux applies it, find
the tenants made by hand the way Flux's multi-tenancy guide makes them
(flux create tenant --export: a namespace, a reconciler service account and
its RoleBinding; then a GitRepository and a Kustomization syncing it as that
account), and write the equivalent Tenant of each: its namespaces, its
reconciler, and a source per Kustomization with the repository's URL and
ref and the Kustomization's path, interval, prune, timeout, target
namespace, dependencies, decryption and substituted variables.

Capsule Tenants (capsule.clastix.io v1beta1 or v1beta2) made the way its
Flux addon makes them are imported too: the owner ServiceAccount whose
home namespace syncs a GitRepository becomes the reconciler and that
namespace the Tenant's first, the namespaces labelled
capsule.clastix.io/tenant follow, the other owners become spec.owners,
and the namespace quota (self-service with the prefix <tenant>-), resource
quota, limit range, storage and ingress classes, hostnames, registries,
pull policy, priority classes, node selector and Service types map to
their fields.

Each Tenant is printed as YAML under a comment naming the fleet directory
Flux applies it from, or with --output-dir DIR written to
DIR/<that directory>/<tenant>.yaml.
What does not map is printed on stderr as FILE:LINE: MESSAGE, among it: a
RoleBinding to cluster-admin (the Tenant's reconciler holds the default
tenant role instead), the Flux impersonation user flux create tenant binds,
Kustomization and GitRepository fields a Tenant does not hold, other
objects in the tenant's namespaces, HelmReleases a tenant's account runs,
and of a Capsule tenant: capsule-proxy kubeconfigs and proxySettings,
additionalRoleBindings (cluster-admin, admin and edit refused by LL018),
NetworkPolicies, regular expressions, namespace labels.

Review both, then replace the hand-made objects with the Tenants in one
pull request.`,
		Example: `  landlord tenant import ./fleet
  landlord tenant import ./fleet --output-dir ./fleet-tenants`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = "."
			if len(args) == 1 {
				opts.dir = args[0]
			}
			return run(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.outDir, "output-dir", "", "write each Tenant to DIR/<fleet directory>/<tenant>.yaml instead of printing it")
	return cmd
}

func runTenantImport(cmd *cobra.Command, opts tenantImportOptions) error {
	builds, findings, err := lint.Applied(cmd.Context(), opts.dir)
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	for _, f := range findings {
		if f.Rule == lint.RuleBuild.ID {
			fmt.Fprintf(stderr, "%s (its tenants are not imported)\n", f)
		}
	}
	// A base several clusters' builds take in says the same in each.
	said := map[string]bool{}
	note := func(n handmade.Note) {
		if line := n.String(); !said[line] {
			said[line] = true
			fmt.Fprintln(stderr, line)
		}
	}
	type importedTenant struct {
		dir  string
		t    *handmade.Tenant
		data []byte
	}
	var imported []importedTenant
	var badNames []string
	for _, b := range builds {
		res := handmade.Find(b.Objects)
		for _, t := range res.Tenants {
			data, err := fleet.MarshalTenant(t.Tenant)
			if err != nil {
				return err
			}
			where := t.Objects[0].File
			if len(t.Syncs) > 0 {
				where = t.Syncs[0].File
			}
			for _, msg := range validation.IsDNS1123Subdomain(t.Tenant.Name) {
				badNames = append(badNames, fmt.Sprintf("%s: tenant name %q: %s", where, t.Tenant.Name, msg))
			}
			imported = append(imported, importedTenant{dir: b.Dir, t: t, data: data})
		}
		for _, n := range res.Notes {
			note(n)
		}
	}
	if len(imported) == 0 {
		return fmt.Errorf("%s: no tenant made by hand in what Flux applies: a Kustomization syncing a GitRepository of its namespace as a service account a RoleBinding there binds, or a Capsule Tenant", opts.dir)
	}
	// Names become file names: every one is judged before anything is written.
	if len(badNames) > 0 {
		return fmt.Errorf("nothing imported; the tenant label names the Tenant and its file, allowed: a DNS subdomain name:\n%s", strings.Join(badNames, "\n"))
	}
	for _, it := range imported {
		if err := writeImported(cmd.OutOrStdout(), opts.outDir, it.dir, it.t.Tenant.Name, it.data); err != nil {
			return err
		}
		for _, n := range it.t.Notes {
			note(n)
		}
		for _, e := range apivalidation.ValidateTenant(it.t.Tenant) {
			fmt.Fprintf(stderr, "%s: the imported Tenant %s is not valid, edit it: %v\n", it.t.Syncs[0].File, it.t.Tenant.Name, e)
		}
	}
	return nil
}

// writeImported prints a Tenant under a comment naming where Flux applies
// it from, or writes it to outDir/dir/name.yaml.
func writeImported(w io.Writer, outDir, dir, name string, data []byte) error {
	if outDir == "" {
		_, err := fmt.Fprintf(w, "---\n# %s\n%s", strings.TrimSuffix(dir, "/")+"/", data)
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	// Within outDir whatever the names say: os.Root refuses a path or a
	// symlink leading out.
	root, err := os.OpenRoot(outDir)
	if err != nil {
		return err
	}
	defer root.Close()
	path := filepath.Join(filepath.FromSlash(dir), name+".yaml")
	if err := root.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return root.WriteFile(path, data, 0o644)
}
