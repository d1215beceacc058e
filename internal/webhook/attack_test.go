package webhook_test

import (
	"fmt"
	"testing"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	imageautov1 "github.com/fluxcd/image-automation-controller/api/v1"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	notificationv1 "github.com/fluxcd/notification-controller/api/v1"
	notificationv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// attack is one request by a tenant identity and the rule that must stop
// it, or "" for a legitimate request that must pass.
type attack struct {
	// as is "reconciler" or "owner" (tenant blue's), "green" (a tenant at
	// its self-service limit), "leaky": an owner of blue whom a platform
	// mistake bound to cluster-admin, so that only the guard stands in the
	// way, or "platform", a cluster admin.
	as   string
	do   func(c client.Client) error
	want string
	// near names the legitimate neighbour of an attack: a request as close
	// to it as allowed, which must pass.
	near string
	// rbacFirst is the plain tenant identity, "owner" or "reconciler", that
	// RBAC already refuses this attack before the guard is asked.
	rbacFirst string
}

// TestAttackSuite sends escape attempts through the real API with the
// webhooks registered, impersonating tenant blue's reconciler and owners.
// Tenant red is the neighbour to escape into.
func TestAttackSuite(t *testing.T) {
	relabel := func(key, value string) func(client.Object) {
		return func(o client.Object) {
			labels := o.GetLabels()
			if value == "" {
				delete(labels, key)
			} else {
				labels[key] = value
			}
			o.SetLabels(labels)
		}
	}
	const (
		ownKs       = "kustomization with its own source"
		ownTarget   = "kustomization into its other namespace"
		ownRelease  = "helmrelease with its own chart source"
		ownInstall  = "helmrelease installed into its other namespace"
		ownGit      = "git repository in allowedSources"
		ownNs       = "self-service namespace within the limit"
		dropOwnNs   = "delete its own self-service namespace"
		ownBinding  = "bind its own service account"
		ownPolicy   = "own NetworkPolicy"
		ownQuota    = "own ResourceQuota"
		ownConfig   = "own config map"
		ownSA       = "own service account"
		ownApp      = "deployment as its own service account"
		ownSecret   = "own opaque secret"
		ownService  = "ClusterIP service"
		ownReceiver = "receiver for its own repository"
		ownAlert    = "alert on its own objects"
	)

	attacks := map[string]attack{
		// Flux objects: references, identities, targets.
		ownKs: {as: "reconciler", do: create(ks(func(k *kustomizev1.Kustomization) {}))},
		"kustomization sourcing from flux-system":    {as: "reconciler", do: create(ks(func(k *kustomizev1.Kustomization) { k.Spec.SourceRef.Namespace = "flux-system" })), want: "LL002", near: ownKs},
		"kustomization sourcing from another tenant": {as: "reconciler", do: create(ks(func(k *kustomizev1.Kustomization) { k.Spec.SourceRef.Namespace = "red-apps" })), want: "LL002", near: ownKs},
		"kustomization depending on another tenant": {as: "reconciler", do: create(ks(func(k *kustomizev1.Kustomization) {
			k.Spec.DependsOn = []kustomizev1.DependencyReference{{Name: "x", Namespace: "red-apps"}}
		})), want: "LL002", near: "kustomization depending on its own"},
		"kustomization depending on its own": {as: "reconciler", do: create(ks(func(k *kustomizev1.Kustomization) {
			k.Spec.DependsOn = []kustomizev1.DependencyReference{{Name: "infra"}}
		}))},
		"kustomization with a kubeConfig": {as: "reconciler", do: create(ks(func(k *kustomizev1.Kustomization) {
			k.Spec.KubeConfig = &fluxmeta.KubeConfigReference{SecretRef: &fluxmeta.SecretKeyReference{Name: "remote"}}
		})), want: "LL004", near: ownKs},
		ownTarget:                           {as: "reconciler", do: create(ks(func(k *kustomizev1.Kustomization) { k.Spec.TargetNamespace = "blue-jobs" }))},
		"kustomization into another tenant": {as: "reconciler", do: create(ks(func(k *kustomizev1.Kustomization) { k.Spec.TargetNamespace = "red-apps" })), want: "LL003", near: ownTarget},
		"kustomization into default":        {as: "reconciler", do: create(ks(func(k *kustomizev1.Kustomization) { k.Spec.TargetNamespace = "default" })), want: "LL003", near: ownTarget},
		// An omitted service account (LL001) is not refused but defaulted:
		// Flux must never fall back to its own identity.
		"kustomization omitting its service account": {as: "reconciler", do: func(c client.Client) error {
			k := ks(func(k *kustomizev1.Kustomization) {})
			if err := c.Create(ctx, k, dry); err != nil {
				return err
			}
			if k.Spec.ServiceAccountName != "blue" {
				return fmt.Errorf("serviceAccountName %q, want the reconciler blue", k.Spec.ServiceAccountName)
			}
			return nil
		}},
		"kustomization decrypting as another identity": {as: "reconciler", do: create(ks(func(k *kustomizev1.Kustomization) {
			k.Spec.Decryption = &kustomizev1.Decryption{Provider: "sops", ServiceAccountName: "vault"}
		})), want: "LL005", near: "kustomization decrypting with its own key"},
		"kustomization decrypting with its own key": {as: "reconciler", do: create(ks(func(k *kustomizev1.Kustomization) {
			k.Spec.Decryption = &kustomizev1.Decryption{Provider: "sops", SecretRef: &fluxmeta.LocalObjectReference{Name: "sops-age"}}
		}))},
		ownRelease:                                  {as: "reconciler", do: create(hr(func(h *helmv2.HelmRelease) {}))},
		"helmrelease chart from flux-system":        {as: "reconciler", do: create(hr(func(h *helmv2.HelmRelease) { h.Spec.Chart.Spec.SourceRef.Namespace = "flux-system" })), want: "LL002", near: ownRelease},
		"helmrelease stored in another tenant":      {as: "reconciler", do: create(hr(func(h *helmv2.HelmRelease) { h.Spec.StorageNamespace = "red-apps" })), want: "LL003", near: ownInstall},
		"helmrelease installed into another tenant": {as: "reconciler", do: create(hr(func(h *helmv2.HelmRelease) { h.Spec.TargetNamespace = "red-apps" })), want: "LL003", near: ownInstall},
		ownInstall: {as: "reconciler", do: create(hr(func(h *helmv2.HelmRelease) { h.Spec.TargetNamespace = "blue-jobs" }))},
		"helmrelease with a kubeConfig": {as: "reconciler", do: create(hr(func(h *helmv2.HelmRelease) {
			h.Spec.KubeConfig = &fluxmeta.KubeConfigReference{SecretRef: &fluxmeta.SecretKeyReference{Name: "remote"}}
		})), want: "LL004", near: ownRelease},

		// Sources.
		ownGit:                                       {as: "reconciler", do: create(gitRepo("https://git.example.com/blue/app"))},
		"git repository outside allowedSources":      {as: "reconciler", do: create(gitRepo("https://github.com/attacker/app")), want: "LL008", near: ownGit},
		"oci repository in allowedSources":           {as: "reconciler", do: create(ociRepo("oci://registry.example.com/blue/app"))},
		"oci repository outside allowedSources":      {as: "reconciler", do: create(ociRepo("oci://evil.example.com/app")), want: "LL008", near: "oci repository in allowedSources"},
		"helm repository in allowedSources":          {as: "reconciler", do: create(ociHelmRepo("oci://registry.example.com/blue/charts"))}, // an HTTP index is LL027's
		"helm repository outside allowedSources":     {as: "reconciler", do: create(helmRepo("https://evil.example.com/charts")), want: "LL008", near: "helm repository in allowedSources"},
		"bucket source":                              {as: "reconciler", do: create(&sourcev1.Bucket{ObjectMeta: blueMeta("bucket"), Spec: sourcev1.BucketSpec{Endpoint: "minio.example.com", BucketName: "red", Interval: minute}}), want: "LL008", near: ownGit},
		"git repository fetched with azure identity": {as: "reconciler", do: create(gitRepo("https://git.example.com/blue/app", func(g *sourcev1.GitRepository) { g.Spec.Provider = "azure" })), want: "LL005", near: ownGit},

		// Notifications and image automation.
		ownReceiver:                            {as: "reconciler", do: create(receiver("blue-apps"))},
		"receiver for another tenant's source": {as: "reconciler", do: create(receiver("red-apps")), want: "LL006", near: ownReceiver},
		"alert on another tenant's objects":    {as: "reconciler", do: create(alert("red-apps")), want: "LL006", near: ownAlert},
		ownAlert:                               {as: "reconciler", do: create(alert("blue-jobs"))},
		"image automation pushing another tenant's repo": {as: "reconciler", do: create(imageAutomation("red-apps")), want: "LL007", near: "image automation pushing its own repo"},
		"image automation pushing its own repo":          {as: "reconciler", do: create(imageAutomation("blue-apps"))},

		// Namespaces. Tenants hold no update or delete on their assigned
		// namespaces, so RBAC refuses these first.
		ownNs:     {as: "reconciler", do: create(labelledNamespace("blue-three", "blue"))},
		dropOwnNs: {as: "owner", do: remove(ns("blue-two"))},
		"relabel its namespace to another tenant": {as: "leaky", do: mutate(ns("blue-apps"), relabel(v1alpha1.TenantLabel, "red")), want: "LL009", near: dropOwnNs, rbacFirst: "owner"},
		"remove pod-security enforcement":         {as: "leaky", do: mutate(ns("blue-apps"), relabel("pod-security.kubernetes.io/enforce", "")), want: "LL009", near: dropOwnNs, rbacFirst: "owner"},
		"label its namespace to allow NodePorts":  {as: "leaky", do: mutate(ns("blue-apps"), relabel(v1alpha1.ServiceTypesLabel, "NodePort")), want: "LL009", near: dropOwnNs, rbacFirst: "owner"},
		"annotate its namespace to allow every source": {as: "leaky", do: mutate(ns("blue-apps"), func(o client.Object) {
			o.SetAnnotations(map[string]string{v1alpha1.AllowedSourcesAnnotation: "https://*", v1alpha1.SourceRegexpsAnnotation: ".*"})
		}), want: "LL009", near: dropOwnNs, rbacFirst: "owner"},
		"weaken pod-security to privileged":     {as: "leaky", do: mutate(ns("blue-jobs"), relabel("pod-security.kubernetes.io/enforce", "privileged")), want: "LL009", near: dropOwnNs, rbacFirst: "reconciler"},
		"namespace without the prefix":          {as: "reconciler", do: create(labelledNamespace("preview", "blue")), want: notFound, near: ownNs},
		"namespace labelled for another tenant": {as: "reconciler", do: create(labelledNamespace("blue-spy", "red")), want: "LL009", near: ownNs},
		"namespace over the self-service limit": {as: "green", do: create(labelledNamespace("green-two", "green")), want: "LL009", near: ownNs},
		// Self-service grants patch on namespaces, since Flux applies them
		// server-side: only the guard keeps the others out of reach.
		"annotate a platform namespace": {as: "reconciler", do: func(c client.Client) error {
			patch := []byte(`{"metadata":{"annotations":{"scheduler.alpha.kubernetes.io/node-selector":"pool=blue"}}}`)
			return c.Patch(ctx, ns("kube-system"), client.RawPatch(types.MergePatchType, patch), dry)
		}, want: notFound, near: ownNs},
		"delete a platform-assigned namespace": {as: "leaky", do: remove(ns("blue-jobs")), want: "LL009", near: dropOwnNs, rbacFirst: "owner"},
		"delete another tenant's namespace":    {as: "leaky", do: remove(ns("red-apps")), want: "LL009", near: dropOwnNs, rbacFirst: "owner"},

		// Guard rails Landlord manages.
		"edit the managed NetworkPolicy": {as: "owner", do: mutate(&networkingv1.NetworkPolicy{ObjectMeta: blueMeta("landlord-isolation")}, func(o client.Object) {
			o.(*networkingv1.NetworkPolicy).Spec.Ingress = []networkingv1.NetworkPolicyIngressRule{{}}
		}), want: "LL010", near: ownPolicy},
		"delete the managed NetworkPolicy": {as: "owner", do: remove(&networkingv1.NetworkPolicy{ObjectMeta: blueMeta("landlord-isolation")}), want: "LL010", near: ownPolicy},
		ownPolicy:                          {as: "owner", do: create(&networkingv1.NetworkPolicy{ObjectMeta: blueMeta("web"), Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{"Ingress"}}})},
		"update the ResourceQuota":         {as: "leaky", do: mutate(&corev1.ResourceQuota{ObjectMeta: blueMeta("landlord-quota")}, func(client.Object) {}), want: "LL010", near: ownQuota, rbacFirst: "owner"},
		"delete the ResourceQuota":         {as: "leaky", do: remove(&corev1.ResourceQuota{ObjectMeta: blueMeta("landlord-quota")}), want: "LL010", near: ownQuota, rbacFirst: "reconciler"},
		// A tenant's own quota can only lower its allowance.
		ownQuota:                               {as: "leaky", do: create(&corev1.ResourceQuota{ObjectMeta: blueMeta("jobs"), Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: mustQuantity("2")}}})},
		"delete the reconciler RoleBinding":    {as: "owner", do: remove(&rbacv1.RoleBinding{ObjectMeta: blueMeta("landlord-reconciler")}), want: "LL010", near: ownBinding},
		"edit the tenant variables":            {as: "reconciler", do: mutate(&corev1.ConfigMap{ObjectMeta: blueMeta("tenant-vars")}, func(o client.Object) { o.(*corev1.ConfigMap).Data["TENANT_NAME"] = "red" }), want: "LL010", near: ownConfig},
		"delete the reconciler ServiceAccount": {as: "owner", do: remove(&corev1.ServiceAccount{ObjectMeta: blueMeta("blue")}), want: "LL010", near: ownSA},
		ownSA:                                  {as: "owner", do: create(&corev1.ServiceAccount{ObjectMeta: blueMeta("ci")})},

		// RBAC inside the namespace, and outside.
		ownBinding:                              {as: "reconciler", do: create(roleBinding(v1alpha1.DefaultRole, rbacv1.Subject{Kind: "ServiceAccount", Name: "ci", Namespace: "blue-jobs"}))},
		"bind another tenant's service account": {as: "reconciler", do: create(roleBinding(v1alpha1.DefaultRole, rbacv1.Subject{Kind: "ServiceAccount", Name: "red", Namespace: "red-apps"})), want: "LL011", near: ownBinding},
		"bind every service account":            {as: "reconciler", do: create(roleBinding(v1alpha1.DefaultRole, rbacv1.Subject{Kind: "Group", Name: "system:serviceaccounts", APIGroup: rbacv1.GroupName})), want: "LL011", near: ownBinding},
		"bind a platform cluster role":          {as: "leaky", do: create(roleBinding("system:controller:namespace-controller", rbacv1.Subject{Kind: "ServiceAccount", Name: "ci", Namespace: "blue-apps"})), want: "LL015", near: ownBinding, rbacFirst: "owner"},
		"bind a platform role it holds":         {as: "owner", do: create(roleBinding("pod-reader", rbacv1.Subject{Kind: "ServiceAccount", Name: "ci", Namespace: "blue-apps"})), want: "LL015", near: ownBinding},
		"create a ClusterRoleBinding": {as: "leaky", do: create(&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "blue-escape"}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}, Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "blue", Namespace: "blue-apps"}}}),
			want: "LL014", near: ownNs, rbacFirst: "reconciler"},
		"create a ClusterRole": {as: "leaky", do: create(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "blue-escape"}}), want: "LL014", near: ownNs, rbacFirst: "owner"},

		// Workloads and services.
		ownApp: {as: "reconciler", do: create(deployment("app"))},
		"deployment without resource limits": {as: "reconciler", do: create(deployment("app", func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Resources = corev1.ResourceRequirements{}
		})), want: "LL016", near: ownApp},
		"deployment running as the reconciler": {as: "reconciler", do: create(deployment("blue")), want: "LL012", near: ownApp},
		"pod running as the reconciler":        {as: "owner", do: create(pod("blue")), want: "LL012", near: "pod as its own service account"},
		"pod as its own service account":       {as: "owner", do: create(pod("default"))},
		ownSecret:                              {as: "owner", do: create(&corev1.Secret{ObjectMeta: blueMeta("db"), StringData: map[string]string{"password": "x"}})},
		ownConfig:                              {as: "reconciler", do: create(&corev1.ConfigMap{ObjectMeta: blueMeta("settings"), Data: map[string]string{"LEVEL": "debug"}})},
		"token secret for the reconciler":      {as: "owner", do: create(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "blue-apps", Name: "steal", Annotations: map[string]string{corev1.ServiceAccountNameKey: "blue"}}, Type: corev1.SecretTypeServiceAccountToken}), want: "LL012", near: ownSecret},
		ownService:                             {as: "reconciler", do: create(service(corev1.ServiceTypeClusterIP, nil))},
		"NodePort service":                     {as: "reconciler", do: create(service(corev1.ServiceTypeNodePort, nil)), want: "LL013", near: ownService},
		"LoadBalancer service":                 {as: "reconciler", do: create(service(corev1.ServiceTypeLoadBalancer, nil)), want: "LL013", near: ownService},
		"service capturing external IPs":       {as: "reconciler", do: create(service(corev1.ServiceTypeClusterIP, []string{"8.8.8.8"})), want: "LL017", near: ownService},
	}

	runAttacks(t, attacks)
	if n := countAttacks(attacks); n < 30 {
		t.Errorf("%d attacks, want at least 30", n)
	}
}

