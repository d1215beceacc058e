package webhook_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

// blueQuota is blue's spec.quota: compute, storage and object counts, as
// MTB-PL1-CC-FNS-1 and -2 ask; generous, so that only an oversized request
// meets it.
var blueQuota = corev1.ResourceList{
	corev1.ResourcePods:                   mustQuantity("10"),
	corev1.ResourcePersistentVolumeClaims: mustQuantity("10"),
	corev1.ResourceServicesNodePorts:      mustQuantity("0"),
	corev1.ResourceServicesLoadBalancers:  mustQuantity("0"),
	corev1.ResourceRequestsCPU:            mustQuantity("16"),
	corev1.ResourceRequestsMemory:         mustQuantity("64Gi"),
	corev1.ResourceRequestsStorage:        mustQuantity("100Gi"),
}

// probe is one request of a checklist item, sent through the real API.
type probe struct {
	// as is the identity (see attack.as); "" sends the request as blue's
	// owner and as its reconciler, each of which must get the same answer.
	as string
	do func(c client.Client) error
	// want judges the error of a request the check refuses; nil marks a
	// legitimate request, which must pass.
	want verdict
}

// verdict returns nil if err is the refusal a check expects.
type verdict func(err error) error

// byRule expects a denial by the guard's rule id.
func byRule(id string) verdict {
	return func(err error) error {
		status := &apierrors.StatusError{}
		if errors.As(err, &status) && status.ErrStatus.Code == 403 && strings.Contains(err.Error(), id+":") {
			return nil
		}
		return fmt.Errorf("got %v, want a denial by %s", err, id)
	}
}

// byRBAC expects RBAC to refuse the request before any admission.
func byRBAC(err error) error {
	if apierrors.IsForbidden(err) && strings.Contains(err.Error(), " cannot ") && !strings.Contains(err.Error(), "LL0") {
		return nil
	}
	return fmt.Errorf("got %v, want Forbidden by RBAC", err)
}

// byGuardNotFound expects the guard to answer LL009 for a namespace not the
// tenant's as the apiserver would for one that does not exist.
func byGuardNotFound(err error) error {
	if apierrors.IsNotFound(err) && strings.Contains(err.Error(), "denied the request") {
		return nil
	}
	return fmt.Errorf("got %v, want NotFound from the guard (LL009)", err)
}

// byPodSecurity expects Pod Security Admission at the namespace's restricted
// level to refuse the pod, naming detail.
func byPodSecurity(detail string) verdict {
	return func(err error) error {
		if err != nil && strings.Contains(err.Error(), `violates PodSecurity "restricted:latest"`) && strings.Contains(err.Error(), detail) {
			return nil
		}
		return fmt.Errorf("got %v, want Pod Security Admission (restricted) to refuse %s", err, detail)
	}
}

// byQuota expects the ResourceQuota admission to refuse the request.
func byQuota(err error) error {
	if apierrors.IsForbidden(err) && strings.Contains(err.Error(), "exceeded quota: "+render.QuotaName) {
		return nil
	}
	return fmt.Errorf("got %v, want %s to refuse it", err, render.QuotaName)
}

// runChecks runs each check as a subtest named after its checklist id,
// each probe as a subtest of it. A check that refuses anything must hold a
// legitimate neighbour that passes.
func runChecks(t *testing.T, checks map[string]map[string]probe) {
	t.Helper()
	attackWorld(t)
	for id, probes := range checks {
		t.Run(id, func(t *testing.T) {
			refused := 0
			for _, p := range probes {
				if p.want != nil {
					refused++
				}
			}
			if refused > 0 && refused == len(probes) {
				t.Errorf("every request of %s is refused: add its legitimate neighbour", id)
			}
			for name, p := range probes {
				t.Run(name, func(t *testing.T) {
					as := []string{p.as}
					if p.as == "" {
						as = []string{"owner", "reconciler"}
					}
					for _, who := range as {
						err := p.do(identities[who])
						if p.want == nil && err != nil {
							t.Errorf("as %s: legitimate request refused: %v", who, err)
						}
						if p.want != nil {
							if e := p.want(err); e != nil {
								t.Errorf("as %s: %v", who, e)
							}
						}
					}
				})
			}
		})
	}
}

