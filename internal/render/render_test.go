package render_test

import (
	"bytes"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/kinds"
	"github.com/landlord-dev/landlord/internal/render"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func tenant(name string, namespaces ...string) *v1alpha1.Tenant {
	t := &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, ns := range namespaces {
		t.Spec.Namespaces = append(t.Spec.Namespaces, v1alpha1.TenantNamespace{Name: ns})
	}
	return t
}

// full sets every field the render reads.
func full() *v1alpha1.Tenant {
	t := tenant("dev-team", "apps", "apps-jobs")
	t.Spec.Owners = []v1alpha1.Owner{{Kind: "Group", Name: "dev-team"}, {Kind: "User", Name: "ana"}, {Kind: "ServiceAccount", Name: "ci", Namespace: "ci"}}
	t.Spec.ServiceAccountName = "flux-reconciler"
	t.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{"requests.cpu": resource.MustParse("4"), "pods": resource.MustParse("50")}}
	t.Spec.LimitRange = &v1alpha1.LimitRange{Limits: []corev1.LimitRangeItem{{
		Type:           corev1.LimitTypeContainer,
		Default:        corev1.ResourceList{"cpu": resource.MustParse("500m")},
		DefaultRequest: corev1.ResourceList{"cpu": resource.MustParse("100m")},
	}}}
	t.Spec.Network.AllowFrom = []string{"ingress-nginx", "monitoring"}
	t.Spec.Variables = map[string]string{"CLUSTER_ENV": "staging", "DOMAIN": "dev.example.com"}
	t.Spec.Sources = []v1alpha1.Source{
		{
			Name:       "dev-team",
			Git:        &v1alpha1.GitSource{URL: "ssh://git@git.example.com/org/dev-team", Ref: &v1alpha1.GitRef{Branch: "main"}, SecretRef: "dev-team-auth"},
			Path:       "./staging",
			Interval:   &metav1.Duration{Duration: 10 * 60e9},
			Timeout:    &metav1.Duration{Duration: 3 * 60e9},
			Decryption: &v1alpha1.Decryption{Provider: "sops", SecretRef: "dev-team-sops"},
		},
		{
			Name:            "monitoring",
			Template:        &v1alpha1.GitSource{URL: "https://git.example.com/platform/monitoring", Ref: &v1alpha1.GitRef{Tag: "v1.4.0"}},
			Path:            "./tenant",
			Prune:           ptr.To(false),
			TargetNamespace: "apps-jobs",
		},
		{
			Name:       "alerts",
			Template:   &v1alpha1.GitSource{URL: "https://git.example.com/platform/alerts", SecretRef: "platform-git"},
			Decryption: &v1alpha1.Decryption{Provider: "sops", SecretRef: "platform-sops"},
			DependsOn:  []string{"monitoring"},
		},
	}
	return t
}

func TestObjectsGolden(t *testing.T) {
	cases := map[string]*v1alpha1.Tenant{
		"minimal": tenant("solo", "solo"),
		"full":    full(),
		"open": func() *v1alpha1.Tenant {
			t := tenant("lab", "lab")
			t.Spec.Network.Isolation = v1alpha1.NetworkIsolationNone
			t.Spec.PodSecurity = v1alpha1.PodSecurityPrivileged
			return t
		}(),
		"cluster-grants": func() *v1alpha1.Tenant {
			t := tenant("observer", "observer")
			t.Spec.ExtraClusterRoles = []string{"view", "system:aggregate-to-view"}
			return t
		}(),
		"suspended": func() *v1alpha1.Tenant {
			t := tenant("frozen", "frozen")
			t.Spec.Suspend = true
			t.Spec.Sources = []v1alpha1.Source{{Name: "frozen", Git: &v1alpha1.GitSource{URL: "https://git.example.com/frozen", Ref: &v1alpha1.GitRef{SemVer: ">=1.0.0"}}}}
			return t
		}(),
	}
	for name, tn := range cases {
		t.Run(name, func(t *testing.T) {
			objects, err := render.Objects(tn, render.Holdings{})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", name+".golden.yaml"), objects...)
		})
	}
}

func TestTenantClusterRoleGolden(t *testing.T) {
	golden(t, filepath.Join("testdata", "tenant-role.golden.yaml"), render.TenantClusterRole(), render.TenantRules())
}

