package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/audit"
	"github.com/landlord-dev/landlord/internal/gitserver"
	"github.com/landlord-dev/landlord/internal/helmrepo"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/localcluster"
)

// demoTenants are the tenants the demo onboards, with the greeting each
// passes as a variable.
var demoTenants = []struct{ name, greeting string }{
	{"frontend", "Hello"},
	{"backend", "Bonjour"},
}

// demoTimeout bounds the wait for the demo tenants to become Ready.
const demoTimeout = 5 * time.Minute

// runDemo does what a platform admin does to onboard two teams, with the
// real commands, against a Git server and a Helm repository on loopback;
// Flux syncs the fleet, Landlord provisions the tenants. It returns once
// both are Ready, after showing the tenant table, the audit and an escape
// being refused; stop closes the servers.
func runDemo(ctx context.Context, out io.Writer, env *localcluster.Env, c client.Client, dir string) (stop func() error, err error) {
	work := filepath.Join(dir, "demo")
	// The demo's repositories are its own: each run starts them afresh.
	if err := os.RemoveAll(work); err != nil {
		return nil, err
	}
	git, err := gitserver.New(filepath.Join(work, "git"))
	if err != nil {
		return nil, err
	}
	if _, err := git.Serve(); err != nil {
		return nil, err
	}
	charts, err := helmrepo.New(filepath.Join(work, "charts"))
	if err != nil {
		return nil, errors.Join(err, git.Close())
	}
	stop = func() error { return errors.Join(git.Close(), charts.Close()) }
	defer func() {
		if err != nil {
			err = errors.Join(err, stop())
		}
	}()
	chart, version, err := charts.AddExampleChart()
	if err != nil {
		return nil, err
	}
	chartsURL, err := charts.Serve()
	if err != nil {
		return nil, err
	}

	landlord := func(args ...string) error {
		fmt.Fprintf(out, "\n$ landlord %s\n", strings.Join(args, " "))
		root := NewRootCommand()
		root.SetArgs(append(args, "--kubeconfig", env.KubeconfigPath))
		root.SetOut(out)
		root.SetErr(out)
		return root.ExecuteContext(ctx)
	}
	fleetDir := filepath.Join(work, "fleet")
	fmt.Fprintf(out, "\n==> A fleet repository and two tenant repositories, on the Git server at %s\n", git.URL())
	// Landlord runs here as a local process, so the fleet installs its CRD only.
	if err := landlord("init", "fleet", fleetDir, "--clusters", "staging", "--install", "crd"); err != nil {
		return nil, err
	}
	for _, t := range demoTenants {
		repo := filepath.Join(work, "repos", t.name)
		if err := landlord("init", "tenant", repo, "--chart", chart, "--chart-url", chartsURL, "--chart-version", ">="+version); err != nil {
			return nil, err
		}
		if err := addWelcome(filepath.Join(repo, "staging")); err != nil {
			return nil, err
		}
		if err := push(ctx, out, git, t.name, repo); err != nil {
			return nil, err
		}
		if err := landlord("tenant", "create", t.name, "--namespace", t.name+","+t.name+"-jobs",
			"--git-url", git.RepoURL(t.name), "--branch", gitserver.Branch, "--env", "staging=./staging",
			"--var", "GREETING="+t.greeting, "--quota", "pods=20", "--export", "--fleet", fleetDir); err != nil {
			return nil, err
		}
	}
	if err := push(ctx, out, git, "fleet", fleetDir); err != nil {
		return nil, err
	}

	fmt.Fprintf(out, "\n==> Flux syncs ./clusters/staging of the fleet, as flux bootstrap would set it up\n")
	if err := bootstrap(ctx, c, git.RepoURL("fleet")); err != nil {
		return nil, err
	}
	if err := waitTenantsReady(ctx, out, c); err != nil {
		return nil, err
	}
	if err := landlord("tenant", "list"); err != nil {
		return nil, err
	}

	fmt.Fprintf(out, "\n$ landlord audit\n")
	fmt.Fprintf(out, "(Flux runs here as local processes: the audit reads the flags they were started with)\n")
	a := &audit.Auditor{Client: c, Config: env.Config, FluxArgs: env.FluxArgs}
	checks, err := a.Run(ctx)
	if err != nil {
		return nil, err
	}
	if err := writeData(out, "table", checks, func(w io.Writer) { auditTable(w, checks) }); err != nil {
		return nil, err
	}
	if n := audit.Failed(checks); n > 0 {
		return nil, fmt.Errorf("the audit failed %d checks", n)
	}

	if err := showEscape(ctx, out, env.Config, c); err != nil {
		return nil, err
	}
	guide(out, env.KubeconfigPath, git)
	return stop, nil
}

// push creates the repository if needed and pushes dir as its next commit.
func push(ctx context.Context, out io.Writer, git *gitserver.Server, name, dir string) error {
	if _, err := git.CreateRepo(name); err != nil {
		return err
	}
	commit, err := git.PushDir(ctx, name, dir, "Scaffolded by landlord")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "pushed %s at %.7s\n", git.RepoURL(name), commit)
	return nil
}

