package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/gitserver"
)

const (
	// waitTimeout bounds each wait; Flux and Landlord act within seconds.
	waitTimeout  = 2 * time.Minute
	pollInterval = 250 * time.Millisecond
	// bootstrapOwner is the field manager of what the test applies as
	// `flux bootstrap` would.
	bootstrapOwner = "flux-bootstrap"
	fluxNamespace  = "flux-system"
)

// bootstrap does to a cluster what `flux bootstrap` does once the
// controllers run (testenv gives them the identities `flux install` does):
// the age key decrypting the fleet's Secrets, and the sync objects of
// clusters/CLUSTER/flux-system built as committed.
func bootstrap(ctx context.Context, c client.Client, cluster string) error {
	objects := []client.Object{
		// kustomize-controller reads age keys from data keys ending in .agekey.
		&corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Namespace: fluxNamespace, Name: "sops-age"},
			StringData: map[string]string{"age.agekey": sopsKey.String()},
		},
	}
	built, err := kustomizeBuild(filepath.Join(fleetDir(), "clusters", cluster, "flux-system"))
	if err != nil {
		return err
	}
	objects = append(objects, built...)
	for _, obj := range objects {
		u, err := toUnstructured(obj)
		if err != nil {
			return err
		}
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(bootstrapOwner), client.ForceOwnership); err != nil {
			return fmt.Errorf("apply %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return nil
}

// buildMu serialises kustomize builds: kustomize keeps its OpenAPI schema
// in a global.
var buildMu sync.Mutex

// kustomizeBuild runs `kustomize build dir`.
func kustomizeBuild(dir string) ([]client.Object, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	var objects []client.Object
	for _, r := range res.Resources() {
		m, err := r.Map()
		if err != nil {
			return nil, err
		}
		objects = append(objects, &unstructured.Unstructured{Object: m})
	}
	return objects, nil
}

func toUnstructured(obj client.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// requestReconcile asks Flux to reconcile obj now, as `flux reconcile` does.
func requestReconcile(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, fluxmeta.ReconcileRequestAnnotation, time.Now().Format(time.RFC3339Nano))
	if err := c.Patch(t.Context(), obj, client.RawPatch("application/merge-patch+json", []byte(patch)), client.FieldOwner("flux-cli")); err != nil {
		t.Fatalf("request reconciliation of %T %s: %v", obj, obj.GetName(), err)
	}
}

// pushTenant commits dir as the next revision of a tenant's repository on
// server and has the tenant's GitRepository fetch it at once; it returns
// the revision as Flux names it.
func pushTenant(t *testing.T, c client.Client, server *gitserver.Server, repo, namespace, source, dir, message string) string {
	t.Helper()
	hash, err := server.PushDir(t.Context(), repo, dir, message)
	if err != nil {
		t.Fatal(err)
	}
	requestReconcile(t, c, &sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: source}})
	return gitserver.Branch + "@sha1:" + hash
}

// eventually polls check until it holds, failing the test after
// waitTimeout with the last error and the state of Flux and Landlord.
func eventually(t *testing.T, c client.Client, what string, check func(context.Context) error) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		err := check(t.Context())
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v\n%s", what, err, diagnosticsOf(context.Background(), c, ""))
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("%s: %v", what, t.Context().Err())
		case <-time.After(pollInterval):
		}
	}
}

// readyCondition is obj's Ready condition once it is about obj's latest
// generation.
func readyCondition(conditions []metav1.Condition, generation int64) (*metav1.Condition, error) {
	ready := apimeta.FindStatusCondition(conditions, fluxmeta.ReadyCondition)
	switch {
	case ready == nil:
		return nil, fmt.Errorf("no Ready condition yet")
	case ready.ObservedGeneration != 0 && ready.ObservedGeneration != generation:
		return nil, fmt.Errorf("Ready is about generation %d, not %d", ready.ObservedGeneration, generation)
	}
	return ready, nil
}

