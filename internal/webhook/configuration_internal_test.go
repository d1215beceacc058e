package webhook

import (
	"os"
	"slices"
	"strings"
	"testing"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	imageautov1 "github.com/fluxcd/image-automation-controller/api/v1"
	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	notificationv1 "github.com/fluxcd/notification-controller/api/v1"
	notificationv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/kinds"
	"github.com/landlord-dev/landlord/internal/policy"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// oneTenant holds tenant "t": namespace t-apps, owned by group t-owners.
type oneTenant struct{ t *v1alpha1.Tenant }

func (o oneTenant) ForNamespace(ns string) *v1alpha1.Tenant {
	if ns == "t-apps" {
		return o.t
	}
	return nil
}
func (o oneTenant) Claimant(ns string) string {
	if o.ForNamespace(ns) != nil {
		return "t"
	}
	return ""
}
func (o oneTenant) ForUser(u authenticationv1.UserInfo) []*v1alpha1.Tenant {
	for _, g := range u.Groups {
		if g == "t-owners" {
			return []*v1alpha1.Tenant{o.t}
		}
	}
	return nil
}
func (o oneTenant) SelfServiceCount(string) int         { return 0 }
func (o oneTenant) Released(string) string              { return "" }
func (o oneTenant) LandlordAccount(string, string) bool { return false }

// TestUnroutedKindsAreJudgedInProcess: the kinds the objects webhook no
// longer receives (kinds.Kind.InProcess) are judged by the in-process
// rules, which refuse the owner's write and spare the platform
// controllers'.
func TestUnroutedKindsAreJudgedInProcess(t *testing.T) {
	meta := metav1.ObjectMeta{Namespace: "t-apps", Name: "x", Labels: map[string]string{
		v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue, v1alpha1.TenantLabel: "other",
	}}
	pod := corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/t/app:1"}}}
	template := corev1.PodTemplateSpec{Spec: pod}
	objects := map[string]runtime.Object{
		"/configmaps":                       &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"k": "v"}},
		"/pods":                             &corev1.Pod{ObjectMeta: meta, Spec: pod},
		"/replicationcontrollers":           &corev1.ReplicationController{ObjectMeta: meta, Spec: corev1.ReplicationControllerSpec{Template: &template}},
		"/persistentvolumeclaims":           &corev1.PersistentVolumeClaim{ObjectMeta: meta, Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}},
		"apps/deployments":                  &appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{Template: template}},
		"apps/statefulsets":                 &appsv1.StatefulSet{ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{Template: template}},
		"apps/daemonsets":                   &appsv1.DaemonSet{ObjectMeta: meta, Spec: appsv1.DaemonSetSpec{Template: template}},
		"apps/replicasets":                  &appsv1.ReplicaSet{ObjectMeta: meta, Spec: appsv1.ReplicaSetSpec{Template: template}},
		"batch/jobs":                        &batchv1.Job{ObjectMeta: meta, Spec: batchv1.JobSpec{Template: template}},
		"batch/cronjobs":                    &batchv1.CronJob{ObjectMeta: meta, Spec: batchv1.CronJobSpec{Schedule: "@daily", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: template}}}},
		"/serviceaccounts":                  &corev1.ServiceAccount{ObjectMeta: meta, AutomountServiceAccountToken: ptr.To(true)},
		"/resourcequotas":                   &corev1.ResourceQuota{ObjectMeta: meta},
		"/limitranges":                      &corev1.LimitRange{ObjectMeta: meta},
		"networking.k8s.io/networkpolicies": &networkingv1.NetworkPolicy{ObjectMeta: meta, Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}}},
		"policy/poddisruptionbudgets":       &policyv1.PodDisruptionBudget{ObjectMeta: meta, Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr.To(intstr.FromInt32(1))}},
		"rbac.authorization.k8s.io/roles":   &rbacv1.Role{ObjectMeta: meta},
		"/services":                         &corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: []corev1.ServicePort{{Port: 80}}}},
		"kustomize.toolkit.fluxcd.io/kustomizations": &kustomizev1.Kustomization{ObjectMeta: meta, Spec: kustomizev1.KustomizationSpec{
			ServiceAccountName: "t", SourceRef: kustomizev1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: "app"}}},
		"helm.toolkit.fluxcd.io/helmreleases": &helmv2.HelmRelease{ObjectMeta: meta, Spec: helmv2.HelmReleaseSpec{
			ServiceAccountName: "t", ChartRef: &helmv2.CrossNamespaceSourceReference{Kind: sourcev1.OCIRepositoryKind, Name: "app"}}},
		"notification.toolkit.fluxcd.io/alerts": &notificationv1beta3.Alert{ObjectMeta: meta, Spec: notificationv1beta3.AlertSpec{
			ProviderRef: fluxmeta.LocalObjectReference{Name: "slack"}, EventSources: []notificationv1.CrossNamespaceObjectReference{{Kind: "Kustomization", Name: "*"}}}},
		"notification.toolkit.fluxcd.io/receivers": &notificationv1.Receiver{ObjectMeta: meta, Spec: notificationv1.ReceiverSpec{
			Type: notificationv1.GenericReceiver, Resources: []notificationv1.CrossNamespaceObjectReference{{Kind: "GitRepository", Name: "app"}}}},
		"image.toolkit.fluxcd.io/imagepolicies": &imagev1.ImagePolicy{ObjectMeta: meta, Spec: imagev1.ImagePolicySpec{
			ImageRepositoryRef: fluxmeta.NamespacedObjectReference{Name: "app"}}},
		"image.toolkit.fluxcd.io/imageupdateautomations": &imageautov1.ImageUpdateAutomation{ObjectMeta: meta, Spec: imageautov1.ImageUpdateAutomationSpec{
			SourceRef: imageautov1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "app"}}},
		"source.toolkit.fluxcd.io/gitrepositories": &sourcev1.GitRepository{ObjectMeta: meta, Spec: sourcev1.GitRepositorySpec{URL: "https://git.example.com/t/app"}},
		"source.toolkit.fluxcd.io/ocirepositories": &sourcev1.OCIRepository{ObjectMeta: meta, Spec: sourcev1.OCIRepositorySpec{URL: "oci://registry.example.com/t/app"}},
		"source.toolkit.fluxcd.io/helmrepositories": &sourcev1.HelmRepository{ObjectMeta: meta, Spec: sourcev1.HelmRepositorySpec{
			URL: "oci://registry.example.com/t/charts", Type: sourcev1.HelmRepositoryTypeOCI}},
		"source.toolkit.fluxcd.io/buckets":           &sourcev1.Bucket{ObjectMeta: meta, Spec: sourcev1.BucketSpec{Endpoint: "minio.example.com", BucketName: "t"}},
		"source.toolkit.fluxcd.io/externalartifacts": &sourcev1.ExternalArtifact{ObjectMeta: meta},
		"image.toolkit.fluxcd.io/imagerepositories":  &imagev1.ImageRepository{ObjectMeta: meta, Spec: imagev1.ImageRepositorySpec{Image: "registry.example.com/t/app"}},
		"notification.toolkit.fluxcd.io/providers":   &notificationv1beta3.Provider{ObjectMeta: meta, Spec: notificationv1beta3.ProviderSpec{Type: "generic"}},
		"source.toolkit.fluxcd.io/helmcharts": &sourcev1.HelmChart{ObjectMeta: meta, Spec: sourcev1.HelmChartSpec{Chart: "web",
			SourceRef: sourcev1.LocalHelmChartSourceReference{Kind: sourcev1.HelmRepositoryKind, Name: "charts"}}},
	}
	tenants := oneTenant{&v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "t"}, Spec: v1alpha1.TenantSpec{
		Namespaces: []v1alpha1.TenantNamespace{{Name: "t-apps"}}, Owners: []v1alpha1.Owner{{Kind: "Group", Name: "t-owners"}},
		AllowedSources: []string{"https://git.example.com/t/*", "oci://registry.example.com/t/*", "https://minio.example.com/t"},
	}}}
	controllers := []authenticationv1.UserInfo{
		{Username: tenancy.ControllerUser(tenancy.ControllerNamespace)},
		{Username: "system:serviceaccount:kube-system:namespace-controller"},
		{Username: "system:serviceaccount:flux-system:kustomize-controller"},
	}
	owner := authenticationv1.UserInfo{Username: "alice", Groups: []string{"t-owners"}}
	routed := tenantObjectRules(allOperations)
	for _, k := range kinds.Select(func(k kinds.Kind) bool { return k.InProcess }) {
		if slices.ContainsFunc(routed, func(r admissionregistrationv1.RuleWithOperations) bool {
			return slices.Contains(r.APIGroups, k.Group) && slices.Contains(r.Resources, k.Resource)
		}) {
			t.Errorf("%s/%s is routed to the webhook, which has no rule for it but the API server's", k.Group, k.Resource)
		}
		judgeAsPlatformAndOwner(t, k.Group+"/"+k.Resource, objects, tenants, controllers, owner)
	}
}