// addWelcome adds to a tenant overlay a ConfigMap naming its tenant and
// greeting, which the tenant's variables fill in.
func addWelcome(overlay string) error {
	welcome := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "welcome"},
		Data:       map[string]string{"message": "${GREETING} from ${TENANT_NAME}, in ${TENANT_NAMESPACE}"},
	}
	data, err := yaml.Marshal(welcome)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(overlay, "welcome.yaml"), data, 0o644); err != nil {
		return err
	}
	path := filepath.Join(overlay, "kustomization.yaml")
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	k := &types.Kustomization{}
	if err := yaml.Unmarshal(raw, k); err != nil {
		return err
	}
	k.Resources = append(k.Resources, "welcome.yaml")
	if raw, err = yaml.Marshal(k); err != nil {
		return err
	}
	return os.WriteFile(path, raw, 0o644)
}

// bootstrap points Flux at the fleet: the GitRepository and Kustomization
// flux-system that `flux bootstrap` commits, here applied directly.
func bootstrap(ctx context.Context, c client.Client, url string) error {
	meta := metav1.ObjectMeta{Namespace: localcluster.FluxNamespace, Name: "flux-system"}
	repo := &sourcev1.GitRepository{
		TypeMeta:   metav1.TypeMeta{APIVersion: sourcev1.GroupVersion.String(), Kind: sourcev1.GitRepositoryKind},
		ObjectMeta: meta,
		Spec: sourcev1.GitRepositorySpec{
			URL: url, Interval: metav1.Duration{Duration: 30 * time.Second},
			Reference: &sourcev1.GitRepositoryRef{Branch: gitserver.Branch},
		},
	}
	sync := &kustomizev1.Kustomization{
		TypeMeta:   metav1.TypeMeta{APIVersion: kustomizev1.GroupVersion.String(), Kind: kustomizev1.KustomizationKind},
		ObjectMeta: meta,
		Spec: kustomizev1.KustomizationSpec{
			Interval: metav1.Duration{Duration: time.Minute}, Path: "./clusters/staging", Prune: true,
			// The lockdown makes Flux impersonate "default" where no
			// account is named; the fleet is the platform's, so it names one.
			ServiceAccountName: "kustomize-controller",
			SourceRef:          kustomizev1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: meta.Name},
		},
	}
	_, err := install.Apply(ctx, c, io.Discard, repo, sync)
	return err
}

// waitTenantsReady prints each change of the demo tenants' Ready condition
// until both are Ready.
func waitTenantsReady(ctx context.Context, out io.Writer, c client.Client) error {
	deadline := time.Now().Add(demoTimeout)
	last := map[string]string{}
	for {
		ready := 0
		for _, t := range demoTenants {
			tenant := &v1alpha1.Tenant{}
			line := "not created yet: Flux has not applied the fleet"
			if err := c.Get(ctx, client.ObjectKey{Name: t.name}, tenant); client.IgnoreNotFound(err) != nil {
				return err
			} else if cond := apimeta.FindStatusCondition(tenant.Status.Conditions, v1alpha1.ReadyCondition); cond != nil {
				line = fmt.Sprintf("Ready=%s %s: %s", cond.Status, cond.Reason, oneLine(cond.Message))
				if cond.Status == metav1.ConditionTrue {
					ready++
				}
			}
			if line != last[t.name] {
				fmt.Fprintf(out, "  tenant/%s: %s\n", t.name, line)
				last[t.name] = line
			}
		}
		if ready == len(demoTenants) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("tenants not Ready after %s: see the logs in the environment's directory", demoTimeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// showEscape sends, as the frontend tenant's reconciler (the identity its
// Git content is applied with), a Kustomization that would sync Flux's own
// repository, and prints the refusal.
func showEscape(ctx context.Context, out io.Writer, admin *rest.Config, c client.Client) error {
	escape := &kustomizev1.Kustomization{
		TypeMeta:   metav1.TypeMeta{APIVersion: kustomizev1.GroupVersion.String(), Kind: kustomizev1.KustomizationKind},
		ObjectMeta: metav1.ObjectMeta{Namespace: "frontend", Name: "take-over"},
		Spec: kustomizev1.KustomizationSpec{
			Interval: metav1.Duration{Duration: time.Minute}, Path: "./", Prune: true, ServiceAccountName: "frontend",
			SourceRef: kustomizev1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: "flux-system", Namespace: localcluster.FluxNamespace},
		},
	}
	manifest, err := yaml.Marshal(escape)
	if err != nil {
		return err
	}
	user := "system:serviceaccount:frontend:frontend"
	fmt.Fprintf(out, "\n==> An escape: tenant frontend asks Flux to apply the fleet repository\n")
	fmt.Fprintf(out, "$ kubectl apply --dry-run=server --as=%s -f - <<EOF\n%sEOF\n", user, strings.TrimSuffix(string(manifest), "status: {}\n"))
	cfg := rest.CopyConfig(admin)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:frontend", "system:authenticated"}}
	tenant, err := client.New(cfg, client.Options{Scheme: c.Scheme()})
	if err != nil {
		return err
	}
	err = tenant.Create(ctx, escape, client.DryRunAll)
	if err == nil {
		return errors.New("the escape was admitted")
	}
	fmt.Fprintf(out, "Error from server (Forbidden): %v\n", err)
	return nil
}

// guide tells where to go from here.
func guide(out io.Writer, kubeconfig string, git *gitserver.Server) {
	fmt.Fprintf(out, `
==> Explore
  export KUBECONFIG=%s
  kubectl get tenants
  kubectl -n frontend get kustomizations,helmreleases,configmaps
  kubectl -n frontend get configmap welcome -o jsonpath='{.data.message}'
  bin/landlord tenant get backend
  bin/landlord audit          # from another process Flux's flags show as SKIP
  git clone %s   # push a change: Flux applies it within a minute
`, kubeconfig, git.RepoURL("frontend"))
}
