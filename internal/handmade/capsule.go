package handmade

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/policy"
)

// Capsule's API group, and the label it gives a tenant's namespaces.
const (
	capsuleGroup       = "capsule.clastix.io"
	CapsuleTenantLabel = capsuleGroup + "/tenant"
)

// capsuleTenants recognises the tenants Capsule's Flux addon makes (its
// guide, and clastix/flux2-capsule-multi-tenancy): a Capsule Tenant,
// v1beta1 or v1beta2, owned by a "GitOps reconciler" ServiceAccount in a
// home namespace outside the tenant, where Kustomizations sync
// GitRepositories of that namespace as the reconciler, by name or as
// Flux's --default-service-account, through capsule-proxy with a
// kubeconfig. Each becomes the equivalent Tenant: the home namespace
// first, the namespaces the fleet labels for it, the other owners, the
// limits Capsule enforces that a Tenant holds, and notes on the rest.
// claimed gets the Kustomizations it takes, which the guide's recognition
// then leaves alone.
func (f *fleet) capsuleTenants(claimed map[*Object]bool) ([]*Tenant, []Note) {
	var out []*Tenant
	for _, ct := range f.of(capsuleGroup, "Tenant") {
		t := f.capsuleTenant(ct)
		for _, ks := range t.Syncs {
			claimed[ks] = true
		}
		out = append(out, t)
	}
	var notes []Note
	if len(out) > 0 {
		for _, cfg := range f.of(capsuleGroup, "CapsuleConfiguration") {
			notes = append(notes, Note{cfg, fmt.Sprintf("CapsuleConfiguration %s: not needed by Landlord, which knows a tenant's identities from its Tenant; remove it with Capsule", cfg.GetName())})
		}
	}
	return out, notes
}

// capsuleTenant maps one Capsule Tenant.
func (f *fleet) capsuleTenant(ct *Object) *Tenant {
	out := &Tenant{Tenant: &v1alpha1.Tenant{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "Tenant"},
		ObjectMeta: metav1.ObjectMeta{Name: ct.GetName()},
	}}
	t, name := out.Tenant, ct.GetName()
	note := func(o *Object, format string, args ...any) {
		out.Notes = append(out.Notes, Note{o, fmt.Sprintf(format, args...)})
	}
	claimed := map[*Object]bool{}
	claim := func(o *Object) {
		if o != nil && !claimed[o] {
			claimed[o] = true
			out.Objects = append(out.Objects, o)
		}
	}
	claim(ct)
	spec, _, _ := unstructured.NestedMap(ct.Object, "spec")

	// The reconciler: the ServiceAccount owner whose namespace syncs.
	var home, account string
	owners, _, _ := unstructured.NestedSlice(spec, "owners")
	var people []v1alpha1.Owner
	for _, o := range owners {
		m, _ := o.(map[string]any)
		kind, owner := str(m, "kind"), str(m, "name")
		if _, ok := m["proxySettings"]; ok {
			note(ct, "Tenant %s: owner %s's proxySettings not imported: capsule-proxy is not needed, the API server answers tenants' lists from RBAC", name, owner)
		}
		if kind != "ServiceAccount" {
			people = append(people, v1alpha1.Owner{Kind: kind, Name: owner})
			continue
		}
		ns, sa, ok := splitAccount(owner)
		if !ok {
			note(ct, "Tenant %s: owner ServiceAccount %q is not system:serviceaccount:NAMESPACE:NAME: dropped", name, owner)
			continue
		}
		if home == "" && len(f.capsuleSyncs(ns, sa)) > 0 {
			home, account = ns, sa
			continue
		}
		people = append(people, v1alpha1.Owner{Kind: kind, Name: sa, Namespace: ns})
	}
	if home == "" {
		// No Flux sync: a tenant of namespaces alone, homed in its first.
		home = name
		if labelled := f.labelled(name); len(labelled) > 0 {
			home = labelled[0]
		}
		note(ct, "Tenant %s: no Kustomization syncs as a ServiceAccount owner of it: imported without sources", name)
	}
	t.Spec.Owners = people
	namespaces := append([]string{home}, f.labelled(name)...)
	seen := map[string]bool{}
	for _, ns := range namespaces {
		if !seen[ns] {
			seen[ns] = true
			t.Spec.Namespaces = append(t.Spec.Namespaces, v1alpha1.TenantNamespace{Name: ns})
			claim(f.get("", "Namespace", "", ns))
		}
	}
	if account != "" {
		if account != name {
			t.Spec.ServiceAccountName = account
		}
		claim(f.get("", "ServiceAccount", home, account))
		for _, s := range f.capsuleSyncs(home, account) {
			src := source(s, func(format string, args ...any) { note(s.ks, format, args...) }, func(format string, args ...any) { note(s.repo, format, args...) }, "kubeConfig")
			if str(s.ks.Object, "spec", "kubeConfig", "secretRef", "name") != "" {
				note(s.ks, "Kustomization %s/%s: kubeConfig %s (capsule-proxy) dropped: the Tenant's reconciler writes through the API server, judged by Landlord's guard", home, s.ks.GetName(), str(s.ks.Object, "spec", "kubeConfig", "secretRef", "name"))
			}
			t.Spec.Sources = append(t.Spec.Sources, src)
			out.Syncs = append(out.Syncs, s.ks)
			claim(s.ks)
			claim(s.repo)
		}
		f.capsuleRBAC(out, home, account, claim, note)
	}
	f.capsuleSpec(out, ct, spec, note)
	note(ct, "tenant %s gets what it did not have: Pod Security restricted unless its namespaces' metadata said otherwise, a NetworkPolicy isolating it from other tenants; set spec.podSecurity and spec.network.isolation: None to keep it as it was", name)
	return out
}

