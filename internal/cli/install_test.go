package cli_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/audit"
	"github.com/landlord-dev/landlord/internal/cli"
	"github.com/landlord-dev/landlord/internal/fleet"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// TestInstall runs landlord install on a control plane of its own: the
// webhook configurations it installs fail closed with no controller
// serving them, which would break the package's shared control plane.
func TestInstall(t *testing.T) {
	plane, err := localcluster.Start(ctx, localcluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := plane.Stop(); err != nil {
			t.Error(err)
		}
	})
	c, err := client.New(plane.Config, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	install := func(args ...string) (stdout, stderr string, err error) {
		cmd := cli.NewRootCommand()
		var out, errOut bytes.Buffer
		cmd.SetArgs(append([]string{"install", "--kubeconfig=" + plane.KubeconfigPath}, args...))
		cmd.SetOut(&out)
		cmd.SetErr(&errOut)
		err = cmd.ExecuteContext(ctx)
		return out.String(), errOut.String(), err
	}
	want, err := config.Install()
	if err != nil {
		t.Fatal(err)
	}
	versions := func(t *testing.T) map[string]string {
		t.Helper()
		got := map[string]string{}
		for _, obj := range want {
			live := &unstructured.Unstructured{}
			live.SetGroupVersionKind(obj.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKeyFromObject(obj), live); err != nil {
				t.Fatalf("%s %s: %v", obj.GetKind(), obj.GetName(), err)
			}
			got[obj.GetKind()+" "+obj.GetNamespace()+"/"+obj.GetName()] = live.GetResourceVersion()
		}
		return got
	}

	// First, while nothing is installed: a missing Flux stops everything.
	t.Run("flux lockdown without Flux", func(t *testing.T) {
		_, _, err := install("--flux-lockdown")
		if err == nil || !strings.Contains(err.Error(), "--flux-lockdown: Flux is not installed: namespace flux-system not found") {
			t.Fatalf("error %v, want one saying Flux is not installed", err)
		}
		crd := &unstructured.Unstructured{}
		crd.SetGroupVersionKind(want[0].GroupVersionKind())
		if err := c.Get(ctx, client.ObjectKeyFromObject(want[0]), crd); err == nil {
			t.Errorf("%s %s applied although the command failed", want[0].GetKind(), want[0].GetName())
		}
	})

	// A server dry run judges what it can and stores nothing: what lives in
	// the namespace the install creates cannot be sent before it exists.
	t.Run("dry run stores nothing", func(t *testing.T) {
		stdout, stderr, err := install("--dry-run=server")
		if err != nil {
			t.Fatalf("%v\nstderr:\n%s", err, stderr)
		}
		for _, obj := range want {
			line := installName(obj) + " created (server dry run)\n"
			if obj.GetNamespace() == "landlord-system" {
				line = installName(obj) + " created (server dry run: not judged before namespace landlord-system exists)\n"
			}
			if !strings.Contains(stdout, line) {
				t.Errorf("stdout lacks %q:\n%s", line, stdout)
			}
			live := &unstructured.Unstructured{}
			live.SetGroupVersionKind(obj.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKeyFromObject(obj), live); !apierrors.IsNotFound(err) {
				t.Errorf("%s after a dry run: %v", installName(obj), err)
			}
		}
	})

	t.Run("applies every object", func(t *testing.T) {
		stdout, stderr, err := install()
		if err != nil {
			t.Fatalf("%v\nstderr:\n%s", err, stderr)
		}
		for _, obj := range want {
			if line := installName(obj) + " created\n"; !strings.Contains(stdout, line) {
				t.Errorf("stdout lacks %q:\n%s", line, stdout)
			}
		}
		versions(t)
	})

	t.Run("again changes nothing", func(t *testing.T) {
		before := versions(t)
		stdout, stderr, err := install()
		if err != nil {
			t.Fatalf("%v\nstderr:\n%s", err, stderr)
		}
		if after := versions(t); !reflect.DeepEqual(before, after) {
			t.Errorf("resource versions changed:\n%v\n%v", before, after)
		}
		if n := strings.Count(stdout, " unchanged\n"); n != len(want) {
			t.Errorf("%d objects unchanged, want %d:\n%s", n, len(want), stdout)
		}
		stdout, stderr, err = install("--dry-run=server")
		if err != nil {
			t.Fatalf("%v\nstderr:\n%s", err, stderr)
		}
		if n := strings.Count(stdout, " unchanged (server dry run)\n"); n != len(want) {
			t.Errorf("a dry run over the install: %d objects unchanged, want %d:\n%s", n, len(want), stdout)
		}
	})

	t.Run("export prints what install applies", func(t *testing.T) {
		stdout, stderr, err := install("--export")
		if err != nil {
			t.Fatalf("%v\nstderr:\n%s", err, stderr)
		}
		exported := decodeStream(t, stdout)
		if len(exported) != len(want) {
			t.Fatalf("exported %d objects, install applies %d", len(exported), len(want))
		}
		for i := range want {
			// As JSON: YAML decodes numbers as float64, kustomize as int64.
			a, errA := json.Marshal(exported[i].Object)
			b, errB := json.Marshal(want[i].Object)
			if err := errors.Join(errA, errB); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("exported %s differs from the installed %s", installName(exported[i]), installName(want[i]))
			}
		}
	})

	t.Run("wait names what is not ready", func(t *testing.T) {
		// No node runs the controller's pods here: the Deployment never
		// becomes available, nor do the webhooks get a CA bundle.
		stdout, stderr, err := install("--wait", "--timeout", "3s")
		const deployment = "Deployment landlord-system/landlord-controller (available 0/2"
		if err == nil || !strings.Contains(err.Error(), "not ready after --timeout 3s: ") || !strings.Contains(err.Error(), deployment) {
			t.Fatalf("error %v\nwant one naming %s\nstderr:\n%s", err, deployment, stderr)
		}
		if strings.Contains(err.Error(), "CustomResourceDefinition") {
			t.Errorf("the established CRD is reported as not ready: %v", err)
		}
		for _, line := range []string{
			"waiting up to 3s for 5 objects to be ready\n",
			"  CustomResourceDefinition tenantresources.landlord.dev: established\n",
			"  CustomResourceDefinition tenants.landlord.dev: established\n",
			"  Deployment landlord-system/landlord-controller: available 0/2",
			"  ValidatingWebhookConfiguration landlord: no caBundle yet on ",
			"  MutatingWebhookConfiguration landlord: no caBundle yet on ",
		} {
			if strings.Count(stdout, line) != 1 {
				t.Errorf("progress should hold %q once:\n%s", line, stdout)
			}
		}
	})

	t.Run("flux lockdown", func(t *testing.T) {
		applyFlux(t, c)
		stdout, stderr, err := install("--flux-lockdown")
		if err != nil {
			t.Fatalf("%v\nstderr:\n%s", err, stderr)
		}
		events := "--events-addr=http://notification-controller.flux-system.svc.cluster.local./"
		wantArgs := map[string][]string{
			"kustomize-controller": {events, "--no-remote-bases=true", "--watch-all-namespaces=true", "--no-cross-namespace-refs=true", "--default-service-account=default",
				"--feature-gates=ObjectLevelWorkloadIdentity=true", "--default-decryption-service-account=default", "--default-kubeconfig-service-account=default"},
			// The platform's choice of default account stays.
			"helm-controller": {events, "--default-service-account", "flux-applier", "--no-cross-namespace-refs=true",
				"--feature-gates=ObjectLevelWorkloadIdentity=true", "--default-kubeconfig-service-account=default"},
			"notification-controller": {"--watch-all-namespaces=true", "--no-cross-namespace-refs=true", "--feature-gates=ObjectLevelWorkloadIdentity=true", "--default-service-account=default"},
			"source-controller":       {events, "--storage-path=/data", "--feature-gates=ObjectLevelWorkloadIdentity=true", "--default-service-account=default"},
		}
		generations := map[string]int64{}
		for name, args := range wantArgs {
			d := &appsv1.Deployment{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: "flux-system", Name: name}, d); err != nil {
				t.Fatal(err)
			}
			if got := d.Spec.Template.Spec.Containers[0].Args; !reflect.DeepEqual(got, args) {
				t.Errorf("%s args after the lockdown:\n got %q\nwant %q", name, got, args)
			}
			generations[name] = d.Generation
		}
		for _, line := range []string{
			"Deployment flux-system/kustomize-controller locked down: --no-cross-namespace-refs=true --no-remote-bases=true --default-service-account=default " +
				"--feature-gates=ObjectLevelWorkloadIdentity=true --default-decryption-service-account=default --default-kubeconfig-service-account=default\n",
			"Deployment flux-system/helm-controller locked down: --no-cross-namespace-refs=true --feature-gates=ObjectLevelWorkloadIdentity=true --default-kubeconfig-service-account=default\n" +
				"  warning: Flux Kustomization flux-system manages it and will revert this",
			"Deployment flux-system/image-reflector-controller not installed: nothing to lock down\n",
		} {
			if !strings.Contains(stdout, line) {
				t.Errorf("stdout lacks %q:\n%s", line, stdout)
			}
		}

		stdout, stderr, err = install("--flux-lockdown")
		if err != nil {
			t.Fatalf("%v\nstderr:\n%s", err, stderr)
		}
		if n := strings.Count(stdout, " already locked down\n"); n != 4 {
			t.Errorf("a second lockdown changed something:\n%s", stdout)
		}
		for name, generation := range generations {
			d := &appsv1.Deployment{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: "flux-system", Name: name}, d); err != nil {
				t.Fatal(err)
			}
			if d.Generation != generation {
				t.Errorf("%s patched again: generation %d, was %d", name, d.Generation, generation)
			}
		}
	})

	// Then a Flux the Flux Operator installs: its FluxInstance carries the
	// lockdown, the Deployments are the operator's.
	t.Run("flux operator", func(t *testing.T) { fluxOperator(t, c, plane.KubeconfigPath, install) })
}

