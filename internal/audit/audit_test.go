package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/audit"
	"github.com/landlord-dev/landlord/internal/cli"
	"github.com/landlord-dev/landlord/internal/devenv"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/lockdown"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/profile"
	"github.com/landlord-dev/landlord/internal/testenv"
)

var (
	ctx = context.Background()
	env *localcluster.Env
	k8s client.Client
)

// TestMain runs one control plane with Landlord and its webhooks.
func TestMain(m *testing.M) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	os.Exit(testenv.RunMain(m, func(e *localcluster.Env) (err error) {
		env = e
		if k8s, err = client.New(env.Config, client.Options{Scheme: manager.Scheme()}); err != nil {
			return err
		}
		_, err = devenv.Start(ctx, env, env.Dir, profile.Profile{})
		return err
	}))
}

// TestAudit runs `landlord audit` on a provisioned tenant: every check
// passes; then a guard rail is broken on purpose and the audit fails on it.
func TestAudit(t *testing.T) {
	tenants(t)
	run := func(args ...string) (int, []audit.Check) {
		var out, errOut bytes.Buffer
		code := cli.Execute(append([]string{"audit", "--kubeconfig", env.KubeconfigPath, "-o", "json"}, args...), &out, &errOut)
		var checks []audit.Check
		if err := json.Unmarshal(out.Bytes(), &checks); err != nil {
			t.Fatalf("audit output: %v\n%s\n%s", err, out.String(), errOut.String())
		}
		return code, checks
	}

	// The webhooks come up with the controller: wait for a clean audit.
	var checks []audit.Check
	testenv.Eventually(t, time.Minute, func() error {
		var code int
		code, checks = run("--tenant", "teal")
		if code != 0 {
			return fmt.Errorf("exit %d: %v", code, failures(checks))
		}
		return nil
	})
	kinds := map[string]int{}
	guard := 0
	for _, c := range checks {
		kinds[c.Kind]++
		if c.Kind == "escape" && strings.Contains(c.Detail, "the guard (LL0") {
			guard++
		}
		if c.Tenant != "" && c.Tenant != "teal" {
			t.Errorf("--tenant teal audited %s", c.Tenant)
		}
	}
	t.Logf("%d checks: %v; %d escapes refused by the guard itself", len(checks), kinds, guard)
	if kinds["ready"] != 1 || kinds["access"] < 30 || kinds["escape"] < 10 {
		t.Errorf("checks by kind %v, want 1 ready, at least 30 access and 10 escape", kinds)
	}
	if guard < 7 {
		t.Errorf("%d escapes refused by a guard rule, want at least 7", guard)
	}
	// The census's attacks: every row a rule judges is a check, and teal's
	// spec allows few of them.
	census := map[audit.Result]int{}
	for _, c := range checks {
		if c.Kind == "census" {
			census[c.Result]++
			if c.Result != audit.Pass || !strings.Contains(c.Detail, "the guard (LL") {
				t.Logf("census %s %s: %s", c.Result, c.Name, c.Detail)
			}
		}
	}
	t.Logf("census rows: %v", census)
	if census[audit.Pass] < 60 {
		t.Errorf("census rows %v, want at least 60 passing", census)
	}

	// A platform mistake: the reconciler bound to cluster-admin.
	mistake := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "teal-mistake"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "teal-apps", Name: "teal"}},
	}
	if err := k8s.Create(ctx, mistake); err != nil {
		t.Fatal(err)
	}
	code, checks := run("--tenant", "teal")
	if err := k8s.Delete(ctx, mistake); err != nil {
		t.Fatal(err)
	}
	if code != 1 {
		t.Errorf("exit %d with the reconciler cluster-admin, want 1", code)
	}
	failed := failures(checks)
	for _, want := range []string{
		"reconciler may not create clusterrolebindings.rbac.authorization.k8s.io cluster-wide",
		"reconciler may not create deployments.apps in plum-apps",
		"reconciler may not update namespaces teal-apps cluster-wide",
		"reconciler may not patch gitrepositories/status.source.toolkit.fluxcd.io in teal-apps",
		"reconciler may not patch resourcequotas in teal-apps",
	} {
		if !strings.Contains(failed, want) {
			t.Errorf("no FAIL %q among:\n%s", want, failed)
		}
	}
}

