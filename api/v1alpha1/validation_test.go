package v1alpha1_test

import (
	"context"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/testenv"
)

var k8s client.Client

func TestMain(m *testing.M) {
	os.Exit(testenv.RunMain(m, func(env *localcluster.Env) (err error) {
		if k8s, err = client.New(env.Config, client.Options{Scheme: manager.Scheme()}); err != nil {
			return err
		}
		return install.Prerequisites(context.Background(), k8s)
	}))
}

// validTenant passes every rule; each case breaks one thing.
func validTenant() *v1alpha1.Tenant {
	return &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "valid"},
		Spec: v1alpha1.TenantSpec{
			Namespaces:  []v1alpha1.TenantNamespace{{Name: "valid-apps"}, {Name: "valid-jobs"}},
			SelfService: &v1alpha1.SelfService{Prefix: "valid-", MaxNamespaces: 3},
			Owners:      []v1alpha1.Owner{{Kind: "Group", Name: "valid"}, {Kind: "ServiceAccount", Name: "ci", Namespace: "ci"}},
			Sources: []v1alpha1.Source{
				{Name: "apps", Git: &v1alpha1.GitSource{URL: "https://git.example.com/valid", Ref: &v1alpha1.GitRef{Branch: "main"}}, TargetNamespace: "valid-jobs"},
				{Name: "base", Template: &v1alpha1.GitSource{URL: "ssh://git@git.example.com/platform/base"}, DependsOn: nil},
				{Name: "late", Git: &v1alpha1.GitSource{URL: "https://git.example.com/valid"}, DependsOn: []string{"apps"}, TargetNamespace: "valid-extra"},
			},
			Variables: map[string]string{"CLUSTER_ENV": "staging", "_private": "x"},
		},
	}
}

func TestValidTenantIsAcceptedWithDefaults(t *testing.T) {
	tenant := validTenant()
	if err := k8s.Create(context.Background(), tenant, client.DryRunAll); err != nil {
		t.Fatalf("valid tenant refused: %v", err)
	}
	if tenant.Spec.Role != v1alpha1.DefaultRole || tenant.Spec.PodSecurity != v1alpha1.PodSecurityRestricted ||
		tenant.Spec.Network.Isolation != v1alpha1.NetworkIsolationTenant || tenant.Spec.DeletionPolicy != v1alpha1.DeletionPolicyDelete {
		t.Errorf("safe defaults not applied: %+v", tenant.Spec)
	}
	src := tenant.Spec.Sources[0]
	if src.Path != "./" || src.Interval == nil || src.Interval.Duration != v1alpha1.DefaultInterval || src.Prune == nil || !*src.Prune {
		t.Errorf("source defaults not applied: %+v", src)
	}
}