// fluxOperator scaffolds a FluxInstance, has the FluxInstance CRD admit it
// and the audit pass it; then turns a setting off, and the audit fails it
// until install --flux-lockdown turns it on again, without touching a
// Deployment. A patch of the instance's own undoing the lockdown is
// refused, not removed. It runs after the subtests that install Landlord
// and Flux's Deployments.
func fluxOperator(t *testing.T, c client.Client, kubeconfig string, install func(...string) (string, string, error)) {
	path, err := localcluster.FluxInstanceCRD()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if out, err := run("init", "fleet", dir, "--clusters", "staging", "--flux-operator", "--git-url", "https://git.example.com/org/fleet.git"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	data, err = os.ReadFile(filepath.Join(dir, fleet.FluxInstanceFile("staging")))
	if err != nil {
		t.Fatal(err)
	}
	instance := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &instance.Object); err != nil {
		t.Fatal(err)
	}
	// Admitted once the CRD is served.
	testenv.Eventually(t, 30*time.Second, func() error { return c.Create(ctx, instance.DeepCopy()) })
	t.Cleanup(func() {
		if err := c.Delete(ctx, instance); err != nil {
			t.Error(err)
		}
	})

	auditCheck := func(t *testing.T, name string) audit.Check {
		t.Helper()
		cmd := cli.NewRootCommand()
		var out bytes.Buffer
		cmd.SetArgs([]string{"audit", "--kubeconfig=" + kubeconfig, "-o", "json"})
		cmd.SetOut(&out)
		cmd.SetErr(io.Discard)
		_ = cmd.ExecuteContext(ctx) // other checks fail: no tenant, no guard serving
		var checks []audit.Check
		if err := json.Unmarshal(out.Bytes(), &checks); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		for _, check := range checks {
			if check.Name == name {
				return check
			}
		}
		t.Fatalf("no check %q:\n%s", name, out.String())
		return audit.Check{}
	}
	auditInstance := func(t *testing.T) audit.Check {
		t.Helper()
		return auditCheck(t, "FluxInstance flux-system/flux locks Flux down")
	}
	if got := auditInstance(t); got.Result != audit.Pass {
		t.Errorf("the scaffold: %+v", got)
	}
	// No operator runs here: the instance is not yet applied, then the
	// operator's failure is reported.
	applied := "FluxInstance flux-system/flux is applied by the Flux Operator"
	if got := auditCheck(t, applied); got.Result != audit.Skip || got.Detail != "no Ready condition: the operator has not reconciled it" {
		t.Errorf("an instance nothing reconciled: %+v", got)
	}
	live := instance.DeepCopy()
	if err := c.Get(ctx, client.ObjectKeyFromObject(live), live); err != nil {
		t.Fatal(err)
	}
	status := map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "False", "reason": "BuildFailed", "message": "version 2.6 does not support multitenantWorkloadIdentity",
		"observedGeneration": live.GetGeneration(), "lastTransitionTime": "2026-11-27T00:00:00Z"}}}
	if err := unstructured.SetNestedField(live.Object, status, "status"); err != nil {
		t.Fatal(err)
	}
	if err := c.Status().Update(ctx, live); err != nil {
		t.Fatal(err)
	}
	if got := auditCheck(t, applied); got.Result != audit.Fail || got.Detail != "Ready=False BuildFailed: version 2.6 does not support multitenantWorkloadIdentity" {
		t.Errorf("an instance the operator failed to apply: %+v", got)
	}

	generations := map[string]int64{}
	deployments := &appsv1.DeploymentList{}
	if err := c.List(ctx, deployments, client.InNamespace("flux-system")); err != nil {
		t.Fatal(err)
	}
	for _, d := range deployments.Items {
		generations[d.Name] = d.Generation
	}
	setCluster := func(field string, value bool) {
		t.Helper()
		patch := fmt.Sprintf(`{"spec":{"cluster":{%q:%v}}}`, field, value)
		if err := c.Patch(ctx, instance.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
			t.Fatal(err)
		}
	}
	setCluster("multitenant", false)
	got := auditInstance(t)
	want := "kustomize-controller lacks --no-cross-namespace-refs=true --no-remote-bases=true --default-service-account=default; " +
		"helm-controller lacks --no-cross-namespace-refs=true --default-service-account=default; notification-controller lacks --no-cross-namespace-refs=true; " +
		"set spec.cluster.multitenant, spec.cluster.objectLevelWorkloadIdentity, spec.cluster.multitenantWorkloadIdentity to true (landlord install --flux-lockdown)"
	if got.Result != audit.Fail || got.Detail != want {
		t.Errorf("multitenant off:\n got %s %q\nwant fail %q", got.Result, got.Detail, want)
	}

	stdout, stderr, err := install("--flux-lockdown")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if line := "FluxInstance flux-system/flux locked down: spec.cluster.multitenant=true\n"; !strings.Contains(stdout, line) {
		t.Errorf("stdout lacks %q:\n%s", line, stdout)
	}
	if strings.Contains(stdout, "Deployment flux-system/") {
		t.Errorf("the operator's Deployments are not Landlord's to patch:\n%s", stdout)
	}
	if got := auditInstance(t); got.Result != audit.Pass {
		t.Errorf("after install --flux-lockdown: %+v", got)
	}
	if stdout, _, err = install("--flux-lockdown"); err != nil || !strings.Contains(stdout, "FluxInstance flux-system/flux already locked down\n") {
		t.Errorf("a second lockdown: %v\n%s", err, stdout)
	}

	undo := `{"spec":{"kustomize":{"patches":[{"target":{"kind":"Deployment","name":"helm-controller"},` +
		`"patch":"- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --no-cross-namespace-refs=false\n"}]}}}`
	if err := c.Patch(ctx, instance.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(undo))); err != nil {
		t.Fatal(err)
	}
	_, _, err = install("--flux-lockdown")
	if want := "FluxInstance flux-system/flux: its spec.kustomize.patches undo the lockdown (helm-controller lacks --no-cross-namespace-refs=true): remove or correct them"; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	if got := auditInstance(t); got.Result != audit.Fail || !strings.HasPrefix(got.Detail, "helm-controller lacks --no-cross-namespace-refs=true;") {
		t.Errorf("a patch undoing the lockdown: %+v", got)
	}

	// A shard the operator renders runs what its controller runs, and is
	// audited as that controller by its component label.
	shard := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "kustomize-controller-shard1", Namespace: "flux-system", Labels: map[string]string{"app.kubernetes.io/component": "kustomize-controller"}},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "kustomize-controller-shard1"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "kustomize-controller-shard1"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "manager", Image: "ghcr.io/fluxcd/kustomize-controller:v1.7.3",
					Args: []string{"--watch-label-selector=sharding.fluxcd.io/key=shard1", "--no-remote-bases=true"}}}},
			},
		},
	}
	if err := c.Create(ctx, shard); err != nil {
		t.Fatal(err)
	}
	got = auditCheck(t, "kustomize-controller-shard1 runs locked down")
	if want := "missing --no-cross-namespace-refs=true --default-service-account=default --feature-gates=ObjectLevelWorkloadIdentity=true " +
		"--default-decryption-service-account=default --default-kubeconfig-service-account=default"; got.Result != audit.Fail || got.Detail != want {
		t.Errorf("an unlocked shard: %s %q, want fail %q", got.Result, got.Detail, want)
	}
	if err := c.Delete(ctx, shard); err != nil {
		t.Fatal(err)
	}

	if err := c.List(ctx, deployments, client.InNamespace("flux-system")); err != nil {
		t.Fatal(err)
	}
	for _, d := range deployments.Items {
		if d.Generation != generations[d.Name] {
			t.Errorf("Deployment %s changed: generation %d, was %d", d.Name, d.Generation, generations[d.Name])
		}
	}
}

