package e2e

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/gitserver"
)

// gitTenant is a Tenant syncing the root of its repository on the public
// Git server, applied by the platform admin; a short interval so that Flux
// retries within the test's waits.
func gitTenant(name string, selfService *v1alpha1.SelfService) *v1alpha1.Tenant {
	return &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.TenantSpec{
			Namespaces:  []v1alpha1.TenantNamespace{{Name: name}},
			SelfService: selfService,
			Sources: []v1alpha1.Source{{
				Name:     name,
				Git:      &v1alpha1.GitSource{URL: public.RepoURL(name), Ref: &v1alpha1.GitRef{Branch: gitserver.Branch}},
				Interval: &metav1.Duration{Duration: 10 * time.Second},
			}},
		},
	}
}

// createGitTenant pushes files as the first commit of the tenant's
// repository, creates the Tenant and waits until it is Ready.
func createGitTenant(t *testing.T, tenant *v1alpha1.Tenant, files map[string]string) {
	t.Helper()
	if _, err := public.CreateRepo(tenant.Name); err != nil {
		t.Fatal(err)
	}
	dir := repoDir(tenant.Name)
	if err := writeFiles(dir, files); err != nil {
		t.Fatal(err)
	}
	if _, err := public.PushDir(t.Context(), tenant.Name, dir, "first commit"); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Create(t.Context(), tenant); err != nil {
		t.Fatal(err)
	}
	eventually(t, k8s, "tenant "+tenant.Name+" Ready", tenantReady(k8s, tenant.Name))
}

// attempted waits until the Kustomization has applied revision or failed
// at it, and returns its Ready condition then.
func attempted(t *testing.T, c client.Client, namespace, name, revision string) *metav1.Condition {
	t.Helper()
	var ready *metav1.Condition
	eventually(t, c, "Kustomization "+namespace+"/"+name+" attempts "+revision, func(ctx context.Context) error {
		k := &kustomizev1.Kustomization{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, k); err != nil {
			return err
		}
		if k.Status.LastAttemptedRevision != revision {
			return fmt.Errorf("Kustomization %s/%s attempted %q, want %s", namespace, name, k.Status.LastAttemptedRevision, revision)
		}
		var err error
		if ready, err = readyCondition(k.Status.Conditions, k.Generation); err != nil {
			return err
		}
		if ready.Status == metav1.ConditionUnknown {
			return fmt.Errorf("Kustomization %s/%s still reconciling: %s", namespace, name, ready.Message)
		}
		return nil
	})
	return ready
}

// tenantSourceMessage holds once the Tenant reports its source not Ready
// with want as Flux's message.
func tenantSourceMessage(c client.Client, name, want string) func(context.Context) error {
	return func(ctx context.Context) error {
		t := &v1alpha1.Tenant{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, t); err != nil {
			return err
		}
		for _, s := range t.Status.Sources {
			if s.Name == name && !s.Ready && s.Message == "Kustomization: "+want {
				return nil
			}
		}
		return fmt.Errorf("tenant %s status.sources = %+v, want source %s not Ready with Flux's message %q", name, t.Status.Sources, name, want)
	}
}

// absent holds if obj does not exist.
func absent(ctx context.Context, c client.Client, obj client.Object) error {
	err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
	if apierrors.IsNotFound(err) {
		return nil
	}
	return fmt.Errorf("%T %s/%s exists (err %v)", obj, obj.GetNamespace(), obj.GetName(), err)
}