// attackTenants provisions blue (two namespaces, self-service, an owner
// group, allowed sources, a quota) and red, its neighbour.
func attackTenants(t *testing.T) {
	t.Helper()
	blue := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "blue"},
		Spec: v1alpha1.TenantSpec{
			Namespaces:       []v1alpha1.TenantNamespace{{Name: "blue-apps"}, {Name: "blue-jobs"}},
			SelfService:      &v1alpha1.SelfService{Prefix: "blue-", MaxNamespaces: 3},
			Owners:           []v1alpha1.Owner{{Kind: "Group", Name: "blue-team"}},
			AllowedSources:   []string{"https://git.example.com/blue/*", "oci://registry.example.com/blue/*", "https://charts.example.com/blue", "https://events.example.com"},
			Quota:            &v1alpha1.Quota{Hard: blueQuota},
			RequireResources: true,
			// Keys another component could trust stay out of this list.
			NamespaceMetadata: &v1alpha1.NamespaceMetadata{AllowedLabels: []string{"team"}, AllowedAnnotations: []string{"blue.example.com/*"}},
			Scheduling:        blueScheduling,
			Storage:           &v1alpha1.Storage{Classes: []string{"blue-fast"}},
			Ingress:           &v1alpha1.Ingress{Classes: []string{"blue-edge"}, Hostnames: []string{"*.blue.example.com", "*.apps.example.com"}},
			Gateways:          &v1alpha1.Gateways{Allowed: []string{"gateway-system/public"}, Classes: []string{"blue-gw"}},
		},
	}
	// A platform role the tenant holds every rule of, so only the guard
	// stands between a RoleBinding and it.
	podReader := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "pod-reader"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}},
	}
	if err := k8s.Create(ctx, podReader); err != nil {
		t.Fatal(err)
	}
	red := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "red"},
		Spec: v1alpha1.TenantSpec{Namespaces: []v1alpha1.TenantNamespace{{Name: "red-apps"}},
			Ingress:  &v1alpha1.Ingress{Hostnames: []string{"*.apps.example.com"}}, // shared with blue
			Gateways: &v1alpha1.Gateways{Allowed: []string{"gateway-system/public"}}},
	}
	green := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "green"},
		Spec: v1alpha1.TenantSpec{
			Namespaces:  []v1alpha1.TenantNamespace{{Name: "green-apps"}},
			SelfService: &v1alpha1.SelfService{Prefix: "green-", MaxNamespaces: 1},
		},
	}
	for _, tenant := range []*v1alpha1.Tenant{blue, red, green} {
		if err := k8s.Create(ctx, tenant); err != nil {
			t.Fatal(err)
		}
	}
	waitReady(t, "blue", "red", "green")
}