// TestInstallFlagErrors names the flags that do not go together.
func TestInstallFlagErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"export lockdown":          {[]string{"--export", "--flux-lockdown"}, "--flux-lockdown patches a live Flux and cannot be exported"},
		"export wait":              {[]string{"--export", "--wait"}, "--wait needs a cluster to wait on"},
		"timeout alone":            {[]string{"--timeout", "1m"}, "--timeout needs --wait"},
		"zero timeout":             {[]string{"--wait", "--timeout", "0s"}, "--timeout 0s: must be positive"},
		"export dry run":           {[]string{"--export", "--dry-run=server"}, "--dry-run=server asks the cluster; --export does not"},
		"dry run wait":             {[]string{"--dry-run=server", "--wait"}, "--wait waits for what --dry-run=server does not store"},
		"dry run client":           {[]string{"--dry-run=client"}, `--dry-run "client": want none or server (--export prints what would be sent)`},
		"dry run client, exported": {[]string{"--export", "--dry-run=client"}, `--dry-run "client": want none or server (--export prints what would be sent)`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := run(append([]string{"install"}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// applyFlux stands in for Flux's controllers: plain Deployments named and
// shaped as flux install makes them, some args already set, one flag
// repeated and one given with its value apart.
func applyFlux(t *testing.T, c client.Client) {
	t.Helper()
	events := "--events-addr=http://notification-controller.flux-system.svc.cluster.local./"
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "flux-system"}}); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"kustomize-controller":    {events, "--no-remote-bases", "--watch-all-namespaces=true", "--no-remote-bases=false"},
		"helm-controller":         {events, "--default-service-account", "flux-applier"},
		"notification-controller": {"--watch-all-namespaces=true", "--no-cross-namespace-refs=true"},
		"source-controller":       {events, "--storage-path=/data"},
	} {
		labels := map[string]string{"app": name}
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "flux-system", Labels: map[string]string{}},
			Spec: appsv1.DeploymentSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{
						Name: "manager", Image: "ghcr.io/fluxcd/" + name + ":v1.7.3", Args: args,
					}}},
				},
			},
		}
		if name == "helm-controller" {
			// As flux bootstrap leaves it: applied by Flux's own Kustomization.
			d.Labels["kustomize.toolkit.fluxcd.io/name"] = "flux-system"
		}
		if err := c.Create(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
}

// installName is how install's output names an object.
func installName(obj *unstructured.Unstructured) string {
	if obj.GetNamespace() == "" {
		return obj.GetKind() + " " + obj.GetName()
	}
	return obj.GetKind() + " " + obj.GetNamespace() + "/" + obj.GetName()
}

func decodeStream(t *testing.T, stream string) []*unstructured.Unstructured {
	t.Helper()
	var objects []*unstructured.Unstructured
	decoder := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(stream), 4096)
	for {
		u := &unstructured.Unstructured{}
		err := decoder.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			return objects
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(u.Object) > 0 {
			objects = append(objects, u)
		}
	}
}