// judgeAsPlatformAndOwner checks the object of key written every way by
// each controller, allowed, and by the owner, refused.
func judgeAsPlatformAndOwner(t *testing.T, key string, objects map[string]runtime.Object, tenants policy.Tenants, controllers []authenticationv1.UserInfo, owner authenticationv1.UserInfo) {
	t.Helper()
	obj, ok := objects[key]
	if !ok {
		t.Fatalf("no object of %s to judge: add one", key)
	}
	for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update, admissionv1.Delete} {
		req := policy.Request{Operation: op, Namespace: "t-apps"}
		switch op {
		case admissionv1.Create:
			req.Object = obj
		case admissionv1.Update:
			req.Object, req.OldObject = obj, obj
		case admissionv1.Delete:
			req.OldObject = obj
		}
		for _, u := range controllers {
			req.User = u
			if errs := policy.Evaluate(req, tenants); len(errs) > 0 {
				t.Errorf("%s %s by %s: %v, want allowed: the API server no longer asks", op, key, u.Username, errs)
			}
		}
		req.User = owner
		if errs := policy.Evaluate(req, tenants); len(errs) == 0 {
			t.Errorf("%s %s by a tenant owner: allowed, want LL010: the tenant's writes must still be judged", op, key)
		}

	}
}

// TestRoleNamesEveryPolicy: the controller's role may update each policy
// it applies, by name; the names in the RBAC marker are a second list,
// held to the policies here.
func TestRoleNamesEveryPolicy(t *testing.T) {
	raw, err := os.ReadFile("../../config/rbac/role.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.Unmarshal(raw, &role); err != nil {
		t.Fatal(err)
	}
	for _, obj := range policy.ValidatingPolicies(policy.Platform{}) {
		// ValidatingAdmissionPolicy -> validatingadmissionpolicies, and the bindings.
		resource := strings.ToLower(obj.GetObjectKind().GroupVersionKind().Kind)
		if before, ok := strings.CutSuffix(resource, "y"); ok {
			resource = before + "ie"
		}
		resource += "s"
		if !slices.ContainsFunc(role.Rules, func(r rbacv1.PolicyRule) bool {
			return slices.Contains(r.Resources, resource) && slices.Contains(r.ResourceNames, obj.GetName()) && slices.Contains(r.Verbs, "patch")
		}) {
			t.Errorf("config/rbac/role.yaml lets the controller patch no %s %s", resource, obj.GetName())
		}
	}
}