// splitAccount splits system:serviceaccount:NAMESPACE:NAME.
func splitAccount(user string) (namespace, name string, ok bool) {
	rest, ok := strings.CutPrefix(user, "system:serviceaccount:")
	if !ok {
		return "", "", false
	}
	namespace, name, ok = strings.Cut(rest, ":")
	return namespace, name, ok && namespace != "" && name != ""
}

// labelled are the namespaces the fleet labels for Capsule tenant name.
func (f *fleet) labelled(name string) []string {
	var out []string
	for _, ns := range f.of("", "Namespace") {
		if ns.GetLabels()[CapsuleTenantLabel] == name {
			out = append(out, ns.GetName())
		}
	}
	return out
}

// capsuleSyncs are the Kustomizations of namespace ns syncing a
// GitRepository of ns as account sa: named, or left to Flux's
// --default-service-account, as the addon's guide does.
func (f *fleet) capsuleSyncs(ns, sa string) []*sync {
	var out []*sync
	for _, ks := range f.of(kustomizeGroup, "Kustomization") {
		if ks.GetNamespace() != ns || !slices.Contains([]string{"", sa}, str(ks.Object, "spec", "serviceAccountName")) {
			continue
		}
		if str(ks.Object, "spec", "sourceRef", "kind") != "GitRepository" || cmp.Or(str(ks.Object, "spec", "sourceRef", "namespace"), ns) != ns {
			continue
		}
		repo := f.get(sourceGroup, "GitRepository", ns, str(ks.Object, "spec", "sourceRef", "name"))
		if repo == nil {
			continue
		}
		out = append(out, &sync{ks: ks, repo: repo})
	}
	return out
}