func TestInvalidTenantIsRefusedNamingTheField(t *testing.T) {
	cases := map[string]struct {
		mutate func(*v1alpha1.Tenant)
		want   string
	}{
		"no namespaces and no self-service": {func(t *v1alpha1.Tenant) { t.Spec.Namespaces, t.Spec.SelfService = nil, nil; t.Spec.Sources = nil },
			"spec.namespaces must list at least one namespace"},
		"sources without namespaces": {func(t *v1alpha1.Tenant) { t.Spec.Namespaces = nil },
			"spec.namespaces: Required value: spec.namespaces must list at least one namespace when spec.sources is set"},
		"platform namespace": {func(t *v1alpha1.Tenant) { t.Spec.Namespaces[1].Name = "kube-system" },
			"must not be a platform namespace"},
		"templates namespace": {func(t *v1alpha1.Tenant) { t.Spec.Namespaces[1].Name = "landlord-templates" },
			"spec.namespaces[1].name: Forbidden: spec.namespaces[].name must not be a platform namespace"},
		"namespace not a DNS label": {func(t *v1alpha1.Tenant) { t.Spec.Namespaces[0].Name = "Apps" },
			"spec.namespaces[0].name"},
		"duplicate namespace": {func(t *v1alpha1.Tenant) { t.Spec.Namespaces[1].Name = "valid-apps" },
			"Duplicate value"},
		"both git and template": {func(t *v1alpha1.Tenant) { t.Spec.Sources[0].Template = t.Spec.Sources[0].Git },
			"exactly one of git or template"},
		"neither git nor template": {func(t *v1alpha1.Tenant) { t.Spec.Sources[0].Git = nil },
			"exactly one of git or template"},
		"two refs": {func(t *v1alpha1.Tenant) { t.Spec.Sources[0].Git.Ref.Tag = "v1" },
			"at most one of branch, tag, semver or commit"},
		"url scheme": {func(t *v1alpha1.Tenant) { t.Spec.Sources[0].Git.URL = "file:///etc" },
			"spec.sources[0].git.url"},
		"path escaping the repo": {func(t *v1alpha1.Tenant) { t.Spec.Sources[0].Path = "../other" },
			"must not contain '..'"},
		"target namespace of someone else": {func(t *v1alpha1.Tenant) { t.Spec.Sources[0].TargetNamespace = "default" },
			"spec.sources[].targetNamespace must be a namespace of this tenant"},
		"depends on unknown source": {func(t *v1alpha1.Tenant) { t.Spec.Sources[2].DependsOn = []string{"ghost"} },
			"spec.sources[].dependsOn must name another source of this tenant"},
		"depends on itself": {func(t *v1alpha1.Tenant) { t.Spec.Sources[2].DependsOn = []string{"apps", "late"} },
			"spec.sources[].dependsOn must name another source of this tenant"},
		"depends on a template": {func(t *v1alpha1.Tenant) { t.Spec.Sources[2].DependsOn = []string{"base"} },
			"spec.sources[].dependsOn must name another source of this tenant of the same kind, git or template"},
		"decryption without keys": {func(t *v1alpha1.Tenant) { t.Spec.Sources[0].Decryption = &v1alpha1.Decryption{} },
			"spec.sources[0].decryption.secretRef: Required value"},
		"variable name": {func(t *v1alpha1.Tenant) { t.Spec.Variables["1BAD"] = "x" },
			"spec.variables keys must be shell-style names"},
		"built-in variable": {func(t *v1alpha1.Tenant) { t.Spec.Variables["TENANT_NAME"] = "other" },
			"spec.variables must not set TENANT_NAME"},
		"cluster-admin role": {func(t *v1alpha1.Tenant) { t.Spec.Role = "cluster-admin" },
			"spec.role must not be cluster-admin"},
		"cluster-wide admin grant": {func(t *v1alpha1.Tenant) { t.Spec.ExtraClusterRoles = []string{"view", "cluster-admin"} },
			"spec.extraClusterRoles must not grant"},
		"owner kind": {func(t *v1alpha1.Tenant) { t.Spec.Owners[0].Kind = "Robot" },
			`spec.owners[0].kind: Unsupported value: "Robot"`},
		"service account owner without namespace": {func(t *v1alpha1.Tenant) { t.Spec.Owners[1].Namespace = "" },
			"spec.owners[].namespace is required for kind ServiceAccount"},
		"every user an owner": {func(t *v1alpha1.Tenant) {
			t.Spec.Owners[0] = v1alpha1.Owner{Kind: "Group", Name: "system:authenticated"}
		},
			"spec.owners[0].name: Forbidden: spec.owners[].name must not be system:authenticated"},
		"an owner named like the reconciler elsewhere": {func(t *v1alpha1.Tenant) {
			t.Spec.Owners[1] = v1alpha1.Owner{Kind: "ServiceAccount", Namespace: "ops", Name: t.ReconcilerName()}
		}, "spec.owners: Forbidden: spec.owners[]: a ServiceAccount named like the tenant's reconciler must be in one of spec.namespaces"},
		"pod security level": {func(t *v1alpha1.Tenant) { t.Spec.PodSecurity = "lax" },
			`spec.podSecurity: Unsupported value: "lax"`},
		"deletion policy": {func(t *v1alpha1.Tenant) { t.Spec.DeletionPolicy = "Orphan" },
			`spec.deletionPolicy: Unsupported value: "Orphan"`},
		"network isolation": {func(t *v1alpha1.Tenant) { t.Spec.Network.Isolation = "Cluster" },
			`spec.network.isolation: Unsupported value: "Cluster"`},
		"service type": {func(t *v1alpha1.Tenant) { t.Spec.Network.AllowServiceTypes = []corev1.ServiceType{"ClusterIP"} },
			`spec.network.allowServiceTypes[0]: Unsupported value: "ClusterIP"`},
		"self-service limit": {func(t *v1alpha1.Tenant) { t.Spec.SelfService.MaxNamespaces = 0 },
			"spec.selfService.maxNamespaces"},
		"tenant name": {func(t *v1alpha1.Tenant) { t.Name = "a.b" },
			"metadata.name must be a DNS label"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tenant := validTenant()
			tc.mutate(tenant)
			err := k8s.Create(context.Background(), tenant, client.DryRunAll)
			if err == nil {
				t.Fatalf("accepted, want an error with %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}
