package webhook_test

import (
	"errors"
	"fmt"
	"strings"
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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// denyByRBAC marks attacks the authorizer stops before admission is asked.
const denyByRBAC = "RBAC"

// attack is one request by a tenant identity and who must stop it: a rule
// id, denyByRBAC, or "" for the legitimate neighbour that must pass.
type attack struct {
	as   string // "reconciler" or "owner"
	do   func(c client.Client) error
	want string
}

// TestAttackSuite sends escape attempts through the real API, impersonating
// tenant blue's reconciler and one of its owners, with the webhooks
// registered. Tenant red is the neighbour to escape into.
func TestAttackSuite(t *testing.T) {
	attackTenants(t)
	dry := client.DryRunAll
	create := func(obj client.Object) func(client.Client) error {
		return func(c client.Client) error { return c.Create(ctx, obj, dry) }
	}
	mutate := func(obj client.Object, edit func(client.Object)) func(client.Client) error {
		return func(c client.Client) error {
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
				return err
			}
			edit(obj)
			return c.Update(ctx, obj, dry)
		}
	}
	remove := func(obj client.Object) func(client.Client) error {
		return func(c client.Client) error { return c.Delete(ctx, obj, dry) }
	}
	ns := func(name string) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
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

	attacks := map[string]attack{
		// Flux objects: references, identities, targets.
		"kustomization with its own source":          {"reconciler", create(ks(func(k *kustomizev1.Kustomization) {})), ""},
		"kustomization sourcing from flux-system":    {"reconciler", create(ks(func(k *kustomizev1.Kustomization) { k.Spec.SourceRef.Namespace = "flux-system" })), "LL002"},
		"kustomization sourcing from another tenant": {"reconciler", create(ks(func(k *kustomizev1.Kustomization) { k.Spec.SourceRef.Namespace = "red-apps" })), "LL002"},
		"kustomization depending on another tenant": {"reconciler", create(ks(func(k *kustomizev1.Kustomization) {
			k.Spec.DependsOn = []kustomizev1.DependencyReference{{Name: "x", Namespace: "red-apps"}}
		})), "LL002"},
		"kustomization with a kubeConfig": {"reconciler", create(ks(func(k *kustomizev1.Kustomization) {
			k.Spec.KubeConfig = &fluxmeta.KubeConfigReference{SecretRef: &fluxmeta.SecretKeyReference{Name: "remote"}}
		})), "LL004"},
		"kustomization into its other namespace": {"reconciler", create(ks(func(k *kustomizev1.Kustomization) { k.Spec.TargetNamespace = "blue-jobs" })), ""},
		"kustomization into another tenant":      {"reconciler", create(ks(func(k *kustomizev1.Kustomization) { k.Spec.TargetNamespace = "red-apps" })), "LL003"},
		"kustomization into default":             {"reconciler", create(ks(func(k *kustomizev1.Kustomization) { k.Spec.TargetNamespace = "default" })), "LL003"},
		// An omitted service account (LL001) is not refused but defaulted:
		// Flux must never fall back to its own identity.
		"kustomization omitting its service account": {"reconciler", func(c client.Client) error {
			k := ks(func(k *kustomizev1.Kustomization) {})
			if err := c.Create(ctx, k, dry); err != nil {
				return err
			}
			if k.Spec.ServiceAccountName != "blue" {
				return fmt.Errorf("serviceAccountName %q, want the reconciler blue", k.Spec.ServiceAccountName)
			}
			return nil
		}, ""},
		"kustomization decrypting as another identity": {"reconciler", create(ks(func(k *kustomizev1.Kustomization) {
			k.Spec.Decryption = &kustomizev1.Decryption{Provider: "sops", ServiceAccountName: "vault"}
		})), "LL005"},
		"helmrelease with its own chart source":          {"reconciler", create(hr(func(h *helmv2.HelmRelease) {})), ""},
		"helmrelease chart from flux-system":             {"reconciler", create(hr(func(h *helmv2.HelmRelease) { h.Spec.Chart.Spec.SourceRef.Namespace = "flux-system" })), "LL002"},
		"helmrelease stored in another tenant":           {"reconciler", create(hr(func(h *helmv2.HelmRelease) { h.Spec.StorageNamespace = "red-apps" })), "LL003"},
		"helmrelease installed into another tenant":      {"reconciler", create(hr(func(h *helmv2.HelmRelease) { h.Spec.TargetNamespace = "red-apps" })), "LL003"},
		"helmrelease installed into its other namespace": {"reconciler", create(hr(func(h *helmv2.HelmRelease) { h.Spec.TargetNamespace = "blue-jobs" })), ""},
		"helmrelease with a kubeConfig": {"reconciler", create(hr(func(h *helmv2.HelmRelease) {
			h.Spec.KubeConfig = &fluxmeta.KubeConfigReference{SecretRef: &fluxmeta.SecretKeyReference{Name: "remote"}}
		})), "LL004"},

		// Sources.
		"git repository in allowedSources":         {"reconciler", create(gitRepo("https://git.example.com/blue/app")), ""},
		"git repository outside allowedSources":    {"reconciler", create(gitRepo("https://github.com/attacker/app")), "LL008"},
		"oci repository outside allowedSources":    {"reconciler", create(&sourcev1.OCIRepository{ObjectMeta: blueMeta("oci"), Spec: sourcev1.OCIRepositorySpec{URL: "oci://evil.example.com/app", Interval: minute}}), "LL008"},
		"helm repository outside allowedSources":   {"reconciler", create(&sourcev1.HelmRepository{ObjectMeta: blueMeta("charts"), Spec: sourcev1.HelmRepositorySpec{URL: "https://evil.example.com/charts", Interval: minute}}), "LL008"},
		"bucket source":                            {"reconciler", create(&sourcev1.Bucket{ObjectMeta: blueMeta("bucket"), Spec: sourcev1.BucketSpec{Endpoint: "minio.example.com", BucketName: "red", Interval: minute}}), "LL008"},
		"git repository fetched with aws identity": {"reconciler", create(gitRepo("https://git.example.com/blue/app", func(g *sourcev1.GitRepository) { g.Spec.Provider = "azure" })), "LL005"},

		// Notifications and image automation.
		"receiver for its own repository":      {"reconciler", create(receiver("blue-apps")), ""},
		"receiver for another tenant's source": {"reconciler", create(receiver("red-apps")), "LL006"},
		"alert on another tenant's objects":    {"reconciler", create(alert("red-apps")), "LL006"},
		"alert on its own objects":             {"reconciler", create(alert("blue-jobs")), ""},
		"image automation pushing another tenant's repo": {"reconciler", create(&imageautov1.ImageUpdateAutomation{ObjectMeta: blueMeta("auto"), Spec: imageautov1.ImageUpdateAutomationSpec{
			SourceRef: imageautov1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "app", Namespace: "red-apps"}, Interval: minute,
		}}), "LL007"},

		// Namespaces.
		"relabel its namespace to another tenant": {"owner", mutate(ns("blue-apps"), relabel(v1alpha1.TenantLabel, "red")), denyByRBAC},
		"remove pod-security enforcement":         {"owner", mutate(ns("blue-apps"), relabel("pod-security.kubernetes.io/enforce", "")), denyByRBAC},
		"weaken pod-security to privileged":       {"reconciler", mutate(ns("blue-jobs"), relabel("pod-security.kubernetes.io/enforce", "privileged")), denyByRBAC},
		"namespace without the prefix":            {"reconciler", create(labelledNamespace("preview", "blue")), "LL009"},
		"namespace labelled for another tenant":   {"reconciler", create(labelledNamespace("blue-spy", "red")), "LL009"},
		"delete a platform-assigned namespace":    {"owner", remove(ns("blue-jobs")), denyByRBAC},
		"delete another tenant's namespace":       {"owner", remove(ns("red-apps")), denyByRBAC},

		// Guard rails Landlord manages.
		"edit the managed NetworkPolicy": {"owner", mutate(&networkingv1.NetworkPolicy{ObjectMeta: blueMeta("landlord-isolation")}, func(o client.Object) {
			o.(*networkingv1.NetworkPolicy).Spec.Ingress = []networkingv1.NetworkPolicyIngressRule{{}}
		}), "LL010"},
		"delete the managed NetworkPolicy":     {"owner", remove(&networkingv1.NetworkPolicy{ObjectMeta: blueMeta("landlord-isolation")}), "LL010"},
		"own NetworkPolicy":                    {"owner", create(&networkingv1.NetworkPolicy{ObjectMeta: blueMeta("web"), Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{"Ingress"}}}), ""},
		"update the ResourceQuota":             {"owner", mutate(&corev1.ResourceQuota{ObjectMeta: blueMeta("landlord-quota")}, func(client.Object) {}), denyByRBAC},
		"delete the ResourceQuota":             {"reconciler", remove(&corev1.ResourceQuota{ObjectMeta: blueMeta("landlord-quota")}), denyByRBAC},
		"delete the reconciler RoleBinding":    {"owner", remove(&rbacv1.RoleBinding{ObjectMeta: blueMeta("landlord-reconciler")}), "LL010"},
		"edit the tenant variables":            {"reconciler", mutate(&corev1.ConfigMap{ObjectMeta: blueMeta("tenant-vars")}, func(o client.Object) { o.(*corev1.ConfigMap).Data["TENANT_NAME"] = "red" }), "LL010"},
		"delete the reconciler ServiceAccount": {"owner", remove(&corev1.ServiceAccount{ObjectMeta: blueMeta("blue")}), "LL010"},

		// RBAC inside the namespace.
		"bind its own service account":          {"reconciler", create(roleBinding(v1alpha1.DefaultRole, rbacv1.Subject{Kind: "ServiceAccount", Name: "ci", Namespace: "blue-jobs"})), ""},
		"bind another tenant's service account": {"reconciler", create(roleBinding(v1alpha1.DefaultRole, rbacv1.Subject{Kind: "ServiceAccount", Name: "red", Namespace: "red-apps"})), "LL011"},
		"bind every service account":            {"reconciler", create(roleBinding(v1alpha1.DefaultRole, rbacv1.Subject{Kind: "Group", Name: "system:serviceaccounts", APIGroup: rbacv1.GroupName})), "LL011"},
		"bind a platform cluster role":          {"owner", create(roleBinding("system:controller:namespace-controller", rbacv1.Subject{Kind: "ServiceAccount", Name: "ci", Namespace: "blue-apps"})), denyByRBAC},
		"create a ClusterRoleBinding":           {"reconciler", create(&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "blue-escape"}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}, Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "blue", Namespace: "blue-apps"}}}), denyByRBAC},

		// Workloads and services.
		"deployment as its own service account": {"reconciler", create(deployment("app")), ""},
		"deployment without resource limits": {"reconciler", create(deployment("app", func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Resources = corev1.ResourceRequirements{}
		})), "LL016"},
		"bind a platform role it holds":        {"owner", create(roleBinding("pod-reader", rbacv1.Subject{Kind: "ServiceAccount", Name: "ci", Namespace: "blue-apps"})), "LL015"},
		"deployment running as the reconciler": {"reconciler", create(deployment("blue")), "LL012"},
		"own opaque secret":                    {"owner", create(&corev1.Secret{ObjectMeta: blueMeta("db"), StringData: map[string]string{"password": "x"}}), ""},
		"own config map":                       {"reconciler", create(&corev1.ConfigMap{ObjectMeta: blueMeta("settings"), Data: map[string]string{"LEVEL": "debug"}}), ""},
		"token secret for the reconciler":      {"owner", create(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "blue-apps", Name: "steal", Annotations: map[string]string{corev1.ServiceAccountNameKey: "blue"}}, Type: corev1.SecretTypeServiceAccountToken}), "LL012"},
		"ClusterIP service":                    {"reconciler", create(service(corev1.ServiceTypeClusterIP, nil)), ""},
		"NodePort service":                     {"reconciler", create(service(corev1.ServiceTypeNodePort, nil)), "LL013"},
		"LoadBalancer service":                 {"reconciler", create(service(corev1.ServiceTypeLoadBalancer, nil)), "LL013"},
		"service capturing external IPs":       {"reconciler", create(service(corev1.ServiceTypeClusterIP, []string{"8.8.8.8"})), "LL017"},
	}

	identities := map[string]client.Client{
		"reconciler": impersonate("system:serviceaccount:blue-apps:blue"),
		"owner":      impersonate("alice", "blue-team", "system:authenticated"),
	}
	// Blue uses up its two self-service namespaces for real; a third is over.
	for _, name := range []string{"blue-one", "blue-two"} {
		if err := identities["reconciler"].Create(ctx, labelledNamespace(name, "blue")); err != nil {
			t.Fatalf("self-service namespace %s: %v", name, err)
		}
		t.Cleanup(func() { _ = k8s.Delete(ctx, ns(name)) })
	}
	eventually(t, 30*time.Second, func() error { // adopted: the tenant may delete it
		return k8s.Get(ctx, client.ObjectKey{Namespace: "blue-two", Name: "landlord-self-service"}, &rbacv1.RoleBinding{})
	})
	attacks["namespace over the self-service limit"] = attack{"reconciler", create(labelledNamespace("blue-three", "blue")), "LL009"}
	attacks["delete its own self-service namespace"] = attack{"owner", remove(ns("blue-two")), ""}
	denials := 0
	for name, a := range attacks {
		if a.want != "" {
			denials++
		}
		t.Run(name, func(t *testing.T) {
			err := a.do(identities[a.as])
			switch a.want {
			case "":
				if err != nil {
					t.Errorf("legitimate request refused: %v", err)
				}
			case denyByRBAC:
				if !apierrors.IsForbidden(err) || strings.Contains(err.Error(), "LL0") {
					t.Errorf("got %v, want Forbidden by RBAC", err)
				}
			default:
				status := &apierrors.StatusError{}
				if !errors.As(err, &status) || status.ErrStatus.Code != 403 || !strings.Contains(err.Error(), a.want+":") {
					t.Errorf("got %v, want a denial by %s", err, a.want)
				}
			}
		})
	}
	t.Logf("%d attacks denied, %d legitimate neighbours allowed", denials, len(attacks)-denials)
	if denials < 30 {
		t.Errorf("%d attacks, want at least 30", denials)
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
			SelfService:      &v1alpha1.SelfService{Prefix: "blue-", MaxNamespaces: 2},
			Owners:           []v1alpha1.Owner{{Kind: "Group", Name: "blue-team"}},
			AllowedSources:   []string{"https://git.example.com/blue/*"},
			Quota:            &v1alpha1.Quota{Hard: corev1.ResourceList{corev1.ResourcePods: mustQuantity("10")}},
			RequireResources: true,
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
	t.Cleanup(func() { _ = k8s.Delete(ctx, podReader) })
	red := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "red"},
		Spec:       v1alpha1.TenantSpec{Namespaces: []v1alpha1.TenantNamespace{{Name: "red-apps"}}},
	}
	for _, tenant := range []*v1alpha1.Tenant{blue, red} {
		if err := k8s.Create(ctx, tenant); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(ctx, tenant) })
	}
	eventually(t, 60*time.Second, func() error {
		for _, name := range []string{"blue", "red"} {
			tenant := &v1alpha1.Tenant{}
			if err := k8s.Get(ctx, client.ObjectKey{Name: name}, tenant); err != nil {
				return err
			}
			if !metaReady(tenant) {
				return fmt.Errorf("tenant %s not ready: %+v", name, tenant.Status.Conditions)
			}
		}
		return nil
	})
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
		SecretRef: &fluxmeta.LocalObjectReference{Name: "hook-token"},
		Resources: []notificationv1.ReceiverResource{{CrossNamespaceObjectReference: notificationv1.CrossNamespaceObjectReference{Kind: "GitRepository", Name: "app", Namespace: ns}}},
	}}
}

func alert(ns string) *notificationv1beta3.Alert {
	return &notificationv1beta3.Alert{ObjectMeta: blueMeta("slack"), Spec: notificationv1beta3.AlertSpec{
		ProviderRef:  fluxmeta.LocalObjectReference{Name: "slack"},
		EventSources: []notificationv1.CrossNamespaceObjectReference{{Kind: "Kustomization", Name: "*", Namespace: ns}},
	}}
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