// TestBenchmarks runs every Multi-Tenancy Benchmarks check (profile levels
// 1 and 2, kubernetes-sigs/multi-tenancy benchmarks/) that a control plane
// without a kubelet can decide, as tenant blue's owner and reconciler.
// Pod checks are server dry runs: admission is where they are decided. The
// table in docs/security.md maps each id onto these subtests.
func TestBenchmarks(t *testing.T) {
	attackWorld(t)
	clusterScoped, namespaced := apiResources(t)
	managedProbes := multitenantResourceProbes(t)
	own := &networkingv1.NetworkPolicy{ObjectMeta: blueMeta("mtb-web"), Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}}}
	ownRole := &rbacv1.Role{ObjectMeta: blueMeta("mtb-reader"), Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}}}
	for _, obj := range []client.Object{own, ownRole} {
		// Made by the owner for real: self-service, and neighbours to edit.
		if err := identities["owner"].Create(ctx, obj); err != nil {
			t.Fatalf("owner creates %s: %v", obj.GetName(), err)
		}
		t.Cleanup(func() { _ = k8s.Delete(ctx, obj) })
	}
	existing := persistentVolume()
	existing.Name = "mtb-existing"
	if err := k8s.Create(ctx, existing); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, existing) })
	restricted := dryCreate(pod("default"))

	checks := map[string]map[string]probe{
		"MTB-PL1-CC-CPI-1_block_access_to_cluster_resources": {
			"no verb on any cluster-scoped resource but self-service namespaces": {do: grantsOnly("", clusterScoped,
				"create namespaces", "patch namespaces", // self-service; LL009 confines them
				"create selfsubjectaccessreviews.authorization.k8s.io", "create selfsubjectrulesreviews.authorization.k8s.io",
				"create selfsubjectreviews.authentication.k8s.io")}, // every user may ask what it may do
			"list nodes":                      {do: list(&corev1.NodeList{}), want: byRBAC},
			"list persistent volumes":         {do: list(&corev1.PersistentVolumeList{}), want: byRBAC},
			"list cluster roles":              {do: list(&rbacv1.ClusterRoleList{}), want: byRBAC},
			"list tenants":                    {do: list(&v1alpha1.TenantList{}), want: byRBAC},
			"read another tenant's namespace": {do: get(ns("red-apps")), want: byRBAC},
			"create a ClusterRole":            {as: "leaky", do: dryCreate(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "mtb-escape"}}), want: byRule("LL014")},
			"read its own namespace":          {do: get(ns("blue-apps"))},
		},
		"MTB-PL1-CC-TI-2_block_other_tenant_resources": {
			"no verb on any resource of red-apps": {do: grantsOnly("red-apps", namespaced)},
			"read red's config maps":              {do: list(&corev1.ConfigMapList{}, client.InNamespace("red-apps")), want: byRBAC},
			"write in red's namespace":            {do: dryCreate(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "red-apps", Name: "mtb"}}), want: byRBAC},
			"read its own config maps":            {do: list(&corev1.ConfigMapList{}, client.InNamespace("blue-apps"))},
		},
		"MTB-PL1-BC-CPI-2_block_multitenant_resources": managedProbes,
		"MTB-PL1-BC-CPI-3_block_add_capabilities": {
			"add SYS_ADMIN":                      {do: dryCreate(podWith(addCapability("SYS_ADMIN"))), want: byPodSecurity("capabilities.add")},
			"add NET_BIND_SERVICE, dropping all": {do: dryCreate(podWith(addCapability("NET_BIND_SERVICE")))},
		},
		"MTB-PL1-BC-CPI-4_require_run_as_non_root_user": {
			"runAsNonRoot unset": {do: dryCreate(podWith(func(p *corev1.Pod) { p.Spec.SecurityContext.RunAsNonRoot = nil })), want: byPodSecurity("runAsNonRoot=true")},
			"runAsUser 0":        {do: dryCreate(podWith(func(p *corev1.Pod) { p.Spec.SecurityContext.RunAsUser = ptr.To[int64](0) })), want: byPodSecurity("runAsUser=0")},
			"runAsUser 1000":     {do: dryCreate(podWith(func(p *corev1.Pod) { p.Spec.SecurityContext.RunAsUser = ptr.To[int64](1000) }))},
		},
		"MTB-PL1-BC-CPI-5_block_privileged_containers": {
			"privileged container": {do: dryCreate(podWith(privileged)), want: byPodSecurity("privileged")},
			"restricted pod":       {do: restricted},
		},
		"MTB-PL1-BC-CPI-6_block_privilege_escalation": {
			"allowPrivilegeEscalation true": {do: dryCreate(podWith(func(p *corev1.Pod) { p.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = ptr.To(true) })), want: byPodSecurity("allowPrivilegeEscalation=false")},
			"restricted pod":                {do: restricted},
		},
		"MTB-PL1-CC-FNS-1_configure_ns_quotas": {
			"every namespace has its cpu, memory and storage quota, tracked": {do: quotaIn(corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory, corev1.ResourceRequestsStorage)},
			"claim beyond the storage quota":                                 {do: dryCreate(claim("200Gi", "")), want: byQuota},
			"claim within the storage quota":                                 {do: dryCreate(claim("1Gi", ""))},
		},
		"MTB-PL1-CC-FNS-2_configure_ns_object_quota": {
			"every namespace has its object counts, tracked": {do: quotaIn(corev1.ResourcePods, corev1.ResourcePersistentVolumeClaims, corev1.ResourceServicesNodePorts, corev1.ResourceServicesLoadBalancers)},
		},
		"MTB-PL1-CC-TI-1_block_ns_quota": {
			"no write verb on quotas": {do: grantsOnly("blue-apps", []apiResource{{resource: "resourcequotas"}, {resource: "limitranges"}},
				"get resourcequotas", "list resourcequotas", "watch resourcequotas", "get limitranges", "list limitranges", "watch limitranges")},
			"update the quota":                              {do: mutate(&corev1.ResourceQuota{ObjectMeta: blueMeta(render.QuotaName)}, raisePods), want: byRBAC},
			"delete the quota":                              {do: remove(&corev1.ResourceQuota{ObjectMeta: blueMeta(render.QuotaName)}), want: byRBAC},
			"create a second quota":                         {do: dryCreate(&corev1.ResourceQuota{ObjectMeta: blueMeta("mtb-more"), Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: mustQuantity("100")}}}), want: byRBAC},
			"update the quota, as cluster-admin by mistake": {as: "leaky", do: mutate(&corev1.ResourceQuota{ObjectMeta: blueMeta(render.QuotaName)}, raisePods), want: byRule("LL010")},
			"read the quota":                                {do: get(&corev1.ResourceQuota{ObjectMeta: blueMeta(render.QuotaName)})},
		},
		"MTB-PL1-BC-HI-1_block_use_of_host_path": {
			"hostPath volume": {do: dryCreate(podWith(withVolume(corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/etc"}}))), want: byPodSecurity("hostPath")},
			"emptyDir volume": {do: dryCreate(podWith(withVolume(corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}})))},
		},
		"MTB-PL1-BC-HI-1_block_use_of_nodeport_services": {
			"NodePort service":     {do: dryCreate(service(corev1.ServiceTypeNodePort, nil)), want: byRule("LL013")},
			"LoadBalancer service": {do: dryCreate(service(corev1.ServiceTypeLoadBalancer, nil)), want: byRule("LL013")},
			"ClusterIP service":    {do: dryCreate(service(corev1.ServiceTypeClusterIP, nil))},
		},
		"MTB-PL1-BC-HI-3_block_use_of_host_networking_and_ports": {
			"hostNetwork": {do: dryCreate(podWith(func(p *corev1.Pod) { p.Spec.HostNetwork = true })), want: byPodSecurity("hostNetwork=true")},
			"hostPort": {do: dryCreate(podWith(func(p *corev1.Pod) {
				p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 8080}}
			})), want: byPodSecurity("hostPort")},
			"container port": {do: dryCreate(podWith(func(p *corev1.Pod) {
				p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080}}
			}))},
		},
		"MTB-PL1-BC-HI-4_block_use_of_host_pid": {
			"hostPID":        {do: dryCreate(podWith(func(p *corev1.Pod) { p.Spec.HostPID = true })), want: byPodSecurity("hostPID=true")},
			"restricted pod": {do: restricted},
		},
		"MTB-PL1-BC-HI-5_block_use_of_host_ipc": {
			"hostIPC":        {do: dryCreate(podWith(func(p *corev1.Pod) { p.Spec.HostIPC = true })), want: byPodSecurity("hostIPC=true")},
			"restricted pod": {do: restricted},
		},
		// Listed as pending in MTB's README (issues 1198-1201).
		"MTB-PL1-require_persistentvolumeclaim_for_storage": {
			"inline NFS volume": {do: dryCreate(podWith(withVolume(corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "nfs.example.com", Path: "/"}}))), want: byPodSecurity(`"nfs"`)},
			"claim volume":      {do: dryCreate(podWith(withVolume(corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}})))},
		},
		"MTB-PL1-require_pv_reclaim_policy_of_delete": {
			// Tenants never create volumes: a claim's volume takes its
			// reclaim policy from the platform's StorageClass.
			"create a PersistentVolume":                              {do: dryCreate(persistentVolume()), want: byRBAC},
			"create a PersistentVolume, as cluster-admin by mistake": {as: "leaky", do: dryCreate(persistentVolume()), want: byRule("LL014")},
			"create a StorageClass":                                  {do: dryCreate(storageClass()), want: byRBAC},
			"claim from the platform's storage":                      {do: dryCreate(claim("1Gi", ""))},
		},
		"MTB-PL1-block_use_of_existing_pvs": {
			"claim naming an existing volume": {do: dryCreate(claim("1Gi", "mtb-existing")), want: byRule("LL020")},
			"claim naming no volume":          {do: dryCreate(claim("1Gi", ""))},
		},
		"MTB-PL1-BC-NI-1_default_deny_network_connections_across_tenants": {
			"every namespace admits ingress only from its tenant": {do: isolatedNamespaces},
			"label a self-service namespace for red":              {as: "reconciler", do: dryCreate(labelledNamespace("blue-spy", "red")), want: byRule("LL009")},
			"relabel its namespace for red, as cluster-admin by mistake": {as: "leaky", do: mutate(ns("blue-apps"), func(o client.Object) {
				o.SetLabels(map[string]string{v1alpha1.TenantLabel: "red"})
			}), want: byRule("LL009")},
			"edit the managed NetworkPolicy": {do: mutate(&networkingv1.NetworkPolicy{ObjectMeta: blueMeta(render.NetworkPolicyName)}, func(o client.Object) {
				o.(*networkingv1.NetworkPolicy).Spec.Ingress = []networkingv1.NetworkPolicyIngressRule{{}}
			}), want: byRule("LL010")},
			"edit its own NetworkPolicy": {do: mutate(own.DeepCopy(), func(o client.Object) {
				o.(*networkingv1.NetworkPolicy).Spec.Ingress = []networkingv1.NetworkPolicyIngressRule{{}}
			})},
		},

		"MTB-PL2-BC-OPS-3_create_role_bindings": {
			"every verb on roles and role bindings": {do: grantsAll("blue-apps", "roles.rbac.authorization.k8s.io", "rolebindings.rbac.authorization.k8s.io")},
			"create a Role":                         {do: dryCreate(&rbacv1.Role{ObjectMeta: blueMeta("mtb-writer"), Rules: ownRole.Rules})},
			"bind its Role to its service account": {do: dryCreate(&rbacv1.RoleBinding{ObjectMeta: blueMeta("mtb-reader"),
				RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: ownRole.Name},
				Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "default", Namespace: "blue-apps"}}})},
			"bind the tenant role to its service account":     {do: dryCreate(roleBinding(v1alpha1.DefaultRole, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "default", Namespace: "blue-jobs"}))},
			"bind cluster-admin, as cluster-admin by mistake": {as: "leaky", do: dryCreate(roleBinding("cluster-admin", rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "default", Namespace: "blue-apps"})), want: byRule("LL015")},
		},
		"MTB-PL2-BC-OPS-4_create_network_policies": {
			"every verb on network policies": {do: grantsAll("blue-apps", "networkpolicies.networking.k8s.io")},
			"create a NetworkPolicy":         {do: dryCreate(&networkingv1.NetworkPolicy{ObjectMeta: blueMeta("mtb-more"), Spec: own.Spec})},
			"update its NetworkPolicy":       {do: mutate(own.DeepCopy(), annotateProbe)},
			"delete its NetworkPolicy":       {do: remove(own.DeepCopy())},
		},
		// MTB's definitions give tenant administrators self-service
		// namespaces; no check id tests it.
		"MTB-PL2-self_service_namespaces": {
			"namespace within its prefix and limit": {as: "reconciler", do: dryCreate(labelledNamespace("blue-three", "blue"))},
			"namespace outside its prefix":          {as: "reconciler", do: dryCreate(labelledNamespace("mtb-free", "blue")), want: byGuardNotFound},
			"namespace over its limit":              {as: "green", do: dryCreate(labelledNamespace("green-two", "green")), want: byRule("LL009")},
		},
	}
	runChecks(t, checks)
}