// TestAuditFluxLockdown reads the flags of Flux's Deployments.
func TestAuditFluxLockdown(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "flux-audit"}}
	if err := k8s.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	a := &audit.Auditor{Client: k8s, Config: env.Config, FluxNamespace: "flux-audit"}
	checks, err := a.Run(ctx, "no-such-tenant")
	if err == nil || !strings.Contains(err.Error(), `"no-such-tenant" not found`) {
		t.Errorf("unknown tenant: %v, %v", checks, err)
	}
	if checks, err = a.Run(ctx, []string{}...); err != nil {
		t.Fatal(err)
	}
	if got := fluxResults(checks); got != "kustomize-controller=SKIP" {
		t.Errorf("without Flux: %s", got)
	}

	// kustomize-controller locked down but for the decryption default: a
	// tenant's SOPS decryption would take the controller's KMS identity.
	kustomize := lockdown.Args("kustomize-controller")
	fluxDeployment(t, "flux-audit", "kustomize-controller", slices.DeleteFunc(slices.Clone(kustomize), func(arg string) bool {
		return strings.HasPrefix(arg, "--default-decryption-service-account=")
	})...)
	fluxDeployment(t, "flux-audit", "helm-controller", "--watch-all-namespaces", "--no-cross-namespace-refs=false")
	fluxDeployment(t, "flux-audit", "notification-controller")
	fluxDeployment(t, "flux-audit", "source-controller", "--storage-path=/data", "--feature-gates=ObjectLevelWorkloadIdentity=true", "--default-service-account", "fetcher")
	if checks, err = a.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if got := fluxResults(checks); got != "source-controller=PASS kustomize-controller=FAIL helm-controller=FAIL notification-controller=FAIL" {
		t.Errorf("partly locked down: %s", got)
	}
	for name, want := range map[string]string{
		"kustomize-controller": "missing --default-decryption-service-account=default",
		"helm-controller":      "missing --no-cross-namespace-refs=true --default-service-account=default --feature-gates=ObjectLevelWorkloadIdentity=true --default-kubeconfig-service-account=default",
	} {
		if !strings.Contains(failures(checks)+"\n", name+" runs locked down: "+want+"\n") {
			t.Errorf("%s detail, want %q in:\n%s", name, want, failures(checks))
		}
	}

	// Flux run as local processes: their command lines instead.
	a.FluxArgs = map[string][]string{
		"kustomize-controller": kustomize,
		"helm-controller": {"--no-cross-namespace-refs=true", "--default-service-account", "default", "--feature-gates", "OOMWatch=true",
			"--feature-gates=ObjectLevelWorkloadIdentity=true", "--default-kubeconfig-service-account=default"},
	}
	if checks, err = a.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if got := fluxResults(checks); got != "kustomize-controller=PASS helm-controller=PASS" {
		t.Errorf("processes: %s", got)
	}
}

// tenants provisions teal (self-service, an owner group, allowed sources)
// and plum, its neighbour, and waits until both are Ready.
func tenants(t *testing.T) {
	t.Helper()
	for _, tenant := range []*v1alpha1.Tenant{
		{ObjectMeta: metav1.ObjectMeta{Name: "teal"}, Spec: v1alpha1.TenantSpec{
			Namespaces:     []v1alpha1.TenantNamespace{{Name: "teal-apps"}, {Name: "teal-jobs"}},
			SelfService:    &v1alpha1.SelfService{Prefix: "teal-", MaxNamespaces: 2},
			Owners:         []v1alpha1.Owner{{Kind: "Group", Name: "teal-team"}, {Kind: "User", Name: "tina"}},
			AllowedSources: []string{"https://git.example.com/teal/*"},
		}},
		{ObjectMeta: metav1.ObjectMeta{Name: "plum"}, Spec: v1alpha1.TenantSpec{
			Namespaces: []v1alpha1.TenantNamespace{{Name: "plum-apps"}},
		}},
	} {
		if err := k8s.Create(ctx, tenant); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Eventually(t, time.Minute, func() error {
		for _, name := range []string{"teal", "plum"} {
			tenant := &v1alpha1.Tenant{}
			if err := k8s.Get(ctx, client.ObjectKey{Name: name}, tenant); err != nil {
				return err
			}
			if !apimeta.IsStatusConditionTrue(tenant.Status.Conditions, v1alpha1.ReadyCondition) {
				return fmt.Errorf("tenant %s not ready: %+v", name, tenant.Status.Conditions)
			}
		}
		return nil
	})
}

func fluxDeployment(t *testing.T, ns, name string, args ...string) {
	t.Helper()
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "manager", Image: "ghcr.io/fluxcd/" + name, Args: args}}},
			},
		},
	}
	if err := k8s.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
}

// fluxResults summarizes the flux checks as name=RESULT.
func fluxResults(checks []audit.Check) string {
	var got []string
	for _, c := range checks {
		if c.Kind == "flux" {
			got = append(got, strings.TrimSuffix(c.Name, " runs locked down")+"="+string(c.Result))
		}
	}
	return strings.Join(got, " ")
}

func failures(checks []audit.Check) string {
	var lines []string
	for _, c := range checks {
		if c.Result == audit.Fail {
			lines = append(lines, c.Name+": "+c.Detail)
		}
	}
	return strings.Join(lines, "\n")
}