func golden(t *testing.T, path string, objects ...client.Object) {
	t.Helper()
	var got bytes.Buffer
	for _, obj := range objects {
		data, err := yaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		got.WriteString("---\n")
		got.Write(data)
	}
	if *update {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/render -update to write it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("render differs from %s (run with -update after checking):\n%s", path, got.String())
	}
}

func TestEveryObjectCarriesTheTenantMark(t *testing.T) {
	objects, err := render.Objects(full(), render.Holdings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range objects {
		l := obj.GetLabels()
		if l[v1alpha1.TenantLabel] != "dev-team" || l[v1alpha1.ManagedByLabel] != v1alpha1.ManagedByValue {
			t.Errorf("%T %s labels = %v", obj, obj.GetName(), l)
		}
		if obj.GetObjectKind().GroupVersionKind().Kind == "" {
			t.Errorf("%T %s has no kind", obj, obj.GetName())
		}
	}
}

func TestGuardRails(t *testing.T) {
	objects, err := render.Objects(full(), render.Holdings{})
	if err != nil {
		t.Fatal(err)
	}
	var policies, kustomizations, bindings int
	for _, obj := range objects {
		switch o := obj.(type) {
		case *corev1.Namespace:
			if o.Labels["pod-security.kubernetes.io/enforce"] != "restricted" {
				t.Errorf("namespace %s enforces %q, want restricted by default", o.Name, o.Labels["pod-security.kubernetes.io/enforce"])
			}
		case *networkingv1.NetworkPolicy:
			policies++
			if len(o.Spec.PodSelector.MatchLabels)+len(o.Spec.PodSelector.MatchExpressions) != 0 {
				t.Errorf("%s/%s selects only some pods", o.Namespace, o.Name)
			}
			var from []string
			for _, peer := range o.Spec.Ingress[0].From {
				for k, v := range peer.NamespaceSelector.MatchLabels {
					from = append(from, k+"="+v)
				}
			}
			want := []string{"landlord.dev/tenant=dev-team", "kubernetes.io/metadata.name=ingress-nginx", "kubernetes.io/metadata.name=monitoring"}
			if !slices.Equal(from, want) {
				t.Errorf("%s/%s admits %v, want %v", o.Namespace, o.Name, from, want)
			}
		case *kustomizev1.Kustomization:
			kustomizations++
			// A template's, with its Secrets, lives where the tenant has no
			// access and applies as the tenant's account there.
			ns, account := "apps", "flux-reconciler"
			if o.Labels[render.SourceLabel] == render.SourceTemplate {
				ns, account = render.TemplatesNamespace, "dev-team"
				if !strings.HasPrefix(o.Spec.TargetNamespace, "apps") {
					t.Errorf("template Kustomization %s targets %q, want a tenant namespace", o.Name, o.Spec.TargetNamespace)
				}
			}
			if o.Spec.ServiceAccountName != account {
				t.Errorf("Kustomization %s runs as %q, want %q", o.Name, o.Spec.ServiceAccountName, account)
			}
			if o.Namespace != ns || o.Spec.SourceRef.Namespace != "" {
				t.Errorf("Kustomization %s in %q with source in %q, want both in %s", o.Name, o.Namespace, o.Spec.SourceRef.Namespace, ns)
			}
		case *rbacv1.RoleBinding:
			if o.Name != render.ReconcilerBinding {
				continue
			}
			bindings++
			for _, s := range o.Subjects {
				if !strings.HasPrefix(s.Namespace, "apps") || s.Name != "flux-reconciler" {
					t.Errorf("%s/%s binds %+v", o.Namespace, o.Name, s)
				}
			}
		}
	}
	if policies != 2 || kustomizations != 3 || bindings != 2 {
		t.Errorf("got %d NetworkPolicies, %d Kustomizations, %d reconciler bindings; want 2, 3 and 2", policies, kustomizations, bindings)
	}
}

func TestInvalidTenantNamesTheField(t *testing.T) {
	cases := map[string]struct {
		tenant *v1alpha1.Tenant
		want   string
	}{
		"built-in variable": {func() *v1alpha1.Tenant {
			t := tenant("a", "a")
			t.Spec.Variables = map[string]string{"TENANT_NAME": "b"}
			return t
		}(), "spec.variables: Forbidden: spec.variables must not set TENANT_NAME"},
		"sources without namespaces": {func() *v1alpha1.Tenant {
			t := tenant("a")
			t.Spec.Sources = []v1alpha1.Source{{Name: "s", Git: &v1alpha1.GitSource{URL: "https://x"}}}
			return t
		}(), "spec.namespaces"},
		"foreign target namespace": {func() *v1alpha1.Tenant {
			t := tenant("a", "a")
			t.Spec.Sources = []v1alpha1.Source{{Name: "s", Git: &v1alpha1.GitSource{URL: "https://x"}, TargetNamespace: "default"}}
			return t
		}(), "spec.sources[].targetNamespace must be a namespace of this tenant"},
		"decryption with the controller's keys": {func() *v1alpha1.Tenant {
			t := tenant("a", "a")
			t.Spec.Sources = []v1alpha1.Source{{Name: "s", Git: &v1alpha1.GitSource{URL: "https://x"}, Decryption: &v1alpha1.Decryption{Provider: "sops"}}}
			return t
		}(), "spec.sources[0].decryption.secretRef"},
		"own source after a template": {func() *v1alpha1.Tenant {
			t := tenant("a", "a")
			t.Spec.Sources = []v1alpha1.Source{{Name: "s", Git: &v1alpha1.GitSource{URL: "https://x"}, DependsOn: []string{"base"}},
				{Name: "base", Template: &v1alpha1.GitSource{URL: "https://y"}}}
			return t
		}(), "spec.sources[].dependsOn must name another source of this tenant of the same kind"},
		"the templates namespace": {tenant("a", "landlord-templates"), "spec.namespaces[0].name"},
		"owner kind": {func() *v1alpha1.Tenant {
			t := tenant("a", "a")
			t.Spec.Owners = []v1alpha1.Owner{{Kind: "Robot", Name: "r"}}
			return t
		}(), "spec.owners[0].kind"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := render.Objects(tc.tenant, render.Holdings{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one naming %s", err, tc.want)
			}
		})
	}
}

func TestSelfServiceNamespacesGetGuardRails(t *testing.T) {
	tn := tenant("crew", "crew")
	tn.Spec.SelfService = &v1alpha1.SelfService{Prefix: "crew-", MaxNamespaces: 2}
	tn.Spec.Quota = &v1alpha1.Quota{Hard: corev1.ResourceList{"pods": resource.MustParse("5")}}
	objects, err := render.Objects(tn, render.Holdings{SelfService: []string{"crew-preview"}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "self-service.golden.yaml"), objects...)

	// Adopted ones stay when the prefix changes or the limit is lowered.
	for name, adopted := range map[string][]string{"over the limit": {"crew-a", "crew-b", "crew-c"}, "without the prefix": {"preview"}} {
		if _, err := render.Objects(tn, render.Holdings{SelfService: adopted}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, adopted := range map[string][]string{
		"an assigned one":      {"crew"},
		"without self-service": nil,
	} {
		t.Run(name, func(t *testing.T) {
			tn := tn.DeepCopy()
			if adopted == nil {
				tn.Spec.SelfService, adopted = nil, []string{"crew-a"}
			}
			if _, err := render.Objects(tn, render.Holdings{SelfService: adopted}); err == nil || !strings.Contains(err.Error(), "spec.selfService") {
				t.Errorf("error = %v, want one naming spec.selfService", err)
			}
		})
	}
}

// TestHoldings: nothing is rendered in a namespace the tenant does not
// hold, and no binding names an account there or one another writer made.
func TestHoldings(t *testing.T) {
	tn := full()
	tn.Spec.SelfService = &v1alpha1.SelfService{Prefix: "apps-", MaxNamespaces: 2}
	tn.Spec.ExtraClusterRoles = []string{"crd-viewer"}
	held := render.Holdings{
		SelfService:     []string{"apps-preview"},
		Refused:         []string{"apps-jobs"},
		ForeignAccounts: []types.NamespacedName{{Namespace: "apps-preview", Name: tn.ReconcilerName()}},
	}
	objects, err := render.Objects(tn, held)
	if err != nil {
		t.Fatal(err)
	}
	bindings := 0
	for _, obj := range objects {
		where := obj.GetNamespace()
		if _, ok := obj.(*corev1.Namespace); ok {
			where = obj.GetName()
		}
		if where == "apps-jobs" {
			t.Errorf("%T %s rendered in the refused namespace", obj, client.ObjectKeyFromObject(obj))
		}
		var subjects []rbacv1.Subject
		switch b := obj.(type) {
		case *rbacv1.RoleBinding:
			subjects = b.Subjects
		case *rbacv1.ClusterRoleBinding:
			subjects = b.Subjects
		default:
			continue
		}
		bindings++
		for _, s := range subjects {
			if s.Kind == rbacv1.ServiceAccountKind && (s.Namespace == "apps-jobs" || s.Namespace == "apps-preview" && s.Name == tn.ReconcilerName()) {
				t.Errorf("%T %s binds %s/%s, which the tenant does not hold", obj, client.ObjectKeyFromObject(obj), s.Namespace, s.Name)
			}
		}
	}
	// The guard rails of apps and apps-preview, the extra and self-service
	// cluster bindings: the refusal removed only what it must.
	whole, err := render.Objects(tn, render.Holdings{SelfService: held.SelfService})
	if err != nil {
		t.Fatal(err)
	}
	if len(objects) >= len(whole) || bindings == 0 {
		t.Errorf("%d objects with %d bindings, want fewer than the %d without refusals and some bindings", len(objects), bindings, len(whole))
	}
	if !slices.ContainsFunc(objects, func(o client.Object) bool { return o.GetNamespace() == "apps-preview" }) {
		t.Error("the adopted namespace lost its guard rails")
	}
}

// TestTenantWideQuota: the namespaces' limits add up to the tenant's,
// never more, whatever each uses, the excess of a tenant already over
// cut from the namespaces using most; what does not divide goes to the
// namespaces using least, in whole units.
func TestTenantWideQuota(t *testing.T) {
	tn := tenant("pool", "pool-a", "pool-b")
	tn.Spec.SelfService = &v1alpha1.SelfService{Prefix: "pool-", MaxNamespaces: 2}
	tn.Spec.Quota = &v1alpha1.Quota{Scope: v1alpha1.QuotaScopeTenant, Hard: corev1.ResourceList{
		"services": resource.MustParse("3"), "requests.cpu": resource.MustParse("2"),
	}}
	cases := map[string]struct {
		used    map[string]corev1.ResourceList
		want    map[string]string // namespace -> services, requests.cpu
		checked map[string]corev1.ResourceList
	}{
		"nothing used": {nil, map[string]string{"pool-a": "1 667m", "pool-b": "1 667m", "pool-x": "1 666m"}, nil},
		"a uses two":   {map[string]corev1.ResourceList{"pool-a": {"services": resource.MustParse("2")}}, map[string]string{"pool-a": "2 667m", "pool-b": "1 667m", "pool-x": "0 666m"}, nil},
		"over, after a lowered limit": {map[string]corev1.ResourceList{"pool-a": {"services": resource.MustParse("4"), "requests.cpu": resource.MustParse("2500m")}},
			map[string]string{"pool-a": "3 2", "pool-b": "0 0", "pool-x": "0 0"}, nil},
		"a namespace being deleted still counts": {map[string]corev1.ResourceList{"pool-gone": {"services": resource.MustParse("2")}},
			map[string]string{"pool-a": "1 667m", "pool-b": "0 667m", "pool-x": "0 666m"}, nil},
		"over, the namespace that won the race pays first": {map[string]corev1.ResourceList{"pool-a": {"services": resource.MustParse("3")}, "pool-b": {"services": resource.MustParse("2")}},
			map[string]string{"pool-a": "3 667m", "pool-b": "0 667m", "pool-x": "0 666m"},
			map[string]corev1.ResourceList{"pool-a": {"services": resource.MustParse("3")}, "pool-b": {"services": resource.MustParse("1")}}},
		"over in two namespaces": {map[string]corev1.ResourceList{"pool-a": {"services": resource.MustParse("2")}, "pool-b": {"services": resource.MustParse("3")}},
			map[string]string{"pool-a": "2 667m", "pool-b": "1 667m", "pool-x": "0 666m"}, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objects, err := render.Objects(tn, render.Holdings{SelfService: []string{"pool-x"}, QuotaUsed: tc.used, QuotaChecked: tc.checked})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, obj := range objects {
				if q, ok := obj.(*corev1.ResourceQuota); ok {
					got[q.Namespace] = q.Spec.Hard.Name("services", resource.DecimalSI).String() + " " + q.Spec.Hard.Name("requests.cpu", resource.DecimalSI).String()
					if q.Labels[render.QuotaScopeLabel] != "Tenant" {
						t.Errorf("quota in %s lacks the tenant-wide mark: %v", q.Namespace, q.Labels)
					}
				}
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("hard services, requests.cpu by namespace = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRenderedKindsAreOwned: every kind the render makes, of a Tenant with
// every field, notifications, self-service, extra roles, an approved
// cluster resource and a stamp of each stampable kind, is one the
// registry has the controller own, and so cache, watch and prune.
func TestRenderedKindsAreOwned(t *testing.T) {
	tn := full()
	tn.Spec.Notifications = &v1alpha1.Notifications{Type: "slack", SecretRef: "slack"}
	tn.Spec.SelfService = &v1alpha1.SelfService{Prefix: "dev-team-", MaxNamespaces: 2}
	tn.Spec.ExtraClusterRoles = []string{"crd-reader"}
	tn.Spec.ClusterResources = []v1alpha1.ClusterResource{{APIGroup: "storage.k8s.io", Kind: "StorageClass", Names: []string{"fast"}}}
	h := render.Holdings{
		SelfService: []string{"dev-team-x"},
		Served:      map[schema.GroupKind]string{{Group: "storage.k8s.io", Kind: "StorageClass"}: "storageclasses"},
	}
	for _, k := range render.StampKinds {
		h.Stamps = append(h.Stamps, render.Stamp{From: "base", Field: "spec.objects[0]",
			Object: []byte(`{"apiVersion":"` + k.GroupVersion().String() + `","kind":"` + k.Kind + `","metadata":{"name":"stamped"}}`)})
	}
	objects, err := render.Objects(tn, h)
	if err != nil {
		t.Fatal(err)
	}
	made := map[schema.GroupKind]bool{}
	for _, obj := range objects {
		gk := obj.GetObjectKind().GroupVersionKind().GroupKind()
		made[gk] = true
		if k, ok := kinds.Lookup(gk); !ok || k.Owned == kinds.Unowned {
			t.Errorf("the render makes %s %s, a kind the controller does not own", gk, client.ObjectKeyFromObject(obj))
		}
	}
	for _, k := range kinds.All {
		if k.Owned != kinds.Unowned && !made[k.GroupKind()] {
			t.Errorf("the controller owns %s, which this render never makes: extend the Tenant here", k.GroupKind())
		}
	}
}

// TestPolicyLabelsSetEveryKey: a withdrawn allowance changes a label's
// value, never removes the label, so that the controller's forced apply
// overwrites what a tenant co-owning the label applied; each namespace
// carries them.
func TestPolicyLabelsSetEveryKey(t *testing.T) {
	tn := tenant("crew", "crew")
	open := tn.DeepCopy()
	open.Spec.Network.AllowServiceTypes = []corev1.ServiceType{corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort}
	open.Spec.AllowWorkloadIdentity = true
	closed, opened := render.PolicyLabels(tn), render.PolicyLabels(open)
	if !slices.Equal(slices.Sorted(maps.Keys(closed)), slices.Sorted(maps.Keys(opened))) {
		t.Fatalf("keys differ: %v and %v", closed, opened)
	}
	if got := opened[v1alpha1.ServiceTypesLabel]; got != "LoadBalancer.NodePort" {
		t.Errorf("service types %q, want LoadBalancer.NodePort", got)
	}
	if closed[v1alpha1.ServiceTypesLabel] != "" || closed[v1alpha1.WorkloadIdentityLabel] != "false" || opened[v1alpha1.WorkloadIdentityLabel] != "true" {
		t.Errorf("closed %v, opened %v", closed, opened)
	}
	objects, err := render.Objects(open, render.Holdings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range objects {
		if ns, ok := obj.(*corev1.Namespace); ok {
			for k, v := range opened {
				if ns.Labels[k] != v {
					t.Errorf("namespace %s: label %s=%q, want %q", ns.Name, k, ns.Labels[k], v)
				}
			}
		}
	}
}