// dryCreate is a server dry-run create of a fresh copy of obj each time:
// a dry run fills in fields (a Service's cluster IP) the next must not
// carry.
func dryCreate(obj client.Object) func(client.Client) error {
	return func(c client.Client) error { return c.Create(ctx, obj.DeepCopyObject().(client.Object), dry) }
}

// mtbVerbs are the verbs MTB's configuration checks ask `kubectl auth can-i`.
var mtbVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}

// apiResource is a resource as `kubectl auth can-i` names it.
type apiResource struct{ group, resource string }

func (r apiResource) String() string {
	if r.group == "" {
		return r.resource
	}
	return r.resource + "." + r.group
}

// apiResources lists, from discovery, every cluster-scoped and every
// namespaced resource the control plane serves, subresources aside.
func apiResources(t *testing.T) (clusterScoped, namespaced []apiResource) {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			res := apiResource{group: gv.Group, resource: r.Name}
			if r.Namespaced {
				namespaced = append(namespaced, res)
			} else {
				clusterScoped = append(clusterScoped, res)
			}
		}
	}
	if len(clusterScoped) < 10 || len(namespaced) < 20 {
		t.Fatalf("discovery found %d cluster-scoped and %d namespaced resources, too few to be the whole API", len(clusterScoped), len(namespaced))
	}
	return clusterScoped, namespaced
}

