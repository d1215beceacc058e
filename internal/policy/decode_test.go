package policy

import (
	"encoding/json"
	"reflect"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// seeds are realistic objects of every judged kind, for Decode's tests and
// the fuzz corpus.
func seeds() map[schema.GroupKind]runtime.Object {
	return map[schema.GroupKind]runtime.Object{
		{Kind: "Namespace"}:             newTenantNamespace("apps", "Platform"),
		{Kind: "Pod"}:                   newPod("apps"),
		{Kind: "ReplicationController"}: &corev1.ReplicationController{Spec: corev1.ReplicationControllerSpec{Template: &corev1.PodTemplateSpec{Spec: podSpecWith("dev-team", false)}}},
		{Kind: "Service"}:               newService(corev1.ServiceTypeNodePort, "10.0.0.1"),
		{Kind: "Secret"}:                newTokenSecret("dev-team"),
		{Kind: "ServiceAccount"}:        &corev1.ServiceAccount{ObjectMeta: managedMeta("dev-team", "apps")},
		{Kind: "ConfigMap"}:             newConfigMap(managedMeta("tenant-vars", "apps")),
		{Kind: "ResourceQuota"}:         &corev1.ResourceQuota{ObjectMeta: managedMeta("landlord-quota", "apps")},
		{Kind: "LimitRange"}:            &corev1.LimitRange{ObjectMeta: managedMeta("landlord-limits", "apps")},
		{Group: "networking.k8s.io", Kind: "NetworkPolicy"}:               &networkingv1.NetworkPolicy{ObjectMeta: managedMeta("landlord-isolation", "apps")},
		{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:         newRoleBinding("ClusterRole", "cluster-admin", saSubject("flux", "ops")),
		{Group: "apps", Kind: "Deployment"}:                               newDeployment("dev-team", false),
		{Group: "apps", Kind: "StatefulSet"}:                              &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Template: corev1.PodTemplateSpec{Spec: podSpecWith("db", true)}}},
		{Group: "apps", Kind: "DaemonSet"}:                                &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: podSpecWith("dev-team", false)}}},
		{Group: "apps", Kind: "ReplicaSet"}:                               &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{Template: corev1.PodTemplateSpec{Spec: podSpecWith("app", true)}}},
		{Group: "batch", Kind: "Job"}:                                     &batchv1.Job{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: podSpecWith("dev-team", false)}}},
		{Group: "batch", Kind: "CronJob"}:                                 newCronJob("dev-team"),
		{Group: "kustomize.toolkit.fluxcd.io", Kind: "Kustomization"}:     newKustomization(),
		{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease"}:            newHelmRelease(),
		{Group: "source.toolkit.fluxcd.io", Kind: "GitRepository"}:        newGitRepository("https://git.example.com/org/app"),
		{Group: "source.toolkit.fluxcd.io", Kind: "OCIRepository"}:        newOciRepository("oci://registry.example.com/charts/app"),
		{Group: "source.toolkit.fluxcd.io", Kind: "HelmRepository"}:       newHelmRepository("https://charts.example.com"),
		{Group: "source.toolkit.fluxcd.io", Kind: "Bucket"}:               newBucket("apps", "minio.example.com", "dev-team"),
		{Group: "source.toolkit.fluxcd.io", Kind: "ExternalArtifact"}:     externalArtifactIn("apps"),
		{Group: "notification.toolkit.fluxcd.io", Kind: "Receiver"}:       newReceiver("ops"),
		{Group: "notification.toolkit.fluxcd.io", Kind: "Alert"}:          newAlert("ops"),
		{Group: "notification.toolkit.fluxcd.io", Kind: "Provider"}:       newProvider("pubsub"),
		{Group: "image.toolkit.fluxcd.io", Kind: "ImageRepository"}:       newImageRepository(),
		{Group: "image.toolkit.fluxcd.io", Kind: "ImagePolicy"}:           newImagePolicy("ops"),
		{Group: "image.toolkit.fluxcd.io", Kind: "ImageUpdateAutomation"}: newImageUpdate("ops"),
		{Kind: "PersistentVolumeClaim"}:                                   newClaim(volumeName("pv-ops-data")),
		{Group: "networking.k8s.io", Kind: "Ingress"}:                     newIngress("shop.example.com"),
		{Group: gatewayGroup, Kind: "Gateway"}:                            newGateway("tenant-gw", "web.dev.example.com"),
		{Group: gatewayGroup, Kind: "ListenerSet"}:                        newListenerSet("gateway-system/public", "web.dev.example.com"),
		{Group: gatewayGroup, Kind: "HTTPRoute"}:                          newHTTPRoute(parentRef("gateway-system", "public"), "web.dev.example.com"),
		{Group: gatewayGroup, Kind: "GRPCRoute"}:                          &gatewayv1.GRPCRoute{ObjectMeta: objectMeta("rpc", "apps"), Spec: gatewayv1.GRPCRouteSpec{Hostnames: []gatewayv1.Hostname{"rpc.dev.example.com"}}},
		{Group: gatewayGroup, Kind: "TLSRoute"}:                           &gatewayv1.TLSRoute{ObjectMeta: objectMeta("tls", "apps"), Spec: gatewayv1.TLSRouteSpec{Hostnames: []gatewayv1.Hostname{"tls.dev.example.com"}}},
		{Group: gatewayGroup, Kind: "TCPRoute"}:                           &gatewayv1.TCPRoute{ObjectMeta: objectMeta("db", "apps"), Spec: gatewayv1.TCPRouteSpec{CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{parentRef("", "edge")}}}},
		{Group: gatewayGroup, Kind: "UDPRoute"}:                           &gatewayv1.UDPRoute{ObjectMeta: objectMeta("dns", "apps"), Spec: gatewayv1.UDPRouteSpec{CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{parentRef("", "edge")}}}},
		{Group: "policy", Kind: "PodDisruptionBudget"}:                    newBudget(nil, quantity("0")),
		{Group: "storage.k8s.io", Kind: "StorageClass"}: &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast",
			Annotations: map[string]string{DefaultStorageClassAnnotation: "true"}}, Provisioner: "example.com/fast"},
		{Group: "networking.k8s.io", Kind: "IngressClass"}: &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "edge"},
			Spec: networkingv1.IngressClassSpec{Controller: "example.com/edge"}},
		{Group: "scheduling.k8s.io", Kind: "PriorityClass"}: &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000000000, GlobalDefault: true},
		{Group: "rbac.authorization.k8s.io", Kind: "Role"}: &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "reader"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}}},
		{Group: "source.toolkit.fluxcd.io", Kind: "HelmChart"}: &sourcev1.HelmChart{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "app"},
			Spec: sourcev1.HelmChartSpec{Chart: "app", SourceRef: sourcev1.LocalHelmChartSourceReference{Kind: sourcev1.HelmRepositoryKind, Name: "charts"}}},
		{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}: &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: "example.com", Conversion: &apiextensionsv1.CustomResourceConversion{
				Strategy: apiextensionsv1.WebhookConverter,
				Webhook:  &apiextensionsv1.WebhookConversion{ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: ptrTo("https://attacker.example/convert")}},
			}},
		},
	}
}

