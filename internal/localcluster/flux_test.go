package localcluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	aclv1 "github.com/fluxcd/pkg/apis/acl"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/gitserver"
	"github.com/landlord-dev/landlord/internal/helmrepo"
)

// fluxWait bounds each wait for the controllers; they act within seconds.
const fluxWait = 2 * time.Minute

// TestFlux runs the Flux controllers on a control plane of their own and has
// them apply a private Git repository and a Helm chart into a namespace,
// impersonating the namespace's reconciler service account; a reference to
// another namespace is refused by the lockdown flags.
func TestFlux(t *testing.T) {
	t.Parallel()
	e := startTimed(t, Options{Flux: true})
	t.Cleanup(func() {
		if err := e.Stop(); err != nil {
			t.Error(err)
		}
	})
	c := fluxClient(t, e)
	ns := newNamespace(t, clientFor(t, e.Config))
	create(t, c,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "reconciler"}},
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "reconciler-admin"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "admin"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "reconciler"}},
		},
	)

	t.Run("git", func(t *testing.T) {
		t.Parallel()
		git, err := gitserver.New(t.TempDir(), gitserver.WithBasicAuth("flux", "s3cret"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := git.Serve(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = git.Close() })
		url, err := git.CreateRepo("app")
		if err != nil {
			t.Fatal(err)
		}
		repo := t.TempDir()
		if err := os.WriteFile(filepath.Join(repo, "configmap.yaml"), []byte(
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-git\ndata:\n  source: git\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := git.PushDir(t.Context(), "app", repo, "a ConfigMap"); err != nil {
			t.Fatal(err)
		}

		create(t, c,
			&corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "git-auth"},
				StringData: map[string]string{"username": "flux", "password": "s3cret"},
			},
			&sourcev1.GitRepository{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"},
				Spec: sourcev1.GitRepositorySpec{
					URL:       url,
					Reference: &sourcev1.GitRepositoryRef{Branch: gitserver.Branch},
					SecretRef: &fluxmeta.LocalObjectReference{Name: "git-auth"},
					Interval:  metav1.Duration{Duration: time.Minute},
				},
			},
			kustomization(ns, "app", ""),
			// The same source named through flux-system, where the lockdown
			// must refuse to look.
			kustomization(ns, "escape", FluxNamespace),
		)

		eventually(t, e, c, ns, func(ctx context.Context) error {
			cm := &corev1.ConfigMap{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "from-git"}, cm); err != nil {
				return err
			}
			if cm.Data["source"] != "git" {
				return fmt.Errorf("ConfigMap from-git has data %v", cm.Data)
			}
			return nil
		})
		eventually(t, e, c, ns, func(ctx context.Context) error {
			k := &kustomizev1.Kustomization{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "escape"}, k); err != nil {
				return err
			}
			if ready := apimeta.FindStatusCondition(k.Status.Conditions, fluxmeta.ReadyCondition); ready == nil || ready.Reason != aclv1.AccessDeniedReason {
				return fmt.Errorf("Kustomization escape: Ready %+v, want reason %s", ready, aclv1.AccessDeniedReason)
			}
			return nil
		})
	})

	t.Run("helm", func(t *testing.T) {
		t.Parallel()
		charts, err := helmrepo.New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := charts.AddChart("../helmrepo/testdata/hello"); err != nil {
			t.Fatal(err)
		}
		url, err := charts.Serve()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = charts.Close() })

		create(t, c,
			&sourcev1.HelmRepository{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "charts"},
				Spec:       sourcev1.HelmRepositorySpec{URL: url, Interval: metav1.Duration{Duration: time.Minute}},
			},
			&helmv2.HelmRelease{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hello"},
				Spec: helmv2.HelmReleaseSpec{
					Chart: &helmv2.HelmChartTemplate{Spec: helmv2.HelmChartTemplateSpec{
						Chart:     "hello",
						Version:   "0.1.0",
						SourceRef: helmv2.CrossNamespaceObjectReference{Kind: sourcev1.HelmRepositoryKind, Name: "charts"},
					}},
					Interval:           metav1.Duration{Duration: time.Minute},
					ServiceAccountName: "reconciler",
					Values:             &apiextensionsv1.JSON{Raw: []byte(`{"greeting":"from helm"}`)},
				},
			},
		)
		eventually(t, e, c, ns, func(ctx context.Context) error {
			cm := &corev1.ConfigMap{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "hello-hello"}, cm); err != nil {
				return err
			}
			if cm.Data["greeting"] != "from helm" {
				return fmt.Errorf("ConfigMap hello-hello has data %v", cm.Data)
			}
			return nil
		})
	})
}