// tenantReady holds once the Tenant is Ready.
func tenantReady(c client.Client, name string) func(context.Context) error {
	return func(ctx context.Context) error {
		t := &v1alpha1.Tenant{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, t); err != nil {
			return err
		}
		ready, err := readyCondition(t.Status.Conditions, t.Generation)
		if err != nil {
			return fmt.Errorf("tenant %s: %w", name, err)
		}
		if ready.Status != metav1.ConditionTrue {
			return fmt.Errorf("tenant %s: Ready=%s %s: %s", name, ready.Status, ready.Reason, ready.Message)
		}
		return nil
	}
}

// fluxReady holds once a Flux object is Ready for its latest generation.
func fluxReady(c client.Client, obj interface {
	client.Object
	GetConditions() []metav1.Condition
}) func(context.Context) error {
	return func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		ready, err := readyCondition(obj.GetConditions(), obj.GetGeneration())
		if err != nil {
			return fmt.Errorf("%T %s/%s: %w", obj, obj.GetNamespace(), obj.GetName(), err)
		}
		if ready.Status != metav1.ConditionTrue {
			return fmt.Errorf("%T %s/%s: Ready=%s %s: %s", obj, obj.GetNamespace(), obj.GetName(), ready.Status, ready.Reason, ready.Message)
		}
		return nil
	}
}

// applied holds once the Kustomization has applied revision.
func applied(c client.Client, namespace, name, revision string) func(context.Context) error {
	return func(ctx context.Context) error {
		k := &kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
		if err := fluxReady(c, k)(ctx); err != nil {
			return err
		}
		if k.Status.LastAppliedRevision != revision {
			return fmt.Errorf("Kustomization %s/%s applied %s, want %s", namespace, name, k.Status.LastAppliedRevision, revision)
		}
		return nil
	}
}

// configMapData holds once the ConfigMap has want among its data.
func configMapData(c client.Client, namespace, name string, want map[string]string) func(context.Context) error {
	return func(ctx context.Context) error {
		cm := &corev1.ConfigMap{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, cm); err != nil {
			return err
		}
		for k, v := range want {
			if cm.Data[k] != v {
				return fmt.Errorf("ConfigMap %s/%s has data %v, want %s=%q", namespace, name, cm.Data, k, v)
			}
		}
		return nil
	}
}

// diagnostics is the state of Flux and Landlord on the staging cluster.
func diagnostics(ctx context.Context) string {
	if k8s == nil {
		return ""
	}
	return diagnosticsOf(ctx, k8s, env.Dir)
}

// diagnosticsOf lists the Ready conditions of every Tenant and Flux object
// and, given the environment's directory, the end of each controller's log.
func diagnosticsOf(ctx context.Context, c client.Client, dir string) string {
	if dir == "" && c == k8s {
		dir = env.Dir
	}
	var b strings.Builder
	lists := []client.ObjectList{
		&v1alpha1.TenantList{}, &sourcev1.GitRepositoryList{}, &sourcev1.HelmRepositoryList{}, &sourcev1.HelmChartList{},
		&kustomizev1.KustomizationList{}, &helmv2.HelmReleaseList{},
	}
	for _, list := range lists {
		if err := c.List(ctx, list); err != nil {
			fmt.Fprintf(&b, "list %T: %v\n", list, err)
			continue
		}
		items, _ := apimeta.ExtractList(list)
		for _, item := range items {
			obj := item.(client.Object)
			var conditions []metav1.Condition
			switch o := obj.(type) {
			case *v1alpha1.Tenant:
				conditions = o.Status.Conditions
			case interface{ GetConditions() []metav1.Condition }:
				conditions = o.GetConditions()
			}
			ready := apimeta.FindStatusCondition(conditions, fluxmeta.ReadyCondition)
			fmt.Fprintf(&b, "%T %s/%s: %+v\n", obj, obj.GetNamespace(), obj.GetName(), ready)
		}
	}
	if dir != "" {
		for _, name := range []string{"source-controller", "kustomize-controller", "helm-controller", "landlord-controller"} {
			fmt.Fprintf(&b, "end of %s.log:\n%s\n", name, tail(filepath.Join(dir, name+".log"), 3000))
		}
	}
	return b.String()
}

// tail is the last n bytes of a file.
func tail(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() > n {
		_, _ = f.Seek(-n, io.SeekEnd)
	}
	data, _ := io.ReadAll(f)
	return string(data)
}