// capsuleRBAC notes the RBAC the addon's guide gives the reconciler, which
// Landlord replaces: cluster-admin in its home namespace, the namespace
// provisioner, and impersonating itself through capsule-proxy.
func (f *fleet) capsuleRBAC(out *Tenant, home, account string, claim func(*Object), note func(*Object, string, ...any)) {
	user := "system:serviceaccount:" + home + ":" + account
	names := func(o *Object) bool {
		for _, s := range subjects(o) {
			switch {
			case s.kind == "ServiceAccount" && s.name == account && cmp.Or(s.namespace, o.GetNamespace()) == home,
				s.kind == "Group" && s.name == "system:serviceaccounts:"+home,
				s.kind == "User" && s.name == user:
				return true
			}
		}
		return false
	}
	for _, rb := range f.of(rbacGroup, "RoleBinding") {
		if rb.GetNamespace() == home && names(rb) {
			claim(rb)
			note(rb, "RoleBinding %s/%s grants %s to the reconciler: replaced by the tenant role landlord-tenant in every namespace of the Tenant (namespace admin without service account tokens or impersonation)", home, rb.GetName(), str(rb.Object, "roleRef", "name"))
		}
	}
	for _, crb := range f.of(rbacGroup, "ClusterRoleBinding") {
		if !names(crb) {
			continue
		}
		claim(crb)
		role := str(crb.Object, "roleRef", "name")
		why := "spec.selfService gives the reconciler the namespaces it may create"
		r := f.get(rbacGroup, "ClusterRole", "", role)
		if r != nil && impersonates(r) {
			why = "Flux impersonates the reconciler itself, without capsule-proxy"
			claim(r)
		}
		note(crb, "ClusterRoleBinding %s grants %s to tenant %s's reconciler: not imported; %s", crb.GetName(), role, out.Tenant.Name, why)
	}
}

// impersonates reports whether a ClusterRole grants impersonation.
func impersonates(role *Object) bool {
	rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
	for _, r := range rules {
		verbs, _, _ := unstructured.NestedStringSlice(r.(map[string]any), "verbs")
		if slices.Contains(verbs, "impersonate") {
			return true
		}
	}
	return false
}