// canI asks, as c, whether it may do verb on resource in ns, as `kubectl
// auth can-i` does.
func canI(c client.Client, ns string, r apiResource, verb string) (bool, error) {
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Group: r.group, Resource: r.resource, Verb: verb},
	}}
	if err := c.Create(ctx, review); err != nil {
		return false, err
	}
	return review.Status.Allowed, nil
}

// grantsOnly fails unless the identity is refused every MTB verb on every
// resource in ns ("" for cluster scope), except the "verb resource"
// accesses of allow.
func grantsOnly(ns string, resources []apiResource, allow ...string) func(client.Client) error {
	return func(c client.Client) error {
		var granted []string
		for _, r := range resources {
			for _, verb := range mtbVerbs {
				ok, err := canI(c, ns, r, verb)
				if err != nil {
					return err
				}
				if access := verb + " " + r.String(); ok && !slices.Contains(allow, access) {
					granted = append(granted, access)
				}
			}
		}
		if len(granted) > 0 {
			return fmt.Errorf("granted in %q: %s", ns, strings.Join(granted, ", "))
		}
		return nil
	}
}

// grantsAll fails unless the identity holds every MTB verb on each of the
// named resources ("resource.group") in ns.
func grantsAll(ns string, resources ...string) func(client.Client) error {
	return func(c client.Client) error {
		var refused []string
		for _, name := range resources {
			resource, group, _ := strings.Cut(name, ".")
			for _, verb := range mtbVerbs {
				ok, err := canI(c, ns, apiResource{group: group, resource: resource}, verb)
				if err != nil {
					return err
				}
				if !ok {
					refused = append(refused, verb+" "+name)
				}
			}
		}
		if len(refused) > 0 {
			return fmt.Errorf("refused in %q: %s", ns, strings.Join(refused, ", "))
		}
		return nil
	}
}

