package policy

import (
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// TestApprovedClassesMakeNoDefault: a class the platform approved for a
// tenant may be written by it, but not marked the cluster's default, which
// would hand the tenant every other tenant's claims, Ingresses or pods
// that name no class (LL014).
func TestApprovedClassesMakeNoDefault(t *testing.T) {
	tenant := testTenants.tenants[0].DeepCopy()
	tenant.Spec.ClusterResources = []v1alpha1.ClusterResource{
		{APIGroup: "storage.k8s.io", Kind: "StorageClass", Names: []string{"fast"}},
		{APIGroup: "networking.k8s.io", Kind: "IngressClass", Names: []string{"edge"}},
		{APIGroup: "scheduling.k8s.io", Kind: "PriorityClass", Names: []string{"high"}},
	}
	tenants := fakeTenants{tenants: []*v1alpha1.Tenant{tenant, testTenants.tenants[1]}}
	storageClass := schema.GroupKind{Group: "storage.k8s.io", Kind: "StorageClass"}
	ingressClass := schema.GroupKind{Group: "networking.k8s.io", Kind: "IngressClass"}
	named := func(name string, annotations map[string]string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Annotations: annotations}
	}
	cases := map[string]struct {
		kind schema.GroupKind
		obj  runtime.Object
		want string
	}{
		"default StorageClass":         {schema.GroupKind{Group: "storage.k8s.io", Kind: "StorageClass"}, &storagev1.StorageClass{ObjectMeta: named("fast", map[string]string{DefaultStorageClassAnnotation: "true"}), Provisioner: "x"}, "LL014"},
		"default StorageClass, beta":   {schema.GroupKind{Group: "storage.k8s.io", Kind: "StorageClass"}, &storagev1.StorageClass{ObjectMeta: named("fast", map[string]string{DefaultStorageClassBetaAnnotation: "true"}), Provisioner: "x"}, "LL014"},
		"approved StorageClass":        {schema.GroupKind{Group: "storage.k8s.io", Kind: "StorageClass"}, &storagev1.StorageClass{ObjectMeta: named("fast", map[string]string{DefaultStorageClassAnnotation: "false"}), Provisioner: "x"}, ""},
		"default IngressClass":         {schema.GroupKind{Group: "networking.k8s.io", Kind: "IngressClass"}, &networkingv1.IngressClass{ObjectMeta: named("edge", map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"})}, "LL014"},
		"approved IngressClass":        {schema.GroupKind{Group: "networking.k8s.io", Kind: "IngressClass"}, &networkingv1.IngressClass{ObjectMeta: named("edge", nil)}, ""},
		"global default PriorityClass": {schema.GroupKind{Group: "scheduling.k8s.io", Kind: "PriorityClass"}, &schedulingv1.PriorityClass{ObjectMeta: named("high", nil), Value: 1000000000, GlobalDefault: true}, "LL014"},
		"approved PriorityClass":       {schema.GroupKind{Group: "scheduling.k8s.io", Kind: "PriorityClass"}, &schedulingv1.PriorityClass{ObjectMeta: named("high", nil), Value: 1000}, ""},

		// Issue 23's census: an approved class names no other namespace.
		"StorageClass with another tenant's node secret": {storageClass, &storagev1.StorageClass{ObjectMeta: named("fast", nil), Provisioner: "smb.csi.k8s.io",
			Parameters: map[string]string{"csi.storage.k8s.io/node-stage-secret-name": "smb-creds", "csi.storage.k8s.io/node-stage-secret-namespace": "ops"}}, "LL014"},
		"StorageClass with the platform's provisioner secret": {storageClass, &storagev1.StorageClass{ObjectMeta: named("fast", nil), Provisioner: "x",
			Parameters: map[string]string{"csi.storage.k8s.io/provisioner-secret-name": "cloud", "csi.storage.k8s.io/provisioner-secret-namespace": "kube-system"}}, "LL014"},
		"StorageClass with an in-tree secretNamespace": {storageClass, &storagev1.StorageClass{ObjectMeta: named("fast", nil), Provisioner: "kubernetes.io/rbd",
			Parameters: map[string]string{"adminSecretNamespace": "kube-system"}}, "LL014"},
		"StorageClass with the claim's own secret": {storageClass, &storagev1.StorageClass{ObjectMeta: named("fast", nil), Provisioner: "smb.csi.k8s.io",
			Parameters: map[string]string{"csi.storage.k8s.io/node-stage-secret-name": "smb-creds", "csi.storage.k8s.io/node-stage-secret-namespace": "${pvc.namespace}"}}, ""},
		"StorageClass with a secret of the tenant's": {storageClass, &storagev1.StorageClass{ObjectMeta: named("fast", nil), Provisioner: "smb.csi.k8s.io",
			Parameters: map[string]string{"csi.storage.k8s.io/node-stage-secret-name": "smb-creds", "csi.storage.k8s.io/node-stage-secret-namespace": "apps-jobs"}}, ""},
		"IngressClass with another tenant's parameters": {ingressClass, &networkingv1.IngressClass{ObjectMeta: named("edge", nil), Spec: networkingv1.IngressClassSpec{Controller: "x",
			Parameters: &networkingv1.IngressClassParametersReference{Kind: "Params", Name: "p", Scope: ptr.To("Namespace"), Namespace: ptr.To("ops")}}}, "LL014"},
		"IngressClass with parameters of the tenant's": {ingressClass, &networkingv1.IngressClass{ObjectMeta: named("edge", nil), Spec: networkingv1.IngressClassSpec{Controller: "x",
			Parameters: &networkingv1.IngressClassParametersReference{Kind: "Params", Name: "p", Scope: ptr.To("Namespace"), Namespace: ptr.To("apps")}}}, ""},
	}
	for name, tc := range cases {
		req := create(reconciler, "", tc.obj)
		req.Kind, req.Name = tc.kind, tc.obj.(metav1.Object).GetName()
		if got := ruleIDs(Evaluate(req, tenants)); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
}