var minute = metav1.Duration{Duration: time.Minute}

func blueMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: "blue-apps", Name: name}
}

func ks(edit func(*kustomizev1.Kustomization)) *kustomizev1.Kustomization {
	k := kustomization("blue-apps", "app")
	edit(k)
	return k
}

func hr(edit func(*helmv2.HelmRelease)) *helmv2.HelmRelease {
	h := &helmv2.HelmRelease{
		ObjectMeta: blueMeta("podinfo"),
		Spec: helmv2.HelmReleaseSpec{
			Interval: minute,
			Chart: &helmv2.HelmChartTemplate{Spec: helmv2.HelmChartTemplateSpec{
				Chart:     "podinfo",
				SourceRef: helmv2.CrossNamespaceObjectReference{Kind: "HelmRepository", Name: "podinfo"},
			}},
		},
	}
	edit(h)
	return h
}

func gitRepo(url string, edit ...func(*sourcev1.GitRepository)) *sourcev1.GitRepository {
	g := &sourcev1.GitRepository{ObjectMeta: blueMeta("app"), Spec: sourcev1.GitRepositorySpec{URL: url, Interval: minute}}
	for _, e := range edit {
		e(g)
	}
	return g
}

func receiver(ns string) *notificationv1.Receiver {
	return &notificationv1.Receiver{ObjectMeta: blueMeta("hook"), Spec: notificationv1.ReceiverSpec{
		Type:      "github",
		SecretRef: fluxmeta.LocalObjectReference{Name: "hook-token"},
		Resources: []notificationv1.CrossNamespaceObjectReference{{Kind: "GitRepository", Name: "app", Namespace: ns}},
	}}
}