// multitenantResourceProbes annotates and deletes, as the tenant, every
// object Landlord manages in blue-apps, as MTB's audit does with the
// administrator's label; the tenant's own NetworkPolicy is the neighbour.
func multitenantResourceProbes(t *testing.T) map[string]probe {
	t.Helper()
	// The kinds the tenant role may not write at all: RBAC refuses them.
	readOnly := map[string]bool{"ResourceQuota": true, "LimitRange": true}
	probes := map[string]probe{
		"annotate its own NetworkPolicy": {do: patchAnnotation(&networkingv1.NetworkPolicy{ObjectMeta: blueMeta("mtb-web")}, probeAnnotation)},
		"delete collection of network policies": {do: func(c client.Client) error {
			return c.DeleteAllOf(ctx, &networkingv1.NetworkPolicy{}, client.InNamespace("blue-apps"), dry)
		}, want: byRule("LL010")},
		"annotate its namespace with a key it may not write": {do: patchAnnotation(ns("blue-apps"), probeAnnotation), want: byRule("LL025")},
		"annotate its namespace with a key it may write":     {do: patchAnnotation(ns("blue-apps"), "blue.example.com/probe")},
	}
	found := map[string]int{}
	for kind, list := range map[string]client.ObjectList{
		"NetworkPolicy": &networkingv1.NetworkPolicyList{}, "RoleBinding": &rbacv1.RoleBindingList{},
		"ServiceAccount": &corev1.ServiceAccountList{}, "ConfigMap": &corev1.ConfigMapList{},
		"ResourceQuota": &corev1.ResourceQuotaList{}, "LimitRange": &corev1.LimitRangeList{},
		"GitRepository": &sourcev1.GitRepositoryList{},
	} {
		if err := k8s.List(ctx, list, client.InNamespace("blue-apps"), client.MatchingLabels{v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue}); err != nil {
			t.Fatal(err)
		}
		items, err := metaItems(list)
		if err != nil {
			t.Fatal(err)
		}
		want := byRule("LL010")
		if readOnly[kind] {
			want = byRBAC
		}
		for _, obj := range items {
			found[kind]++
			probes["annotate "+kind+" "+obj.GetName()] = probe{do: patchAnnotation(obj, probeAnnotation), want: want}
			probes["delete "+kind+" "+obj.GetName()] = probe{do: remove(obj), want: want}
		}
	}
	for _, kind := range []string{"NetworkPolicy", "RoleBinding", "ServiceAccount", "ConfigMap", "ResourceQuota"} {
		if found[kind] == 0 {
			t.Fatalf("no managed %s in blue-apps: the check would test nothing", kind)
		}
	}
	return probes
}