// capsuleSpec maps what Capsule enforces on a tenant to the Tenant's
// fields, both API versions' spellings, and notes the rest by name.
func (f *fleet) capsuleSpec(out *Tenant, ct *Object, spec map[string]any, note func(*Object, string, ...any)) {
	t, name := out.Tenant, ct.GetName()
	field := func(path string) string { return "Tenant " + name + ": spec." + path }
	allowed := func(path ...string) []string {
		list, _, _ := unstructured.NestedStringSlice(spec, append(path, "allowed")...)
		if re := str(spec, append(path, "allowedRegex")...); re != "" {
			note(ct, "%s.allowedRegex %q not imported: a Tenant lists names; add those the expression meant", field(strings.Join(path, ".")), re)
		}
		return list
	}

	quotaField := "namespaceOptions.quota"
	quota, ok, _ := unstructured.NestedInt64(spec, "namespaceOptions", "quota")
	if !ok {
		quotaField = "namespaceQuota"
		quota, ok, _ = unstructured.NestedInt64(spec, quotaField)
	}
	if ok && quota > 0 {
		t.Spec.SelfService = &v1alpha1.SelfService{Prefix: name + "-", MaxNamespaces: int32(min(quota, 1000))}
		note(ct, "%s: namespace quota %d imported as spec.selfService with prefix %q: a self-service namespace starts with it and carries the label %s: %s, where Capsule took any name its owners created", field(quotaField), quota, name+"-", v1alpha1.TenantLabel, name)
	}

	if hard, scope := capsuleQuota(spec); hard != nil {
		t.Spec.Quota = &v1alpha1.Quota{Hard: hard, Scope: scope}
	}
	if n := len(items(spec, "resourceQuotas")); n > 1 {
		note(ct, "%s: %d quotas, a Tenant has one: the first imported", field("resourceQuotas"), n)
	}
	if limits := items(spec, "limitRanges"); len(limits) > 0 {
		lr := &corev1.LimitRangeSpec{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(limits[0], lr); err == nil && len(lr.Limits) > 0 {
			t.Spec.LimitRange = &v1alpha1.LimitRange{Limits: lr.Limits}
		}
		if len(limits) > 1 {
			note(ct, "%s: %d limit ranges, a Tenant has one: the first imported", field("limitRanges"), len(limits))
		}
	}
	if n := len(items(spec, "networkPolicies")); n > 0 {
		note(ct, "%s: %d NetworkPolicies not imported: Landlord isolates each tenant with its own policy (spec.network.allowFrom opens it); keep yours in the tenant's repository", field("networkPolicies"), n)
	}

	if classes := allowed("storageClasses"); len(classes) > 0 {
		t.Spec.Storage = &v1alpha1.Storage{Classes: classes}
	}
	ingressClasses := slices.Concat(allowed("ingressOptions", "allowedClasses"), allowed("ingressClasses"))
	hostnames := slices.Concat(allowed("ingressOptions", "allowedHostnames"), allowed("ingressHostnames"))
	if len(ingressClasses)+len(hostnames) > 0 {
		t.Spec.Ingress = &v1alpha1.Ingress{Classes: ingressClasses, Hostnames: hostnames}
	}
	if registries := allowed("containerRegistries"); len(registries) > 0 {
		t.Spec.Images = &v1alpha1.Images{Allowed: registries}
	}
	if policies, _, _ := unstructured.NestedStringSlice(spec, "imagePullPolicies"); slices.Equal(policies, []string{"Always"}) {
		if t.Spec.Images == nil {
			t.Spec.Images = &v1alpha1.Images{}
		}
		t.Spec.Images.PullAlways = true
	}
	scheduling := &v1alpha1.Scheduling{PriorityClasses: allowed("priorityClasses")}
	if selector, _, _ := unstructured.NestedStringMap(spec, "nodeSelector"); len(selector) > 0 {
		for _, k := range slices.Sorted(maps.Keys(selector)) {
			scheduling.NodeLabels = append(scheduling.NodeLabels, v1alpha1.NodeLabel{Key: k, Values: []string{selector[k]}})
		}
		note(ct, "%s: imported as spec.scheduling.nodeLabels, which bound the labels pods select where Capsule set the selector on every pod", field("nodeSelector"))
	}
	if len(scheduling.PriorityClasses)+len(scheduling.NodeLabels) > 0 {
		t.Spec.Scheduling = scheduling
	}

	for _, path := range [][]string{{"serviceOptions", "allowedServices"}, {"enableNodePorts"}} {
		services, _, _ := unstructured.NestedMap(spec, path...)
		if path[0] == "enableNodePorts" {
			if on, ok, _ := unstructured.NestedBool(spec, path...); ok && on {
				services = map[string]any{"nodePort": true}
			}
		}
		for key, typ := range map[string]corev1.ServiceType{"nodePort": corev1.ServiceTypeNodePort, "loadBalancer": corev1.ServiceTypeLoadBalancer} {
			if on, _ := services[key].(bool); on {
				t.Spec.Network.AllowServiceTypes = append(t.Spec.Network.AllowServiceTypes, typ)
			}
		}
		if on, _ := services["externalName"].(bool); on {
			note(ct, "%s.externalName not imported: an ExternalName Service can alias another tenant's Service, which LL021 refuses", field(strings.Join(path, ".")))
		}
	}
	slices.Sort(t.Spec.Network.AllowServiceTypes)
	t.Spec.Network.AllowServiceTypes = slices.Compact(t.Spec.Network.AllowServiceTypes)

	for _, path := range [][]string{{"namespaceOptions", "additionalMetadata", "labels"}, {"namespacesMetadata", "additionalLabels"}} {
		labels, _, _ := unstructured.NestedStringMap(spec, path...)
		if level := labels["pod-security.kubernetes.io/enforce"]; level != "" {
			t.Spec.PodSecurity = v1alpha1.PodSecurityLevel(level)
		}
		if len(labels) > 0 {
			note(ct, "%s: the labels Capsule put on every namespace are not imported (Pod Security's enforce level is, as spec.podSecurity); spec.namespaceMetadata lists those the tenant may set", field(strings.Join(path, ".")))
		}
	}

	bindings, _, _ := unstructured.NestedSlice(spec, "additionalRoleBindings")
	for _, b := range bindings {
		m, _ := b.(map[string]any)
		role := str(m, "clusterRoleName")
		switch role {
		case "cluster-admin", "admin", "edit":
			note(ct, "%s: %s is refused (LL018: it creates service account tokens or impersonates); the Tenant's owners and reconciler get the tenant role landlord-tenant, which the platform extends by labelling ClusterRoles %s: \"true\"", field("additionalRoleBindings"), role, v1alpha1.AggregateToTenantLabel)
		case "view":
			note(ct, "%s: view not imported: tenants bind view to their own accounts themselves", field("additionalRoleBindings"))
		default:
			f.additionalRole(out, ct, role, field("additionalRoleBindings"), note)
		}
	}
	for _, key := range []string{"cordoned", "preventDeletion", "runtimeClasses", "externalServiceIPs", "podOptions", "gatewayOptions"} {
		if _, ok := spec[key]; ok {
			note(ct, "%s not imported: the Tenant has no such field", field(key))
		}
	}
	if ips, _, _ := unstructured.NestedMap(spec, "serviceOptions", "externalIPs"); len(ips) > 0 {
		note(ct, "%s not imported: LL017 refuses externalIPs to every tenant", field("serviceOptions.externalIPs"))
	}
}

// additionalRole maps a ClusterRole Capsule bound in every namespace of
// the tenant to spec.role, the one role a Tenant binds to its owners and
// reconciler, when the fleet declares it and LL018 lets a tenant hold it.
func (f *fleet) additionalRole(out *Tenant, ct *Object, role, at string, note func(*Object, string, ...any)) {
	obj := f.get(rbacGroup, "ClusterRole", "", role)
	if obj == nil {
		note(ct, "%s: %s not imported: the fleet does not declare it, so LL018 cannot judge it here; set spec.role to it, and the controller judges the live role before it binds it", at, role)
		return
	}
	cr := &rbacv1.ClusterRole{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, cr); err != nil {
		note(obj, "%s: %s not imported: %v", at, role, err)
		return
	}
	if errs := policy.RoleGrants(field.NewPath("spec", "role"), role, cr.Rules, false); len(errs) > 0 {
		note(obj, "%s: %s is refused: %s", at, role, errs.ToAggregate().Error())
		return
	}
	t := out.Tenant
	if t.Spec.Role != "" && t.Spec.Role != role {
		note(obj, "%s: %s not imported: a Tenant binds one role, and %s is it", at, role, t.Spec.Role)
		return
	}
	t.Spec.Role = role
	note(obj, "%s: %s imported as spec.role, bound to the Tenant's owners and reconciler in each of its namespaces instead of landlord-tenant: add landlord-tenant's rules to it, or label it %s: \"true\" to extend landlord-tenant instead", at, role, v1alpha1.AggregateToTenantLabel)
}

// items are the objects of a Capsule list field: spec.<key>.items in
// v1beta2, spec.<key> itself in v1beta1.
func items(spec map[string]any, key string) []map[string]any {
	var list []any
	switch v := spec[key].(type) {
	case []any:
		list = v
	case map[string]any:
		list, _ = v["items"].([]any)
	}
	var out []map[string]any
	for _, item := range list {
		if m, ok := item.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// capsuleQuota is the first resource quota's hard limits and its scope.
func capsuleQuota(spec map[string]any) (corev1.ResourceList, v1alpha1.QuotaScope) {
	quotas := items(spec, "resourceQuotas")
	if len(quotas) == 0 {
		return nil, ""
	}
	hard, _, _ := unstructured.NestedMap(quotas[0], "hard")
	out := corev1.ResourceList{}
	for k, v := range hard {
		if q, err := resource.ParseQuantity(fmt.Sprint(v)); err == nil {
			out[corev1.ResourceName(k)] = q
		}
	}
	scope := v1alpha1.QuotaScopeTenant
	if str(spec, "resourceQuotas", "scope") == "Namespace" {
		scope = v1alpha1.QuotaScopeNamespace
	}
	return out, scope
}