func alert(ns string) *notificationv1beta3.Alert {
	return &notificationv1beta3.Alert{ObjectMeta: blueMeta("slack"), Spec: notificationv1beta3.AlertSpec{
		ProviderRef:  fluxmeta.LocalObjectReference{Name: "slack"},
		EventSources: []notificationv1.CrossNamespaceObjectReference{{Kind: "Kustomization", Name: "*", Namespace: ns}},
	}}
}

func ociRepo(url string) *sourcev1.OCIRepository {
	return &sourcev1.OCIRepository{ObjectMeta: blueMeta("oci"), Spec: sourcev1.OCIRepositorySpec{URL: url, Interval: minute}}
}

func helmRepo(url string) *sourcev1.HelmRepository {
	return &sourcev1.HelmRepository{ObjectMeta: blueMeta("charts"), Spec: sourcev1.HelmRepositorySpec{URL: url, Interval: minute}}
}

func imageAutomation(sourceNamespace string) *imageautov1.ImageUpdateAutomation {
	return &imageautov1.ImageUpdateAutomation{ObjectMeta: blueMeta("auto"), Spec: imageautov1.ImageUpdateAutomationSpec{
		SourceRef: imageautov1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "app", Namespace: sourceNamespace}, Interval: minute,
	}}
}

// pod is a pod the namespace's restricted Pod Security level admits, so
// that only the guard judges it.
func pod(serviceAccount string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: blueMeta("debug"), Spec: deployment(serviceAccount).Spec.Template.Spec}
	p.Spec.SecurityContext = &corev1.PodSecurityContext{
		RunAsNonRoot:   ptr.To(true),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
	p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
	return p
}