// metaItems are the items of a typed list as client objects.
func metaItems(list client.ObjectList) ([]client.Object, error) {
	var items []client.Object
	switch l := list.(type) {
	case *networkingv1.NetworkPolicyList:
		for i := range l.Items {
			items = append(items, &l.Items[i])
		}
	case *rbacv1.RoleBindingList:
		for i := range l.Items {
			items = append(items, &l.Items[i])
		}
	case *corev1.ServiceAccountList:
		for i := range l.Items {
			items = append(items, &l.Items[i])
		}
	case *corev1.ConfigMapList:
		for i := range l.Items {
			items = append(items, &l.Items[i])
		}
	case *corev1.ResourceQuotaList:
		for i := range l.Items {
			items = append(items, &l.Items[i])
		}
	case *corev1.LimitRangeList:
		for i := range l.Items {
			items = append(items, &l.Items[i])
		}
	case *sourcev1.GitRepositoryList:
		for i := range l.Items {
			items = append(items, &l.Items[i])
		}
	default:
		return nil, fmt.Errorf("list %T not known", list)
	}
	return items, nil
}

// probeAnnotation is the annotation MTB's audit sets on what it probes.
const probeAnnotation = "mtb.landlord.dev/probe"

// patchAnnotation is `kubectl annotate --dry-run=server` of obj with key.
func patchAnnotation(obj client.Object, key string) func(client.Client) error {
	return func(c client.Client) error {
		patch := []byte(`{"metadata":{"annotations":{"` + key + `":"true"}}}`)
		return c.Patch(ctx, obj.DeepCopyObject().(client.Object), client.RawPatch(types.MergePatchType, patch), dry)
	}
}

func annotateProbe(o client.Object) {
	annotations := o.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[probeAnnotation] = "true"
	o.SetAnnotations(annotations)
}

func raisePods(o client.Object) {
	o.(*corev1.ResourceQuota).Spec.Hard[corev1.ResourcePods] = mustQuantity("1000")
}

func get(obj client.Object) func(client.Client) error {
	return func(c client.Client) error {
		return c.Get(ctx, client.ObjectKeyFromObject(obj), obj.DeepCopyObject().(client.Object))
	}
}

func list(l client.ObjectList, opts ...client.ListOption) func(client.Client) error {
	return func(c client.Client) error { return c.List(ctx, l.DeepCopyObject().(client.ObjectList), opts...) }
}

// blueNamespaces are the namespaces blue holds, assigned and self-service.
func blueNamespaces() ([]string, error) {
	list := &corev1.NamespaceList{}
	if err := k8s.List(ctx, list, client.MatchingLabels{v1alpha1.TenantLabel: "blue"}); err != nil {
		return nil, err
	}
	var names []string
	for _, n := range list.Items {
		names = append(names, n.Name)
	}
	if len(names) < 4 {
		return nil, fmt.Errorf("blue holds %v, want blue-apps, blue-jobs, blue-one and blue-two", names)
	}
	return names, nil
}

// quotaIn checks, as the tenant reads it, that every namespace of blue has
// Landlord's quota capping resources, and that the quota controller tracks
// it (status.hard is set, status.used counts).
func quotaIn(resources ...corev1.ResourceName) func(client.Client) error {
	return func(c client.Client) error {
		names, err := blueNamespaces()
		if err != nil {
			return err
		}
		for _, n := range names {
			if err := poll(30*time.Second, func() error { return quotaTracked(c, n, resources) }); err != nil {
				return err
			}
		}
		return nil
	}
}

func quotaTracked(c client.Client, namespace string, resources []corev1.ResourceName) error {
	q := &corev1.ResourceQuota{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: render.QuotaName}, q); err != nil {
		return err
	}
	for _, r := range resources {
		if _, ok := q.Spec.Hard[r]; !ok {
			return fmt.Errorf("%s/%s caps no %s", namespace, q.Name, r)
		}
		if _, ok := q.Status.Used[r]; !ok {
			return fmt.Errorf("%s/%s: the quota controller does not track %s yet", namespace, q.Name, r)
		}
	}
	return nil
}