// TestEscapes: a tenant's repository declares, one commit at a time, what
// would reach beyond the tenant. Each is refused by RBAC, by Landlord's
// guard or by Flux's lockdown: nothing of it appears, and the tenant's
// Kustomization and Tenant report why.
func TestEscapes(t *testing.T) {
	t.Parallel()
	const (
		tenant     = "rogue"
		reconciler = `User "system:serviceaccount:rogue:rogue"`
	)
	// Self-service makes namespace creation a matter for Landlord's guard,
	// not for RBAC alone.
	rogue := gitTenant(tenant, &v1alpha1.SelfService{Prefix: "rogue-", MaxNamespaces: 1})
	base := map[string]string{
		"app.yaml":           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: rogue\ndata:\n  ok: \"true\"\n",
		"kustomization.yaml": kustomizationOf("app.yaml"),
	}
	createGitTenant(t, rogue, base)
	victim := appTenants[0].name

	for _, escape := range []struct {
		name  string
		files map[string]string
		// want are parts of the refusal in the Kustomization's status.
		want []string
		// never is what must not appear in the cluster.
		never client.Object
	}{
		{
			name:  "another tenant's namespace",
			files: objectFile(configMap("stolen", victim)),
			want: []string{`ConfigMap/` + victim + `/stolen dry-run failed (Forbidden)`, reconciler,
				`cannot patch resource "configmaps" in API group "" in the namespace "` + victim + `"`},
			never: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: victim, Name: "stolen"}},
		},
		{
			name:  "default namespace",
			files: objectFile(configMap("stolen", "default")),
			want: []string{`ConfigMap/default/stolen dry-run failed (Forbidden)`, reconciler,
				`cannot patch resource "configmaps" in API group "" in the namespace "default"`},
			never: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "stolen"}},
		},
		{
			name: "ClusterRoleBinding",
			files: objectFile(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: rogue-cluster-admin
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
- kind: ServiceAccount
  name: rogue
  namespace: rogue
`),
			want: []string{`ClusterRoleBinding/rogue-cluster-admin dry-run failed (Forbidden)`, reconciler,
				`cannot patch resource "clusterrolebindings" in API group "rbac.authorization.k8s.io" at the cluster scope`},
			never: &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "rogue-cluster-admin"}},
		},
		{
			name:  "namespace outside self-service",
			files: objectFile("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: payroll\n  labels:\n    landlord.dev/tenant: rogue\n"),
			// Answered as for a name that does not exist, so that the tenant
			// learns nothing of namespaces not its own; Flux reads any
			// NotFound of a dry run as "namespace not specified".
			want:  []string{`Namespace/payroll namespace not specified`, `denied the request`, `namespaces "payroll" not found`},
			never: &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "payroll"}},
		},
		{
			// TestSelfService is the neighbour: a plain self-service namespace,
			// with the labels Flux adds, is applied.
			name:  "self-service namespace pinned to a node pool",
			files: objectFile("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: rogue-gpu\n  labels:\n    landlord.dev/tenant: rogue\n  annotations:\n    scheduler.alpha.kubernetes.io/node-selector: pool=gpu\n"),
			want: []string{`Namespace/rogue-gpu dry-run failed`, `denied the request`,
				`metadata.annotations[scheduler.alpha.kubernetes.io/node-selector]: Forbidden: LL025: tenant rogue may not set this annotation`},
			never: &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "rogue-gpu"}},
		},
		{
			name: "Kustomization with its source in flux-system",
			files: objectFile(`apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: fleet
  namespace: rogue
spec:
  interval: 1m
  path: ./clusters/staging
  prune: true
  serviceAccountName: rogue
  sourceRef:
    kind: GitRepository
    name: flux-system
    namespace: flux-system
`),
			want:  []string{`Kustomization/rogue/fleet dry-run failed`, `ValidatingAdmissionPolicy 'landlord-content' with binding 'landlord-content' denied request`, `spec.sourceRef.namespace`, `LL002: cross-namespace references are denied`},
			never: &kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "fleet"}},
		},
		{
			name: "Kustomization decrypting with kustomize-controller's keys",
			files: objectFile(`apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: secrets
  namespace: rogue
spec:
  interval: 1m
  path: ./
  prune: true
  serviceAccountName: rogue
  sourceRef:
    kind: GitRepository
    name: rogue
  decryption:
    provider: sops
`),
			want:  []string{`Kustomization/rogue/secrets dry-run failed`, `ValidatingAdmissionPolicy 'landlord-content' with binding 'landlord-content' denied request`, `spec.decryption.secretRef`, `LL005: decryption without keys of its own uses kustomize-controller's keys`},
			never: &kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "secrets"}},
		},
		{
			name:  "ExternalName Service proxying into another tenant",
			files: objectFile("apiVersion: v1\nkind: Service\nmetadata:\n  name: tunnel\n  namespace: rogue\nspec:\n  type: ExternalName\n  externalName: web." + victim + ".svc.cluster.local\n"),
			want:  []string{`Service/rogue/tunnel dry-run failed`, `ValidatingAdmissionPolicy 'landlord-content' with binding 'landlord-content' denied request`, `spec.type: Forbidden: LL021: tenant rogue may not alias other names`},
			never: &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "tunnel"}},
		},
		{
			name: "Kustomization with kubeConfig",
			files: objectFile(`apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: elsewhere
  namespace: rogue
spec:
  interval: 1m
  path: ./
  prune: true
  serviceAccountName: rogue
  sourceRef:
    kind: GitRepository
    name: rogue
  kubeConfig:
    secretRef:
      name: other-cluster
`),
			want:  []string{`Kustomization/rogue/elsewhere dry-run failed`, `ValidatingAdmissionPolicy 'landlord-content' with binding 'landlord-content' denied request`, `spec.kubeConfig`, `LL004: remote clusters are denied`},
			never: &kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "elsewhere"}},
		},
		{
			name: "HelmRelease targeting another tenant",
			files: objectFile(`apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: hijack
  namespace: rogue
spec:
  interval: 1m
  targetNamespace: ` + victim + `
  chart:
    spec:
      chart: podinfo
      sourceRef:
        kind: HelmRepository
        name: podinfo
`),
			want:  []string{`HelmRelease/rogue/hijack dry-run failed`, `ValidatingAdmissionPolicy 'landlord-content' with binding 'landlord-content' denied request`, `spec.targetNamespace`, `LL003: must be a namespace of tenant rogue`},
			never: &helmv2.HelmRelease{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "hijack"}},
		},
		{
			// A base fetched from the tenant's own repository, so that a
			// lockdown failing would show as its ConfigMap, not as a fetch error.
			name: "remote base",
			files: map[string]string{
				"remote/kustomization.yaml": kustomizationOf("configmap.yaml"),
				"remote/configmap.yaml":     configMap("from-remote-base", tenant),
				"kustomization.yaml":        kustomizationOf("app.yaml", public.RepoURL(tenant)+"//remote?ref="+gitserver.Branch),
			},
			want: []string{"kustomize build failed", "accumulating resources from '" + public.RepoURL(tenant) + "//remote?ref=" + gitserver.Branch + "'",
				"is not in or below"},
			never: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "from-remote-base"}},
		},
	} {
		t.Run(escape.name, func(t *testing.T) {
			files := maps.Clone(base)
			if _, ok := escape.files["kustomization.yaml"]; !ok {
				files["kustomization.yaml"] = kustomizationOf("app.yaml", "escape.yaml")
			}
			maps.Copy(files, escape.files)
			dir := t.TempDir()
			if err := writeFiles(dir, files); err != nil {
				t.Fatal(err)
			}
			revision := pushTenant(t, k8s, public, tenant, tenant, tenant, dir, "escape: "+escape.name)
			ready := attempted(t, k8s, tenant, tenant, revision)
			if err := absent(t.Context(), k8s, escape.never); err != nil {
				t.Error(err)
			}
			if ready.Status != metav1.ConditionFalse {
				// Say where it went instead, if into the tenant's namespace.
				moved := escape.never.DeepCopyObject().(client.Object)
				moved.SetNamespace(tenant)
				t.Fatalf("Kustomization %s/%s applied the escape instead of refusing it (Ready=%s: %s); in namespace %s: %v",
					tenant, tenant, ready.Status, ready.Message, tenant, absent(t.Context(), k8s, moved) != nil)
			}
			for _, w := range escape.want {
				if !strings.Contains(ready.Message, w) {
					t.Errorf("Kustomization %s/%s refusal lacks %q:\n%s", tenant, tenant, w, ready.Message)
				}
			}
			t.Logf("Kustomization %s/%s: %s", tenant, tenant, ready.Message)
			eventually(t, k8s, "Tenant reports Flux's refusal", tenantSourceMessage(k8s, tenant, ready.Message))
		})
	}
}

// configMap is a ConfigMap manifest in namespace.
func configMap(name, namespace string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: %s\ndata:\n  from: git\n", name, namespace)
}

// objectFile is the escape's manifest as escape.yaml.
func objectFile(manifest string) map[string]string {
	return map[string]string{"escape.yaml": manifest}
}

// kustomizationOf is a kustomization.yaml listing resources.
func kustomizationOf(resources ...string) string {
	return "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- " + strings.Join(resources, "\n- ") + "\n"
}