func labelledNamespace(name, tenant string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1alpha1.TenantLabel: tenant}}}
}

func roleBinding(role string, subject rbacv1.Subject) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		ObjectMeta: blueMeta("grant"),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{subject},
	}
}

func deployment(serviceAccount string, edit ...func(*appsv1.Deployment)) *appsv1.Deployment {
	labels := map[string]string{"app": "web"}
	resources := corev1.ResourceList{corev1.ResourceCPU: mustQuantity("100m"), corev1.ResourceMemory: mustQuantity("64Mi")}
	d := &appsv1.Deployment{ObjectMeta: blueMeta("web"), Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{
				ServiceAccountName: serviceAccount,
				Containers: []corev1.Container{{
					Name: "web", Image: "registry.example.com/web:1",
					Resources: corev1.ResourceRequirements{Requests: resources, Limits: resources},
				}},
			},
		},
	}}
	for _, e := range edit {
		e(d)
	}
	return d
}

func service(kind corev1.ServiceType, externalIPs []string) *corev1.Service {
	return &corev1.Service{ObjectMeta: blueMeta("web"), Spec: corev1.ServiceSpec{
		Type:        kind,
		Selector:    map[string]string{"app": "web"},
		Ports:       []corev1.ServicePort{{Port: 80}},
		ExternalIPs: externalIPs,
	}}
}

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }

func metaReady(t *v1alpha1.Tenant) bool {
	return apimeta.IsStatusConditionTrue(t.Status.Conditions, v1alpha1.ReadyCondition)
}