// isolatedNamespaces checks, as the tenant reads it, that every namespace
// of blue holds Landlord's NetworkPolicy selecting all its pods and
// admitting ingress only from namespaces labelled for blue. Whether packets
// obey it is the CNI's part, which needs nodes.
func isolatedNamespaces(c client.Client) error {
	names, err := blueNamespaces()
	if err != nil {
		return err
	}
	for _, n := range names {
		p := &networkingv1.NetworkPolicy{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: n, Name: render.NetworkPolicyName}, p); err != nil {
			return err
		}
		if len(p.Spec.PodSelector.MatchLabels)+len(p.Spec.PodSelector.MatchExpressions) != 0 || !slices.Contains(p.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) {
			return fmt.Errorf("%s/%s does not select every pod for ingress: %+v", n, p.Name, p.Spec)
		}
		for _, rule := range p.Spec.Ingress {
			for _, peer := range rule.From {
				if peer.NamespaceSelector == nil || peer.PodSelector != nil || peer.IPBlock != nil ||
					peer.NamespaceSelector.MatchLabels[v1alpha1.TenantLabel] != "blue" {
					return fmt.Errorf("%s/%s admits a peer outside tenant blue: %+v", n, p.Name, peer)
				}
			}
		}
	}
	return nil
}

// podWith is a pod the restricted level admits, edited.
func podWith(edit func(*corev1.Pod)) *corev1.Pod {
	p := pod("default")
	edit(p)
	return p
}

func addCapability(c corev1.Capability) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Containers[0].SecurityContext.Capabilities.Add = []corev1.Capability{c} }
}

func withVolume(source corev1.VolumeSource) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: source}}
		p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}
	}
}

// privileged makes the container privileged, which escalation must allow.
func privileged(p *corev1.Pod) {
	p.Spec.Containers[0].SecurityContext.Privileged = ptr.To(true)
	p.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = nil
}

// poll calls check until it returns nil or timeout passes, and returns its
// last error.
func poll(timeout time.Duration, check func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func storageClass() *storagev1.StorageClass {
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "mtb-kept"}, Provisioner: "example.com/nfs",
		ReclaimPolicy: ptr.To(corev1.PersistentVolumeReclaimRetain)}
}

// claim is a PersistentVolumeClaim in blue-apps, naming volume if set.
func claim(size, volume string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: blueMeta("data"), Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: mustQuantity(size)}},
		VolumeName:  volume,
	}}
}

func persistentVolume() *corev1.PersistentVolume {
	return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "mtb-kept"}, Spec: corev1.PersistentVolumeSpec{
		Capacity:                      corev1.ResourceList{corev1.ResourceStorage: mustQuantity("1Gi")},
		AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
		PersistentVolumeSource:        corev1.PersistentVolumeSource{NFS: &corev1.NFSVolumeSource{Server: "nfs.example.com", Path: "/"}},
	}}
}