// kustomization applies the root of GitRepository app into ns as the
// reconciler, naming sourceNamespace in its sourceRef.
func kustomization(ns, name, sourceNamespace string) *kustomizev1.Kustomization {
	return &kustomizev1.Kustomization{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: kustomizev1.KustomizationSpec{
			SourceRef:          kustomizev1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: "app", Namespace: sourceNamespace},
			Path:               "./",
			Prune:              true,
			Interval:           metav1.Duration{Duration: time.Minute},
			ServiceAccountName: "reconciler",
			TargetNamespace:    ns,
		},
	}
}

func fluxClient(t *testing.T, e *Env) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, sourcev1.AddToScheme, kustomizev1.AddToScheme, helmv2.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(e.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func create(t *testing.T, c client.Client, objects ...client.Object) {
	t.Helper()
	for _, obj := range objects {
		if err := c.Create(t.Context(), obj); err != nil {
			t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
		}
	}
}

// eventually polls check until it holds; on timeout it fails with the Flux
// objects' Ready conditions in ns and the end of each controller's log.
func eventually(t *testing.T, e *Env, c client.Client, ns string, check func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), fluxWait)
	defer cancel()
	for {
		err := check(ctx)
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%v\n%s", err, fluxDiagnostics(e, c, ns))
		case <-time.After(pollInterval):
		}
	}
}

func fluxDiagnostics(e *Env, c client.Client, ns string) string {
	var b strings.Builder
	ctx := context.Background()
	lists := map[string]client.ObjectList{
		"GitRepository":  &sourcev1.GitRepositoryList{},
		"HelmRepository": &sourcev1.HelmRepositoryList{},
		"HelmChart":      &sourcev1.HelmChartList{},
		"Kustomization":  &kustomizev1.KustomizationList{},
		"HelmRelease":    &helmv2.HelmReleaseList{},
	}
	for kind, list := range lists {
		if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
			fmt.Fprintf(&b, "list %s: %v\n", kind, err)
			continue
		}
		items, _ := apimeta.ExtractList(list)
		for _, item := range items {
			obj := item.(interface {
				client.Object
				GetConditions() []metav1.Condition
			})
			fmt.Fprintf(&b, "%s %s: %+v\n", kind, obj.GetName(), apimeta.FindStatusCondition(obj.GetConditions(), fluxmeta.ReadyCondition))
		}
	}
	for _, p := range e.procs {
		if strings.HasSuffix(p.name, "-controller") {
			fmt.Fprintf(&b, "end of %s:\n%s\n", p.logPath, p.tail())
		}
	}
	return b.String()
}

func TestFluxMissingBinaries(t *testing.T) {
	dir := t.TempDir()
	// The control plane's binaries are there, the Flux ones are not.
	bin, err := findBinaries("")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{bin.etcd, bin.apiserver, bin.controllerManager} {
		if err := os.Symlink(path, filepath.Join(dir, filepath.Base(path))); err != nil {
			t.Fatal(err)
		}
	}
	_, err = Start(t.Context(), Options{BinDir: dir, Flux: true})
	if err == nil || !strings.Contains(err.Error(), "make flux-tools") {
		t.Fatalf("got %v, want an error that says to run make flux-tools", err)
	}
}