func TestDecodeKnowsEveryKind(t *testing.T) {
	s := seeds()
	for gk := range judged {
		if _, ok := s[gk]; !ok {
			t.Errorf("no seed for %s", gk)
		}
	}
	for gk := range s {
		if _, ok := judged[gk]; !ok {
			t.Errorf("seed for %s, a kind Decode does not know", gk)
		}
	}
}

func TestDecode(t *testing.T) {
	for gk, obj := range seeds() {
		t.Run(gk.String(), func(t *testing.T) {
			raw, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode(gk.WithVersion("v1"), raw)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, obj) {
				t.Fatalf("Decode = %#v, want %#v", got, obj)
			}
		})
	}
}

func TestDecodeEdges(t *testing.T) {
	ks := schema.GroupVersionKind{Group: "kustomize.toolkit.fluxcd.io", Version: "v1beta2", Kind: "Kustomization"}
	for name, tc := range map[string]struct {
		gvk     schema.GroupVersionKind
		raw     string
		want    runtime.Object
		wantErr bool
	}{
		"older version judged too": {gvk: ks, raw: `{"spec":{"sourceRef":{"kind":"GitRepository","name":"a","namespace":"flux-system"}}}`,
			want: &kustomizev1.Kustomization{Spec: kustomizev1.KustomizationSpec{SourceRef: kustomizev1.CrossNamespaceSourceReference{Kind: "GitRepository", Name: "a", Namespace: "flux-system"}}}},
		"field names are case-sensitive": {gvk: ks, raw: `{"spec":{"sourceRef":{"Namespace":"flux-system"}}}`, want: &kustomizev1.Kustomization{}},
		"unknown kind":                   {gvk: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, raw: `{}`},
		"no object":                      {gvk: ks},
		"malformed":                      {gvk: ks, raw: `{"spec":`, wantErr: true},
		"wrong type":                     {gvk: ks, raw: `{"spec":{"prune":"yes"}}`, wantErr: true},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := Decode(tc.gvk, []byte(tc.raw))
			if (err != nil) != tc.wantErr {
				t.Fatalf("Decode error = %v, want error %v", err, tc.wantErr)
			}
			if !tc.wantErr && !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Decode = %#v, want %#v", got, tc.want)
			}
		})
	}
}