// TestCapsuleChecklist runs the tenant controls Capsule documents
// (projectcapsule.dev: namespace options, service options, priority and
// storage classes, pod security per tenant) that the Multi-Tenancy
// Benchmarks do not already cover, as blue's owner and reconciler.
func TestCapsuleChecklist(t *testing.T) {
	withAnnotation := func(key string) *corev1.Namespace {
		n := labelledNamespace("blue-three", "blue")
		n.Annotations = map[string]string{key: "pool=blue"}
		return n
	}
	label := func(key, value string) func(client.Client) error {
		patch := []byte(`{"metadata":{"labels":{"` + key + `":"` + value + `"}}}`)
		return func(c client.Client) error {
			return c.Patch(ctx, ns("blue-apps"), client.RawPatch(types.MergePatchType, patch), dry)
		}
	}
	externalIPs := service(corev1.ServiceTypeClusterIP, []string{"203.0.113.7"})
	runChecks(t, map[string]map[string]probe{
		"Capsule_forbidden_namespace_metadata": {
			"self-service namespace with a node selector":          {as: "reconciler", do: dryCreate(withAnnotation("scheduler.alpha.kubernetes.io/node-selector")), want: byRule("LL025")},
			"self-service namespace with a cloud role":             {as: "reconciler", do: dryCreate(withAnnotation("iam.amazonaws.com/role")), want: byRule("LL025")},
			"self-service namespace with an annotation it may set": {as: "reconciler", do: dryCreate(withAnnotation("blue.example.com/owner"))},
			"label its namespace for another tenant's policy":      {do: label("access", "red"), want: byRule("LL025")},
			"label its namespace with a key it may set":            {do: label("team", "web")},
		},
		"Capsule_pod_security_per_tenant": {
			"relax its namespace to privileged": {do: label("pod-security.kubernetes.io/enforce", "privileged"), want: byRule("LL009")},
			"label its namespace with team":     {do: label("team", "web")},
		},
		"Capsule_protected_namespaces_and_forced_prefix": {
			"create landlord-system":       {as: "reconciler", do: dryCreate(labelledNamespace("landlord-system", "blue")), want: byGuardNotFound},
			"create a namespace of red's":  {as: "reconciler", do: dryCreate(labelledNamespace("red-apps", "blue")), want: byGuardNotFound},
			"create one within its prefix": {as: "reconciler", do: dryCreate(labelledNamespace("blue-three", "blue"))},
		},
		"Capsule_external_service_ips": {
			"service with external IPs": {do: dryCreate(externalIPs), want: byRule("LL017")},
			"ClusterIP service":         {do: dryCreate(service(corev1.ServiceTypeClusterIP, nil))},
		},
		"Capsule_service_types": {
			"ExternalName service": {do: dryCreate(&corev1.Service{ObjectMeta: blueMeta("web"), Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "web.red-apps.svc.cluster.local"}}), want: byRule("LL021")},
			"ClusterIP service":    {do: dryCreate(service(corev1.ServiceTypeClusterIP, nil))},
		},
		"Capsule_node_selection": {
			"pod pinned to a node by name": {do: dryCreate(podWith(func(p *corev1.Pod) { p.Spec.NodeName = "worker-1" })), want: byRule("LL019")},
			"pod tolerating every taint":   {do: dryCreate(podWith(func(p *corev1.Pod) { p.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}} })), want: byRule("LL019")},
			"pod left to the scheduler":    {do: dryCreate(pod("default"))},
		},
		"Capsule_priority_classes": {
			"pod preempting as system-node-critical": {do: dryCreate(podWith(func(p *corev1.Pod) { p.Spec.PriorityClassName = "system-node-critical" })), want: byRule("LL019")},
			"pod of the default priority":            {do: dryCreate(pod("default"))},
		},
	})
}

// TestFluxChecklist runs the tenant-facing items of Flux's multi-tenancy
// lockdown and security guidance that the attack suite does not already
// send: status is the controllers', and decryption never falls back to a
// controller's own keys.
func TestFluxChecklist(t *testing.T) {
	attackWorld(t)
	repo := gitRepo("https://git.example.com/blue/app")
	repo.Name = "mtb-status"
	if err := k8s.Create(ctx, repo); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, repo) })
	forgeArtifact := func(c client.Client) error {
		r := &sourcev1.GitRepository{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(repo), r); err != nil {
			return err
		}
		r.Status.Artifact = &fluxmeta.Artifact{Path: "gitrepository/flux-system/flux-system/x.tar.gz", URL: "http://evil.example.com/x.tar.gz",
			Revision: "main@sha1:0", Digest: "sha256:0", LastUpdateTime: metav1.Now()}
		return c.Status().Update(ctx, r, dry)
	}
	runChecks(t, map[string]map[string]probe{
		"Flux_status_is_the_controllers": {
			"forge a GitRepository's artifact": {do: forgeArtifact, want: byRBAC},
			"annotate the GitRepository":       {do: patchAnnotation(repo, probeAnnotation)},
		},
		"Flux_no_cross_namespace_refs": {
			"kustomization sourcing from flux-system": {as: "reconciler", do: dryCreate(ks(func(k *kustomizev1.Kustomization) { k.Spec.SourceRef.Namespace = "flux-system" })), want: byRule("LL002")},
			"kustomization with its own source":       {as: "reconciler", do: dryCreate(ks(func(k *kustomizev1.Kustomization) {}))},
		},
		"Flux_decryption_with_the_tenants_own_key": {
			"sops with the controller's keys": {as: "reconciler", do: dryCreate(ks(func(k *kustomizev1.Kustomization) {
				k.Spec.Decryption = &kustomizev1.Decryption{Provider: "sops"}
			})), want: byRule("LL005")},
			"sops with its own key": {as: "reconciler", do: dryCreate(ks(func(k *kustomizev1.Kustomization) {
				k.Spec.Decryption = &kustomizev1.Decryption{Provider: "sops", SecretRef: &fluxmeta.LocalObjectReference{Name: "sops-age"}}
			}))},
		},
	})
}
