package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	imageautov1 "github.com/fluxcd/image-automation-controller/api/v1"
	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	notificationv1 "github.com/fluxcd/notification-controller/api/v1"
	notificationv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	"github.com/fluxcd/pkg/apis/acl"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/policy"
	"github.com/landlord-dev/landlord/internal/testenv"
	"github.com/landlord-dev/landlord/internal/webhook"
)

// inProcessCase is one write judged by the in-process rules.
type inProcessCase struct {
	name   string
	user   authenticationv1.UserInfo
	op     admissionv1.Operation
	object client.Object
	// want is the rule that refuses it, "" for allowed.
	want string
	// wildcard writers hold every RBAC marker: the webhook judges them.
	wildcard bool
}

// TestInProcessVerdictsAgree: every case of the in-process rules gets the
// same verdict, and the same rule, from the real API server (its
// ValidatingAdmissionPolicy; ConfigMaps, Leases, PodDisruptionBudgets,
// Services and Flux's appliers, notifications and image automation never
// reach the webhook) and from policy.Evaluate offline over an informer cache, the
// way lint and audit judge.
func TestInProcessVerdictsAgree(t *testing.T) {
	var (
		ownerA   = authenticationv1.UserInfo{Username: "ann", Groups: []string{"ipa-owners", "system:authenticated"}}
		ownerB   = authenticationv1.UserInfo{Username: "ben", Groups: []string{"ipb-owners", "system:authenticated"}}
		reconA   = authenticationv1.UserInfo{Username: "system:serviceaccount:ipa-apps:ipa", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ipa-apps", "system:authenticated"}}
		reconB   = authenticationv1.UserInfo{Username: "system:serviceaccount:ipb-apps:ipb", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ipb-apps", "system:authenticated"}}
		carol    = authenticationv1.UserInfo{Username: "carol", Groups: []string{"system:authenticated"}}
		platform = authenticationv1.UserInfo{Username: "pat", Groups: []string{"platform-admins", "system:authenticated"}}
		root     = authenticationv1.UserInfo{Username: "root", Groups: []string{"system:masters", "system:authenticated"}}
		// Kubernetes' own, which makes pods from templates admitted before.
		rsController = authenticationv1.UserInfo{Username: "system:serviceaccount:kube-system:replicaset-controller", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"}}
		// An owner of ipb whom the platform made cluster-admin by mistake.
		adminB = authenticationv1.UserInfo{Username: "bella", Groups: []string{"ipb-owners", "system:authenticated"}}
	)
	// The cluster's default priority class, which the API server writes
	// into pods naming none.
	const defaultPriorityName = "ip-default"
	defaultPriority := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: defaultPriorityName}, Value: 10, GlobalDefault: true}
	// The classes ipa's spec.clusterResources approves, which its
	// reconciler may write but never make the cluster's default.
	approvedStorage := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "ipa-nfs"}, Provisioner: "nfs.csi.k8s.io"}
	approvedIngress := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "ipa-nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "example.com/ingress"}}
	for _, obj := range []client.Object{approvedStorage, approvedIngress} {
		if err := k8s.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(ctx, obj) })
	}
	for _, name := range []string{"ipa", "ipb"} {
		tenant := &v1alpha1.Tenant{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: v1alpha1.TenantSpec{
				Namespaces: []v1alpha1.TenantNamespace{{Name: name + "-apps"}},
				Owners:     []v1alpha1.Owner{{Kind: "Group", Name: name + "-owners"}},
			},
		}
		if name == "ipa" {
			tenant.Spec.AllowedSources = []string{"https://git.example.com/ipa/*", "oci://registry.example.com/ipa/*", "https://minio.example.com/ipa"}
			tenant.Spec.Notifications = &v1alpha1.Notifications{Type: "generic", Address: "https://hooks.example.com/ipa"}
			tenant.Spec.Scheduling = &v1alpha1.Scheduling{PriorityClasses: []string{"ipa-batch"}, NodeLabels: []v1alpha1.NodeLabel{{Key: "pool", Values: []string{"ipa"}}},
				Tolerations: []v1alpha1.AllowedToleration{{Key: "dedicated", Value: "ipa", Effect: corev1.TaintEffectNoSchedule}}}
			tenant.Spec.Storage = &v1alpha1.Storage{Classes: []string{"fast"}}
			tenant.Spec.Images = &v1alpha1.Images{Allowed: []string{"registry.example.com/ipa", "docker.io/library"}}
			tenant.Spec.ClusterResources = []v1alpha1.ClusterResource{
				{APIGroup: storagev1.GroupName, Kind: "StorageClass", Names: []string{approvedStorage.Name}},
				{APIGroup: networkingv1.GroupName, Kind: "IngressClass", Names: []string{approvedIngress.Name}},
				// The cluster's global default below, which the Priority
				// plugin keeps the only one.
				{APIGroup: schedulingv1.GroupName, Kind: "PriorityClass", Names: []string{defaultPriorityName}},
			}
		}
		if name == "ipb" {
			tenant.Spec.Network.AllowServiceTypes = []corev1.ServiceType{corev1.ServiceTypeNodePort}
			tenant.Spec.AllowWorkloadIdentity = true
			tenant.Spec.RequireResources = true
			tenant.Spec.Images = &v1alpha1.Images{Allowed: []string{"registry.example.com/ipb"}, PullAlways: true}
		}
		if err := k8s.Create(ctx, tenant); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(ctx, tenant) })
	}
	// A namespace labelled for ipa that ipa does not hold.
	stray := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ipa-stray", Labels: map[string]string{v1alpha1.TenantLabel: "ipa"}}}
	if err := k8s.Create(ctx, stray); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, stray) })
	testenv.Eventually(t, 30*time.Second, func() error {
		return k8s.Get(ctx, client.ObjectKey{Namespace: "ipb-apps", Name: v1alpha1.VariablesConfigMap}, &corev1.ConfigMap{})
	})
	// The platform's mistake the rules stand behind: edit rights
	// everywhere for tenant ipb's identities, for carol, of no tenant, and
	// for ipa's owners; the platform's admins need them too.
	mistake := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "in-process-mistake"},
		Subjects: []rbacv1.Subject{
			{Kind: "Group", Name: "ipb-owners"}, {Kind: "ServiceAccount", Namespace: "ipb-apps", Name: "ipb"},
			{Kind: "User", Name: "carol"}, {Kind: "Group", Name: "ipa-owners"}, {Kind: "Group", Name: "platform-admins"},
		},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
	}
	admin := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "in-process-admin"},
		Subjects:   []rbacv1.Subject{{Kind: "User", Name: "bella"}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
	}
	for _, b := range []*rbacv1.ClusterRoleBinding{mistake, admin} {
		if err := k8s.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(ctx, b) })
	}

	configMap := func(ns, name string, labels map[string]string) client.Object {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}, Data: map[string]string{"k": "v"}}
	}
	// budget is a PodDisruptionBudget with maxUnavailable, or minAvailable
	// where maxUnavailable is the zero IntOrString.
	budget := func(ns string, maxUnavailable intstr.IntOrString, minAvailable *intstr.IntOrString) client.Object {
		pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: minAvailable}}
		if minAvailable == nil {
			pdb.Spec.MaxUnavailable = &maxUnavailable
		}
		return pdb
	}
	service := func(ns string, kind corev1.ServiceType, externalIPs ...string) client.Object {
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: corev1.ServiceSpec{Type: kind, ExternalIPs: externalIPs}}
		if kind == corev1.ServiceTypeExternalName {
			svc.Spec.ExternalName = "web.ipb-apps.svc.cluster.local"
		} else {
			svc.Spec.Ports = []corev1.ServicePort{{Port: 80}}
		}
		return svc
	}
	// sync is a Kustomization of ns as its tenant's reconciler, edited.
	sync := func(ns, reconciler string, edit func(*kustomizev1.Kustomization)) client.Object {
		k := &kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"}, Spec: kustomizev1.KustomizationSpec{
			Interval: metav1.Duration{Duration: time.Minute}, Prune: true, ServiceAccountName: reconciler,
			SourceRef: kustomizev1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: "app"},
		}}
		edit(k)
		return k
	}
	release := func(edit func(*helmv2.HelmRelease)) client.Object {
		h := &helmv2.HelmRelease{ObjectMeta: metav1.ObjectMeta{Namespace: "ipa-apps", Name: "app"}, Spec: helmv2.HelmReleaseSpec{
			Interval: metav1.Duration{Duration: time.Minute}, ServiceAccountName: "ipa",
			ChartRef: &helmv2.CrossNamespaceSourceReference{Kind: sourcev1.OCIRepositoryKind, Name: "app"},
		}}
		edit(h)
		return h
	}
	alert := func(watched string) client.Object {
		return &notificationv1beta3.Alert{ObjectMeta: metav1.ObjectMeta{Namespace: "ipa-apps", Name: "slack"}, Spec: notificationv1beta3.AlertSpec{
			ProviderRef:  fluxmeta.LocalObjectReference{Name: "slack"},
			EventSources: []notificationv1.CrossNamespaceObjectReference{{Kind: kustomizev1.KustomizationKind, Name: "*"}, {Kind: kustomizev1.KustomizationKind, Name: "*", Namespace: watched}},
		}}
	}
	receiver := func(triggered string) client.Object {
		return &notificationv1.Receiver{ObjectMeta: metav1.ObjectMeta{Namespace: "ipa-apps", Name: "hook"}, Spec: notificationv1.ReceiverSpec{
			Type: notificationv1.GenericReceiver, SecretRef: fluxmeta.LocalObjectReference{Name: "token"},
			Resources: []notificationv1.CrossNamespaceObjectReference{{Kind: sourcev1.GitRepositoryKind, Name: "app", Namespace: triggered}},
		}}
	}
	imagePolicy := func(repository string) client.Object {
		return &imagev1.ImagePolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "ipa-apps", Name: "app"}, Spec: imagev1.ImagePolicySpec{
			ImageRepositoryRef: fluxmeta.NamespacedObjectReference{Name: "app", Namespace: repository},
			Policy:             imagev1.ImagePolicyChoice{SemVer: &imagev1.SemVerPolicy{Range: ">=1.0.0"}},
		}}
	}
	automation := func(source string) client.Object {
		return &imageautov1.ImageUpdateAutomation{ObjectMeta: metav1.ObjectMeta{Namespace: "ipa-apps", Name: "auto"}, Spec: imageautov1.ImageUpdateAutomationSpec{
			SourceRef: imageautov1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: "app", Namespace: source}, Interval: metav1.Duration{Duration: time.Minute},
		}}
	}
	// Where Flux fetches from and posts to: ipa is confined to its
	// allowedSources, ipb is not and allows workload identity.
	git := func(ns, url string, edit func(*sourcev1.GitRepository)) client.Object {
		g := &sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"}, Spec: sourcev1.GitRepositorySpec{URL: url, Interval: metav1.Duration{Duration: time.Minute}}}
		edit(g)
		return g
	}
	noEdit := func(*sourcev1.GitRepository) {}
	oci := func(url, provider, account string) client.Object {
		return &sourcev1.OCIRepository{ObjectMeta: metav1.ObjectMeta{Namespace: "ipa-apps", Name: "app"}, Spec: sourcev1.OCIRepositorySpec{
			URL: url, Provider: provider, ServiceAccountName: account, Interval: metav1.Duration{Duration: time.Minute}}}
	}
	helmRepo := func(url, kind string) client.Object {
		return &sourcev1.HelmRepository{ObjectMeta: metav1.ObjectMeta{Namespace: "ipa-apps", Name: "charts"}, Spec: sourcev1.HelmRepositorySpec{URL: url, Type: kind, Interval: metav1.Duration{Duration: time.Minute}}}
	}
	bucket := func(ns, name string, edit func(*sourcev1.Bucket)) client.Object {
		b := &sourcev1.Bucket{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "b"}, Spec: sourcev1.BucketSpec{Endpoint: "minio.example.com", BucketName: name, Interval: metav1.Duration{Duration: time.Minute}}}
		edit(b)
		return b
	}
	plainBucket := func(*sourcev1.Bucket) {}
	artifact := &sourcev1.ExternalArtifact{ObjectMeta: metav1.ObjectMeta{Namespace: "ipa-apps", Name: "art"}}
	scan := func(image string, edit func(*imagev1.ImageRepository)) client.Object {
		r := &imagev1.ImageRepository{ObjectMeta: metav1.ObjectMeta{Namespace: "ipa-apps", Name: "scan"}, Spec: imagev1.ImageRepositorySpec{Image: image, Interval: metav1.Duration{Duration: time.Minute}}}
		edit(r)
		return r
	}
	notifier := func(kind, address, account string) client.Object {
		return &notificationv1beta3.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: "ipa-apps", Name: "hook"}, Spec: notificationv1beta3.ProviderSpec{Type: kind, Address: address, ServiceAccountName: account}}
	}
	// What pods run: ipa bounds classes, nodes, taints, storage and
	// registries; ipb requires resources and every pull checked.
	podSpec := func(edit func(*corev1.PodSpec)) corev1.PodSpec {
		// Restricted, as Pod Security Admission holds tenant pods.
		s := corev1.PodSpec{
			SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/ipa/app:1", SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}}},
		}
		edit(&s)
		return s
	}
	pod := func(edit func(*corev1.PodSpec)) client.Object {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ipa-apps", Name: "web"}, Spec: podSpec(edit)}
	}
	labels := map[string]string{"app": "web"}
	template := func(ns string, edit func(*corev1.PodSpec)) corev1.PodTemplateSpec {
		t := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpec(edit)}
		if ns == "ipb-apps" {
			t.Spec.Containers[0].Image = "registry.example.com/ipb/app:1"
		}
		return t
	}
	deployment := func(ns string, edit func(*corev1.PodSpec)) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: template(ns, edit)}}
	}
	noPodEdit := func(*corev1.PodSpec) {}
	resourced := func(p *corev1.PodSpec) {
		quantity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")}
		p.Containers[0].Resources = corev1.ResourceRequirements{Requests: quantity, Limits: quantity}
		p.Containers[0].ImagePullPolicy = corev1.PullAlways
	}
	claimSpec := func(edit func(*corev1.PersistentVolumeClaimSpec)) corev1.PersistentVolumeClaimSpec {
		s := corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}
		edit(&s)
		return s
	}
	claim := func(edit func(*corev1.PersistentVolumeClaimSpec)) client.Object {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ipa-apps", Name: "data"}, Spec: claimSpec(edit)}
	}
	affinity := func(term corev1.PodAffinityTerm) func(*corev1.PodSpec) {
		return func(p *corev1.PodSpec) {
			p.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}}}
		}
	}
	nodeTerm := func(term corev1.NodeSelectorTerm) func(*corev1.PodSpec) {
		return func(p *corev1.PodSpec) {
			p.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}}}
		}
	}
	sourceTemplate := map[string]string{"landlord.dev/source": "template"}
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "ipa-apps", Name: "leader"}}
	managed := map[string]string{v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue}
	cases := []inProcessCase{
		{"owner writes a ConfigMap", ownerA, admissionv1.Create, configMap("ipa-apps", "app", nil), "", false},
		{"owner labels a ConfigMap as Landlord's", ownerA, admissionv1.Create, configMap("ipa-apps", "fake", managed), "LL010", false},
		{"owner empties the variables", ownerA, admissionv1.Update, configMap("ipa-apps", v1alpha1.VariablesConfigMap, nil), "LL010", false},
		{"owner deletes the variables", ownerA, admissionv1.Delete, configMap("ipa-apps", v1alpha1.VariablesConfigMap, nil), "LL010", false},
		{"platform rewrites the variables", platform, admissionv1.Update, configMap("ipa-apps", v1alpha1.VariablesConfigMap, managed), "", false},
		{"other tenant's owner writes", ownerB, admissionv1.Create, configMap("ipa-apps", "b", nil), "LL028", false},
		{"other tenant's reconciler writes", reconB, admissionv1.Create, configMap("ipa-apps", "b", nil), "LL028", false},
		{"the reconciler writes in its own namespace", reconB, admissionv1.Create, configMap("ipb-apps", "b", nil), "", false},
		{"other tenant's owner takes a Lease", ownerB, admissionv1.Create, lease, "LL028", false},
		{"reconciler makes its approved StorageClass the default", reconA, admissionv1.Update, marked(approvedStorage, policy.DefaultStorageClassAnnotation), "LL014", false},
		{"reconciler makes it the default by the beta annotation", reconA, admissionv1.Update, marked(approvedStorage, policy.DefaultStorageClassBetaAnnotation), "LL014", false},
		{"reconciler makes its approved IngressClass the default", reconA, admissionv1.Update, marked(approvedIngress, networkingv1.AnnotationIsDefaultIngressClass), "LL014", false},
		{"reconciler writes its approved PriorityClass, the global default", reconA, admissionv1.Update, labelled(defaultPriority), "LL014", false},
		{"reconciler labels its approved StorageClass", reconA, admissionv1.Update, labelled(approvedStorage), "", false},
		{"platform makes the approved StorageClass the default", root, admissionv1.Update, marked(approvedStorage, policy.DefaultStorageClassAnnotation), "", false},
		{"an identity of no tenant writes", carol, admissionv1.Create, configMap("ipa-apps", "c", nil), "", false},
		{"other tenant's owner, cluster-admin, writes", adminB, admissionv1.Create, configMap("ipa-apps", "b", nil), "LL028", true},
		{"owner, cluster-admin, writes in its own tenant's namespace", adminB, admissionv1.Create, configMap("ipb-apps", "b", nil), "", true},
		{"owner takes a Lease", ownerA, admissionv1.Create, lease, "", false},
		{"owner's budget allows no eviction", ownerA, admissionv1.Create, budget("ipa-apps", intstr.FromInt32(0), nil), "LL023", false},
		{"owner's budget allows 0% unavailable", ownerA, admissionv1.Create, budget("ipa-apps", intstr.FromString("0%"), nil), "LL023", false},
		{"owner's budget keeps every pod", ownerA, admissionv1.Create, budget("ipa-apps", intstr.IntOrString{}, ptr.To(intstr.FromString("100%"))), "LL023", false},
		{"owner's budget allows one eviction", ownerA, admissionv1.Create, budget("ipa-apps", intstr.FromInt32(1), nil), "", false},
		{"owner's budget keeps most pods", ownerA, admissionv1.Create, budget("ipa-apps", intstr.IntOrString{}, ptr.To(intstr.FromString("90%"))), "", false},
		{"owner's NodePort Service", ownerA, admissionv1.Create, service("ipa-apps", corev1.ServiceTypeNodePort), "LL013", false},
		{"owner's LoadBalancer Service", ownerA, admissionv1.Create, service("ipa-apps", corev1.ServiceTypeLoadBalancer), "LL013", false},
		{"owner's ExternalName Service", ownerA, admissionv1.Create, service("ipa-apps", corev1.ServiceTypeExternalName), "LL021", false},
		{"owner's Service capturing external IPs", ownerA, admissionv1.Create, service("ipa-apps", corev1.ServiceTypeClusterIP, "203.0.113.10"), "LL017", false},
		{"owner's ClusterIP Service", ownerA, admissionv1.Create, service("ipa-apps", corev1.ServiceTypeClusterIP), "", false},
		{"NodePort Service where the tenant allows it", ownerB, admissionv1.Create, service("ipb-apps", corev1.ServiceTypeNodePort), "", false},
		{"LoadBalancer Service where only NodePort is allowed", ownerB, admissionv1.Create, service("ipb-apps", corev1.ServiceTypeLoadBalancer), "LL013", false},
		{"owner's Kustomization of its own namespace", ownerA, admissionv1.Create, sync("ipa-apps", "ipa", func(*kustomizev1.Kustomization) {}), "", false},
		{"owner's Kustomization of a source in flux-system", ownerA, admissionv1.Create, sync("ipa-apps", "ipa", func(k *kustomizev1.Kustomization) { k.Spec.SourceRef.Namespace = "flux-system" }), "LL002", false},
		{"owner's Kustomization after one in another namespace", ownerA, admissionv1.Create, sync("ipa-apps", "ipa", func(k *kustomizev1.Kustomization) {
			k.Spec.DependsOn = []kustomizev1.DependencyReference{{Name: "infra"}, {Name: "app", Namespace: "ipb-apps"}}
		}), "LL002", false},
		{"owner's Kustomization applying into another tenant", ownerA, admissionv1.Create, sync("ipa-apps", "ipa", func(k *kustomizev1.Kustomization) { k.Spec.TargetNamespace = "ipb-apps" }), "LL003", false},
		{"owner's Kustomization applying into a namespace it does not hold", ownerA, admissionv1.Create, sync("ipa-apps", "ipa", func(k *kustomizev1.Kustomization) { k.Spec.TargetNamespace = "ipa-stray" }), "LL003", false},
		{"owner's Kustomization applying into its own namespace by name", ownerA, admissionv1.Create, sync("ipa-apps", "ipa", func(k *kustomizev1.Kustomization) { k.Spec.TargetNamespace = "ipa-apps" }), "", false},
		{"owner's Kustomization applying into a name no namespace has", ownerA, admissionv1.Create, sync("ipa-apps", "ipa", func(k *kustomizev1.Kustomization) { k.Spec.TargetNamespace = "Not_A_Namespace" }), "LL003", false},
		{"platform's NodePort Service in a tenant namespace, its content judged", platform, admissionv1.Create, service("ipa-apps", corev1.ServiceTypeNodePort), "LL013", false},
		{"owner's Kustomization of a remote cluster", ownerA, admissionv1.Create, sync("ipa-apps", "ipa", func(k *kustomizev1.Kustomization) {
			k.Spec.KubeConfig = &fluxmeta.KubeConfigReference{SecretRef: &fluxmeta.SecretKeyReference{Name: "prod"}}
		}), "LL004", false},
		{"owner's Kustomization decrypting with the controller's keys", ownerA, admissionv1.Create, sync("ipa-apps", "ipa", func(k *kustomizev1.Kustomization) {
			k.Spec.Decryption = &kustomizev1.Decryption{Provider: "sops"}
		}), "LL005", false},
		{"owner's Kustomization decrypting with its own keys", ownerA, admissionv1.Create, sync("ipa-apps", "ipa", func(k *kustomizev1.Kustomization) {
			k.Spec.Decryption = &kustomizev1.Decryption{Provider: "sops", SecretRef: &fluxmeta.LocalObjectReference{Name: "sops"}}
		}), "", false},
		{"owner's Kustomization decrypting as a cloud identity", ownerA, admissionv1.Create, sync("ipa-apps", "ipa", func(k *kustomizev1.Kustomization) {
			k.Spec.Decryption = &kustomizev1.Decryption{Provider: "sops", ServiceAccountName: "kms"}
		}), "LL005", false},
		{"cloud identity decryption where the tenant allows it", ownerB, admissionv1.Create, sync("ipb-apps", "ipb", func(k *kustomizev1.Kustomization) {
			k.Spec.Decryption = &kustomizev1.Decryption{Provider: "sops", ServiceAccountName: "kms"}
		}), "", false},
		{"owner's HelmRelease of a chart in another namespace", ownerA, admissionv1.Create, release(func(h *helmv2.HelmRelease) { h.Spec.ChartRef.Namespace = "flux-system" }), "LL002", false},
		{"owner's HelmRelease storing in kube-system", ownerA, admissionv1.Create, release(func(h *helmv2.HelmRelease) { h.Spec.StorageNamespace = "kube-system" }), "LL003", false},
		{"owner's HelmRelease of a remote cluster", ownerA, admissionv1.Create, release(func(h *helmv2.HelmRelease) {
			h.Spec.KubeConfig = &fluxmeta.KubeConfigReference{SecretRef: &fluxmeta.SecretKeyReference{Name: "prod"}}
		}), "LL004", false},
		{"owner's HelmRelease", ownerA, admissionv1.Create, release(func(*helmv2.HelmRelease) {}), "", false},
		{"owner's Alert on its own namespace", ownerA, admissionv1.Create, alert("ipa-apps"), "", false},
		{"owner's Alert on another tenant's namespace", ownerA, admissionv1.Create, alert("ipb-apps"), "LL006", false},
		{"owner's Alert on a namespace it does not hold", ownerA, admissionv1.Create, alert("ipa-stray"), "LL006", false},
		{"owner's Receiver of its own source", ownerA, admissionv1.Create, receiver(""), "", false},
		{"owner's Receiver of another tenant's source", ownerA, admissionv1.Create, receiver("ipb-apps"), "LL006", false},
		{"owner's ImagePolicy of its own scan", ownerA, admissionv1.Create, imagePolicy(""), "", false},
		{"owner's ImagePolicy of another tenant's scan", ownerA, admissionv1.Create, imagePolicy("ipb-apps"), "LL007", false},
		{"owner's automation of its own repository", ownerA, admissionv1.Create, automation("ipa-apps"), "", false},
		{"owner's automation of flux-system's repository", ownerA, admissionv1.Create, automation("flux-system"), "LL007", false},
		{"owner's GitRepository in its allowedSources", ownerA, admissionv1.Create, git("ipa-apps", "https://git.example.com/ipa/app", noEdit), "", false},
		{"owner's GitRepository from elsewhere", ownerA, admissionv1.Create, git("ipa-apps", "https://github.com/attacker/app", noEdit), "LL008", false},
		{"owner's GitRepository past its prefix by a dot segment", ownerA, admissionv1.Create, git("ipa-apps", "https://git.example.com/ipa/../platform/fleet", noEdit), "LL008", false},
		{"owner's GitRepository past its prefix by an encoded slash", ownerA, admissionv1.Create, git("ipa-apps", "https://git.example.com/ipa/a%2F..%2F..%2Fplatform", noEdit), "LL008", false},
		{"owner's GitRepository behind user information", ownerA, admissionv1.Create, git("ipa-apps", "https://git.example.com@evil.example.com/ipa/app", noEdit), "LL008", false},
		{"owner's GitRepository with submodules", ownerA, admissionv1.Create, git("ipa-apps", "https://git.example.com/ipa/app", func(g *sourcev1.GitRepository) { g.Spec.RecurseSubmodules = true }), "LL027", false},
		{"owner's GitRepository as the controller's cloud identity", ownerA, admissionv1.Create, git("ipa-apps", "https://git.example.com/ipa/app", func(g *sourcev1.GitRepository) { g.Spec.Provider = "azure" }), "LL005", false},
		{"owner's GitRepository as its own cloud identity, not allowed", ownerA, admissionv1.Create, git("ipa-apps", "https://git.example.com/ipa/app", func(g *sourcev1.GitRepository) {
			g.Spec.Provider, g.Spec.ServiceAccountName = "azure", "fetcher"
		}), "LL005", false},
		{"GitRepository as its own cloud identity where the tenant allows it", ownerB, admissionv1.Create, git("ipb-apps", "https://github.com/anyone/app", func(g *sourcev1.GitRepository) {
			g.Spec.Provider, g.Spec.ServiceAccountName = "azure", "fetcher"
		}), "", false},
		{"platform's template GitRepository outside allowedSources", root, admissionv1.Create, git("ipa-apps", "https://git.platform.example.com/base", func(g *sourcev1.GitRepository) { g.Labels = sourceTemplate }), "", false},
		{"owner's GitRepository labelled as a template", ownerA, admissionv1.Create, git("ipa-apps", "https://git.platform.example.com/base", func(g *sourcev1.GitRepository) { g.Labels = sourceTemplate }), "LL008", false},
		{"owner's OCIRepository in its allowedSources", ownerA, admissionv1.Create, oci("oci://registry.example.com/ipa/app", "", ""), "", false},
		{"owner's OCIRepository from elsewhere", ownerA, admissionv1.Create, oci("oci://registry.example.com/other/app", "", ""), "LL008", false},
		{"owner's HTTP HelmRepository, whose index lists any URL", ownerA, admissionv1.Create, helmRepo("https://git.example.com/ipa/charts", ""), "LL027", false},
		{"owner's OCI HelmRepository", ownerA, admissionv1.Create, helmRepo("oci://registry.example.com/ipa/charts", sourcev1.HelmRepositoryTypeOCI), "", false},
		{"owner's Bucket in its allowedSources", ownerA, admissionv1.Create, bucket("ipa-apps", "ipa", plainBucket), "", false},
		{"owner's Bucket of another", ownerA, admissionv1.Create, bucket("ipa-apps", "ipb", plainBucket), "LL008", false},
		{"Bucket of a tenant without allowedSources", ownerB, admissionv1.Create, bucket("ipb-apps", "ipb", plainBucket), "LL008", false},
		{"owner's ExternalArtifact", ownerA, admissionv1.Create, artifact, "LL027", false},
		{"platform's ExternalArtifact", root, admissionv1.Create, artifact, "", false},
		{"owner's image scan in its allowedSources", ownerA, admissionv1.Create, scan("registry.example.com/ipa/app", func(*imagev1.ImageRepository) {}), "", false},
		{"owner's image scan of another registry", ownerA, admissionv1.Create, scan("registry.example.com/other/app", func(*imagev1.ImageRepository) {}), "LL008", false},
		{"owner's image scan opened to other namespaces", ownerA, admissionv1.Create, scan("registry.example.com/ipa/app", func(r *imagev1.ImageRepository) {
			r.Spec.AccessFrom = &acl.AccessFrom{NamespaceSelectors: []acl.NamespaceSelector{{MatchLabels: map[string]string{}}}}
		}), "LL007", false},
		{"owner's OCIRepository as the controller's cloud identity", ownerA, admissionv1.Create, oci("oci://registry.example.com/ipa/app", "aws", ""), "LL005", false},
		{"owner's OCIRepository as an account's cloud identity", ownerA, admissionv1.Create, oci("oci://registry.example.com/ipa/app", "generic", "puller"), "LL005", false},
		{"owner's HelmRepository from elsewhere", ownerA, admissionv1.Create, helmRepo("oci://registry.example.com/other/charts", sourcev1.HelmRepositoryTypeOCI), "LL008", false},
		{"owner's HelmRepository as the controller's cloud identity", ownerA, admissionv1.Create, func() client.Object {
			h := helmRepo("oci://registry.example.com/ipa/charts", sourcev1.HelmRepositoryTypeOCI).(*sourcev1.HelmRepository)
			h.Spec.Provider = "azure"
			return h
		}(), "LL005", false},
		{"owner's Bucket as the controller's cloud identity", ownerA, admissionv1.Create, bucket("ipa-apps", "ipa", func(b *sourcev1.Bucket) { b.Spec.Provider = "aws" }), "LL005", false},
		{"owner's Bucket as an account's cloud identity", ownerA, admissionv1.Create, bucket("ipa-apps", "ipa", func(b *sourcev1.Bucket) { b.Spec.Provider, b.Spec.ServiceAccountName = "aws", "reader" }), "LL005", false},
		{"owner's Bucket sending its credentials to another token service", ownerA, admissionv1.Create, bucket("ipa-apps", "ipa", func(b *sourcev1.Bucket) {
			b.Spec.STS = &sourcev1.BucketSTSSpec{Provider: "ldap", Endpoint: "https://ldap.example.com"}
		}), "LL008", false},
		{"owner's image scan as the controller's cloud identity", ownerA, admissionv1.Create, scan("registry.example.com/ipa/app", func(r *imagev1.ImageRepository) { r.Spec.Provider = "aws" }), "LL005", false},
		{"owner's image scan as an account's cloud identity", ownerA, admissionv1.Create, scan("registry.example.com/ipa/app", func(r *imagev1.ImageRepository) { r.Spec.ServiceAccountName = "scanner" }), "LL005", false},
		{"owner's notifier as an account's cloud identity", ownerA, admissionv1.Create, notifier("generic", "https://hooks.example.com/ipa", "poster"), "LL005", false},
		{"owner's notifier through another proxy", ownerA, admissionv1.Create, func() client.Object {
			p := notifier("generic", "https://hooks.example.com/ipa", "").(*notificationv1beta3.Provider)
			p.Spec.Proxy = "http://10.0.0.1:3128"
			return p
		}(), "LL008", false},
		{"owner's HelmRelease of a chart template in another namespace", ownerA, admissionv1.Create, release(func(h *helmv2.HelmRelease) {
			h.Spec.ChartRef = nil
			h.Spec.Chart = &helmv2.HelmChartTemplate{Spec: helmv2.HelmChartTemplateSpec{Chart: "app",
				SourceRef: helmv2.CrossNamespaceObjectReference{Kind: sourcev1.HelmRepositoryKind, Name: "charts", Namespace: "flux-system"}}}
		}), "LL002", false},
		{"owner's HelmRelease after one in another namespace", ownerA, admissionv1.Create, release(func(h *helmv2.HelmRelease) {
			h.Spec.DependsOn = []helmv2.DependencyReference{{Name: "db", Namespace: "ipb-apps"}}
		}), "LL002", false},
		{"owner's HelmRelease installing into another tenant", ownerA, admissionv1.Create, release(func(h *helmv2.HelmRelease) { h.Spec.TargetNamespace = "ipb-apps" }), "LL003", false},
		{"owner's notifier posting to its notifications address", ownerA, admissionv1.Create, notifier("generic", "https://hooks.example.com/ipa", ""), "", false},
		{"owner's notifier posting to the cloud's metadata address", ownerA, admissionv1.Create, notifier("generic", "http://169.254.169.254/latest", ""), "LL008", false},
		{"owner's pubsub notifier as the controller's identity", ownerA, admissionv1.Create, notifier("googlepubsub", "my-project", ""), "LL005", false},
		{"owner's Deployment", ownerA, admissionv1.Create, deployment("ipa-apps", noPodEdit), "", false},
		{"owner's Deployment running as the reconciler", ownerA, admissionv1.Create, deployment("ipa-apps", func(p *corev1.PodSpec) { p.ServiceAccountName = "ipa" }), "LL012", false},
		{"owner's pod running as the reconciler by the field's old name", ownerA, admissionv1.Create, pod(func(p *corev1.PodSpec) { p.DeprecatedServiceAccount = "ipa" }), "LL012", false},
		{"owner's pod naming no class, given the cluster's default", ownerA, admissionv1.Create, pod(noPodEdit), "", false},
		{"owner's CronJob of its tenant's priority class", ownerA, admissionv1.Create, &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "ipa-apps", Name: "nightly"},
			Spec: batchv1.CronJobSpec{Schedule: "@daily", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: func() corev1.PodTemplateSpec {
				t := template("ipa-apps", func(p *corev1.PodSpec) { p.PriorityClassName = "ipa-batch" })
				t.Spec.RestartPolicy = corev1.RestartPolicyNever
				return t
			}()}}}}, "", false},
		{"owner's Deployment preempting as the cluster's components", ownerA, admissionv1.Create, deployment("ipa-apps", func(p *corev1.PodSpec) { p.PriorityClassName = "system-cluster-critical" }), "LL019", false},
		{"owner's pod pinned to a node", ownerA, admissionv1.Create, pod(func(p *corev1.PodSpec) { p.NodeName = "worker-1" }), "LL019", false},
		{"owner's Deployment on the control plane's nodes", ownerA, admissionv1.Create, deployment("ipa-apps", func(p *corev1.PodSpec) {
			p.NodeSelector = map[string]string{"node-role.kubernetes.io/control-plane": ""}
		}), "LL019", false},
		{"owner's Deployment on its pool", ownerA, admissionv1.Create, deployment("ipa-apps", func(p *corev1.PodSpec) {
			p.NodeSelector = map[string]string{"pool": "ipa", corev1.LabelArchStable: "arm64"}
		}), "", false},
		{"owner's pod affine to another tenant's pool", ownerA, admissionv1.Create, pod(nodeTerm(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "pool", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"ipa"}}}})), "LL019", false},
		{"owner's pod picking a node by name", ownerA, admissionv1.Create, pod(nodeTerm(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"worker-1"}}}})), "LL019", false},
		{"owner's pod keeping every tenant's pods off its nodes", ownerA, admissionv1.Create, pod(affinity(corev1.PodAffinityTerm{
			TopologyKey: corev1.LabelHostname, NamespaceSelector: &metav1.LabelSelector{}, LabelSelector: &metav1.LabelSelector{}})), "LL019", false},
		{"owner's pod anti-affine to another tenant's pods", ownerA, admissionv1.Create, pod(affinity(corev1.PodAffinityTerm{
			TopologyKey: corev1.LabelHostname, Namespaces: []string{"ipb-apps"}, LabelSelector: &metav1.LabelSelector{MatchLabels: labels}})), "LL019", false},
		{"owner's pod anti-affine to its own pods", ownerA, admissionv1.Create, pod(affinity(corev1.PodAffinityTerm{
			TopologyKey: corev1.LabelHostname, Namespaces: []string{"ipa-apps"}, LabelSelector: &metav1.LabelSelector{MatchLabels: labels}})), "", false},
		{"owner's pod tolerating the control plane", ownerA, admissionv1.Create, pod(func(p *corev1.PodSpec) {
			p.Tolerations = []corev1.Toleration{{Key: "node-role.kubernetes.io/control-plane", Operator: corev1.TolerationOpExists}}
		}), "LL019", false},
		{"owner's pod tolerating its dedicated nodes", ownerA, admissionv1.Create, pod(func(p *corev1.PodSpec) {
			p.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "ipa", Effect: corev1.TaintEffectNoSchedule}}
		}), "", false},
		{"owner's Deployment keeping its nodes from the autoscaler", ownerA, admissionv1.Create, func() client.Object {
			d := deployment("ipa-apps", noPodEdit)
			d.Spec.Template.Annotations = map[string]string{"karpenter.sh/do-not-disrupt": "true"}
			return d
		}(), "LL023", false},
		{"owner's claim of its storage class", ownerA, admissionv1.Create, claim(func(c *corev1.PersistentVolumeClaimSpec) { c.StorageClassName = ptr.To("fast") }), "", false},
		{"owner's claim naming no class, given the cluster's default", ownerA, admissionv1.Create, claim(func(*corev1.PersistentVolumeClaimSpec) {}), "", false},
		{"owner's claim of another class by the older annotation", ownerA, admissionv1.Create, func() client.Object {
			c := claim(func(c *corev1.PersistentVolumeClaimSpec) { c.StorageClassName = ptr.To("fast") })
			c.SetAnnotations(map[string]string{"volume.beta.kubernetes.io/storage-class": "premium"})
			return c
		}(), "LL020", false},
		{"owner's claim of its class by the older annotation", ownerA, admissionv1.Create, func() client.Object {
			c := claim(func(*corev1.PersistentVolumeClaimSpec) {})
			c.SetAnnotations(map[string]string{"volume.beta.kubernetes.io/storage-class": "fast"})
			return c
		}(), "", false},
		{"Kubernetes' ReplicaSet controller making a pod as the reconciler", rsController, admissionv1.Create, pod(func(p *corev1.PodSpec) { p.ServiceAccountName = "ipa" }), "LL012", false},
		{"Kubernetes' ReplicaSet controller making a pod", rsController, admissionv1.Create, pod(noPodEdit), "", false},
		{"owner's claim of another storage class", ownerA, admissionv1.Create, claim(func(c *corev1.PersistentVolumeClaimSpec) { c.StorageClassName = ptr.To("premium") }), "LL020", false},
		{"owner's claim binding an existing volume", ownerA, admissionv1.Create, claim(func(c *corev1.PersistentVolumeClaimSpec) { c.VolumeName = "pv-ipb-data" }), "LL020", false},
		{"owner's claim picking volumes by label", ownerA, admissionv1.Create, claim(func(c *corev1.PersistentVolumeClaimSpec) {
			c.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"tenant": "ipb"}}
		}), "LL020", false},
		{"owner's claim copying another tenant's snapshot", ownerA, admissionv1.Create, claim(func(c *corev1.PersistentVolumeClaimSpec) {
			c.DataSourceRef = &corev1.TypedObjectReference{APIGroup: ptr.To("snapshot.storage.k8s.io"), Kind: "VolumeSnapshot", Name: "db", Namespace: ptr.To("ipb-apps")}
		}), "LL020", false},
		{"owner's claim copying its own snapshot", ownerA, admissionv1.Create, claim(func(c *corev1.PersistentVolumeClaimSpec) {
			c.DataSourceRef = &corev1.TypedObjectReference{APIGroup: ptr.To("snapshot.storage.k8s.io"), Kind: "VolumeSnapshot", Name: "db", Namespace: ptr.To("ipa-apps")}
		}), "", false},
		{"owner's StatefulSet claiming another storage class", ownerA, admissionv1.Create, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ipa-apps", Name: "db"},
			Spec: appsv1.StatefulSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: template("ipa-apps", noPodEdit),
				VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}, Spec: claimSpec(func(c *corev1.PersistentVolumeClaimSpec) { c.StorageClassName = ptr.To("premium") })}}}}, "LL020", false},
		{"owner's pod pulling from another registry", ownerA, admissionv1.Create, pod(func(p *corev1.PodSpec) { p.Containers[0].Image = "registry.example.com/other/app:1" }), "LL029", false},
		{"owner's pod pulling an official image", ownerA, admissionv1.Create, pod(func(p *corev1.PodSpec) { p.Containers[0].Image = "nginx:1.27" }), "", false},
		{"ipb's Deployment without resources", ownerB, admissionv1.Create, deployment("ipb-apps", func(p *corev1.PodSpec) { p.Containers[0].ImagePullPolicy = corev1.PullAlways }), "LL016", false},
		{"ipb's Deployment run from a node's cache", ownerB, admissionv1.Create, deployment("ipb-apps", func(p *corev1.PodSpec) {
			resourced(p)
			p.Containers[0].ImagePullPolicy = corev1.PullIfNotPresent
		}), "LL029", false},
		{"ipb's Deployment with resources, pulled every time", ownerB, admissionv1.Create, deployment("ipb-apps", resourced), "", false},
		{"owner writes in a namespace it does not hold", ownerA, admissionv1.Create, configMap("ipa-stray", "app", nil), "LL026", false},
		{"platform writes there", platform, admissionv1.Create, configMap("ipa-stray", "app", nil), "", false},
	}

	// The cluster's default classes, which the API server writes into
	// pods and claims naming none: the policy allows them, as the
	// controller writes them into it.

	defaultStorage := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "ip-standard", Annotations: map[string]string{policy.DefaultStorageClassAnnotation: "true"}},
		Provisioner: "example.com/none"}
	for _, obj := range []client.Object{defaultPriority, defaultStorage} {
		if err := k8s.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k8s.Delete(ctx, obj) })
	}
	waitForDefaults(t, policy.Defaults{PriorityClass: defaultPriority.Name, StorageClass: defaultStorage.Name})

	c, err := cache.New(env.Config, cache.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	store, err := webhook.NewIndex(cctx, c, k8s)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.Start(cctx) }()
	c.WaitForCacheSync(cctx)

	// The markers reach the API server's authorizer after the render.
	testenv.Eventually(t, 30*time.Second, func() error {
		return errors.Join(agree(cctx, cases[0], hooks.Platform, store), agree(cctx, cases[5], hooks.Platform, store))
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := agree(cctx, tc, hooks.Platform, store); err != nil {
				t.Error(err)
			}
		})
	}

	if missing := uncovered(cases, hooks.Platform); len(missing) > 0 {
		t.Errorf("no case is refused by %d validations of the API server's policies: %s", len(missing), strings.Join(missing, "; "))
	}

	// With Landlord down the API server still judges every case; what
	// the webhook judges fails closed.
	gate.shut()
	defer gate.reopen()
	for _, tc := range cases {
		got, err := online(tc)
		if tc.wildcard {
			if err == nil || !strings.Contains(err.Error(), "wildcard.landlord.dev") {
				t.Errorf("webhook down, %s: %q (%v), want a failed call to wildcard.landlord.dev", tc.name, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("webhook down, %s: %q (%v), want %q", tc.name, got, err, tc.want)
		}
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ipa-apps", Name: "s"}}
	if err := impersonate(ownerA.Username, ownerA.Groups...).Create(ctx, secret, client.DryRunAll); err == nil || !strings.Contains(err.Error(), "objects.landlord.dev") {
		t.Errorf("webhook down, owner writes a Secret: %v, want a failed webhook call", err)
	}
}

var ruleID = regexp.MustCompile(`(?i)\bLL\d{3}\b`)

// online is the rule the API server refuses tc with, "" when it admits it
// (as a dry run: nothing is stored).
func online(tc inProcessCase) (string, error) {
	err := send(tc)
	if err == nil {
		return "", nil
	}
	if !apierrors.IsForbidden(err) && !apierrors.IsInvalid(err) {
		return "", err
	}
	if strings.Contains(err.Error(), "cannot "+strings.ToLower(string(tc.op))) {
		return "", fmt.Errorf("RBAC refused the case before admission: %w", err)
	}
	id := ruleID.FindString(err.Error())
	if id == "" {
		return "", fmt.Errorf("refused without a rule: %w", err)
	}
	return strings.ToUpper(id), nil
}

// send writes tc's object as its user, as a dry run.
func send(tc inProcessCase) error {
	c := impersonate(tc.user.Username, tc.user.Groups...)
	obj := tc.object.DeepCopyObject().(client.Object)
	switch tc.op {
	case admissionv1.Create:
		return c.Create(ctx, obj, client.DryRunAll)
	case admissionv1.Update:
		live := obj.DeepCopyObject().(client.Object)
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), live); err != nil {
			return err
		}
		obj.SetResourceVersion(live.GetResourceVersion())
		return c.Update(ctx, obj, client.DryRunAll)
	case admissionv1.Delete:
		return c.Delete(ctx, obj, client.DryRunAll)
	}
	return fmt.Errorf("operation %s", tc.op)
}

// uncovered lists the validations of Landlord's in-process policies that
// refuse none of cases: each is "<resource> <field>: Forbidden: <rule>", as
// the API server's denial starts. The tenant role's policy has its own
// table (TestAttacksAggregatedRoles); LL001 never speaks online, as the mutating
// policy names the account first.
func uncovered(cases []inProcessCase, platform policy.Platform) []string {
	var refusals []string
	for _, tc := range cases {
		if err := send(tc); tc.want != "" && err != nil {
			refusals = append(refusals, err.Error())
		}
	}
	resource := regexp.MustCompile(`request\.resource\.resource == "([a-z]+)"`)
	prefix := regexp.MustCompile(`"([^"]+: Forbidden: (LL\d{3})): "`)
	guard := regexp.MustCompile(`^!variables\.(judges\d+) `)
	// A rule whose field the API server finds (the pod template rules)
	// is told from its neighbours by the words only its message has.
	found := regexp.MustCompile(`": Forbidden: (LL\d{3}): "`)
	var missing []string
	for _, obj := range policy.ValidatingPolicies(platform) {
		vap, ok := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
		if !ok || vap.Name == policy.TenantRoleName {
			continue
		}
		words := ownWords(vap.Spec.Validations)
		for i, v := range vap.Spec.Validations {
			covers := func(string) bool { return false }
			label := ""
			if p := prefix.FindStringSubmatch(v.MessageExpression); p != nil && p[2] != "LL001" {
				// The kinds a rule judges are a variable of the policy.
				r := ""
				if g := guard.FindStringSubmatch(v.Expression); g != nil {
					i := slices.IndexFunc(vap.Spec.Variables, func(v admissionregistrationv1.Variable) bool { return v.Name == g[1] })
					if m := resource.FindAllStringSubmatch(vap.Spec.Variables[i].Expression, -1); len(m) == 1 {
						r = m[0][1]
					}
				}
				label = strings.TrimSpace(r + " " + p[1])
				covers = func(msg string) bool {
					// "<resource>.<group> ..." or, for the core group, "<resource> ...".
					return (r == "" || strings.HasPrefix(msg, r+".") || strings.HasPrefix(msg, r+" ")) && strings.Contains(msg, "denied request: "+p[1]+": ")
				}
			} else if f := found.FindStringSubmatch(v.MessageExpression); f != nil && f[1] != "LL001" {
				label = f[1] + " " + strings.Join(words[i], " / ")
				covers = func(msg string) bool {
					return strings.Contains(msg, ": Forbidden: "+f[1]+": ") && slices.ContainsFunc(words[i], func(w string) bool { return strings.Contains(msg, w) })
				}
			}
			if label != "" && !slices.ContainsFunc(refusals, func(msg string) bool { return strings.Contains(msg, "'"+vap.Name+"'") && covers(msg) }) {
				missing = append(missing, label)
			}
		}
	}
	return missing
}

// ownWords lists, for each validation, the string literals of at least
// eight characters that its message holds and no other's does.
func ownWords(validations []admissionregistrationv1.Validation) [][]string {
	literal := regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	count := map[string]int{}
	all := make([][]string, len(validations))
	for i, v := range validations {
		seen := map[string]bool{}
		for _, m := range literal.FindAllStringSubmatch(v.MessageExpression, -1) {
			w, err := strconv.Unquote(`"` + m[1] + `"`)
			if err != nil || len(strings.TrimSpace(w)) < 8 || seen[w] {
				continue
			}
			seen[w] = true
			all[i] = append(all[i], w)
			count[w]++
		}
	}
	own := make([][]string, len(validations))
	for i, words := range all {
		for _, w := range words {
			if count[w] == 1 {
				own[i] = append(own[i], w)
			}
		}
	}
	return own
}

// agree compares the API server's verdict with the offline one.
func agree(cctx context.Context, tc inProcessCase, platform policy.Platform, store *webhook.Index) error {
	got, err := online(tc)
	if err != nil {
		return fmt.Errorf("%s: %w", tc.name, err)
	}
	req := policy.Request{
		Operation: tc.op, Namespace: tc.object.GetNamespace(), Name: tc.object.GetName(),
		Kind: kindOf(tc.object), User: tc.user, Platform: platform,
	}
	switch tc.op {
	case admissionv1.Create:
		req.Object = tc.object
	case admissionv1.Update:
		live := tc.object.DeepCopyObject().(client.Object)
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(tc.object), live); err != nil {
			return err
		}
		req.Object, req.OldObject = tc.object, live
	case admissionv1.Delete:
		live := tc.object.DeepCopyObject().(client.Object)
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(tc.object), live); err != nil {
			return err
		}
		req.OldObject = live
	}
	var offline []string
	for _, e := range policy.Evaluate(req, store.For(cctx).Resolver()) {
		offline = append(offline, policy.RuleID(e))
	}
	switch {
	case got != tc.want:
		return fmt.Errorf("%s: the API server says %q, want %q", tc.name, got, tc.want)
	case got == "" && len(offline) > 0, got != "" && !slices.Contains(offline, got):
		return fmt.Errorf("%s: the API server says %q, offline %q", tc.name, got, offline)
	}
	return nil
}

func kindOf(obj client.Object) schema.GroupKind {
	gvks, _, err := manager.Scheme().ObjectKinds(obj)
	if err != nil {
		panic(errors.New("unregistered kind in a test case"))
	}
	return gvks[0].GroupKind()
}

// TestRatchetHoldsInTheRegistryVersionOnly: an update through an older
// version whose schema lacks serviceAccountName strips the account from
// the object stored and from the old object the API server shows the
// policy alike, leaving a cloud notifier to authenticate as
// notification-controller; the ratchet may not let it through, while an
// update in the current version that keeps the account goes on.
func TestRatchetHoldsInTheRegistryVersionOnly(t *testing.T) {
	tenant := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "rat"},
		Spec:       v1alpha1.TenantSpec{Namespaces: []v1alpha1.TenantNamespace{{Name: "rat-apps"}}, AllowWorkloadIdentity: true},
	}
	if err := k8s.Create(ctx, tenant); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, tenant) })
	reconciler := impersonate("system:serviceaccount:rat-apps:rat")
	hub := &notificationv1beta3.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: "rat-apps", Name: "hub"},
		Spec: notificationv1beta3.ProviderSpec{Type: "azureeventhub", ServiceAccountName: "notifier"}}
	testenv.Eventually(t, 30*time.Second, func() error { return reconciler.Create(ctx, hub.DeepCopy()) })

	kept := &notificationv1beta3.Provider{}
	if err := reconciler.Get(ctx, client.ObjectKeyFromObject(hub), kept); err != nil {
		t.Fatal(err)
	}
	kept.Labels = map[string]string{"touched": "yes"}
	if err := reconciler.Update(ctx, kept, client.DryRunAll); err != nil {
		t.Errorf("update keeping the account in %s: %v, want it admitted", notificationv1beta3.GroupVersion.Version, err)
	}

	old := &unstructured.Unstructured{}
	old.SetGroupVersionKind(schema.GroupVersionKind{Group: notificationv1beta3.GroupVersion.Group, Version: "v1beta2", Kind: notificationv1beta3.ProviderKind})
	if err := reconciler.Get(ctx, client.ObjectKeyFromObject(hub), old); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := unstructured.NestedString(old.Object, "spec", "serviceAccountName"); found {
		t.Fatal("v1beta2 shows serviceAccountName: the case proves nothing")
	}
	old.SetLabels(map[string]string{"touched": "yes"})
	if err := reconciler.Update(ctx, old, client.DryRunAll); err == nil || !strings.Contains(err.Error(), "LL005") {
		t.Errorf("update through v1beta2, which drops the account: %v, want LL005", err)
	}
}

// TestEphemeralContainersJudged: a debugging container joins a running pod
// through a subresource, and pulls its image as any container does; no
// tenant is granted it, but a platform that grants it must not open LL029.
func TestEphemeralContainersJudged(t *testing.T) {
	tenant := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "eph"},
		Spec: v1alpha1.TenantSpec{Namespaces: []v1alpha1.TenantNamespace{{Name: "eph-apps"}},
			Images: &v1alpha1.Images{Allowed: []string{"registry.example.com/eph"}}},
	}
	if err := k8s.Create(ctx, tenant); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, tenant) })
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "eph-apps", Name: "web"}, Spec: corev1.PodSpec{
		SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
		Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/eph/app:1", SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}}},
	}}
	testenv.Eventually(t, 30*time.Second, func() error { return k8s.Create(ctx, pod.DeepCopy()) })
	for image, want := range map[string]string{"registry.example.com/eph/debug:1": "", "registry.example.com/other/debug:1": "LL029"} {
		debug := &corev1.Pod{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(pod), debug); err != nil {
			t.Fatal(err)
		}
		debug.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Image: image,
			SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}}}}
		err := k8s.SubResource("ephemeralcontainers").Update(ctx, debug, client.DryRunAll)
		if got := strings.ToUpper(ruleID.FindString(fmt.Sprint(err))); got != want || want == "" && err != nil {
			t.Errorf("debugging container of %s: %v, want %q", image, err, want)
		}
	}
}

// waitForDefaults waits until the workloads policy the API server holds
// has the cluster's default classes d.
func waitForDefaults(t *testing.T, d policy.Defaults) {
	t.Helper()
	want, _ := policy.Workloads(policy.Platform{Defaults: d})
	testenv.Eventually(t, 30*time.Second, func() error {
		live := &admissionregistrationv1.ValidatingAdmissionPolicy{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: policy.WorkloadsName}, live); err != nil {
			return err
		}
		for _, name := range []string{policy.DefaultPriorityClassVariable, policy.DefaultStorageClassVariable} {
			find := func(v admissionregistrationv1.Variable) bool { return v.Name == name }
			if i, j := slices.IndexFunc(live.Spec.Variables, find), slices.IndexFunc(want.Spec.Variables, find); i < 0 || live.Spec.Variables[i] != want.Spec.Variables[j] {
				return fmt.Errorf("the workloads policy's %s is not %s", name, want.Spec.Variables[j].Expression)
			}
		}
		return nil
	})
}

// TestClusterDefaultsKept: the workloads policy follows the cluster's
// default storage class as it changes, and is written again when its
// defaults are edited or it is deleted; a claim naming no class then gets the default and is
// admitted. The defaults live in the policy, not in a parameter, whose
// binding would refuse every write it matches while it is missing.
func TestClusterDefaultsKept(t *testing.T) {
	before, err := policy.ClusterDefaults(ctx, k8s)
	if err != nil {
		t.Fatal(err)
	}
	storage := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "cdk-standard", Annotations: map[string]string{policy.DefaultStorageClassAnnotation: "true"}},
		Provisioner: "example.com/none"}
	if err := k8s.Create(ctx, storage); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = k8s.Delete(ctx, storage)
		waitForDefaults(t, before)
	})
	now := policy.Defaults{PriorityClass: before.PriorityClass, StorageClass: storage.Name}
	waitForDefaults(t, now)

	// Edited to allow a class the cluster does not default to, then
	// deleted: written again each time.
	vap := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	testenv.Eventually(t, 10*time.Second, func() error { // the controller may be writing it
		if err := k8s.Get(ctx, client.ObjectKey{Name: policy.WorkloadsName}, vap); err != nil {
			return err
		}
		for i, v := range vap.Spec.Variables {
			if v.Name == policy.DefaultStorageClassVariable {
				vap.Spec.Variables[i].Expression = `["premium"]`
			}
		}
		return k8s.Update(ctx, vap)
	})
	waitForDefaults(t, now)
	if err := k8s.Delete(ctx, vap); err != nil {
		t.Fatal(err)
	}
	waitForDefaults(t, now)

	// The claim gets the default, which the tenant does not list.
	tenant := &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "cdk"}, Spec: v1alpha1.TenantSpec{Namespaces: []v1alpha1.TenantNamespace{{Name: "cdk-apps"}}}}
	if err := k8s.Create(ctx, tenant); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, tenant) })
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "cdk-apps", Name: "data"}, Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
	testenv.Eventually(t, 30*time.Second, func() error { return k8s.Create(ctx, claim.DeepCopy(), client.DryRunAll) })
}

// marked is obj with annotation key set to "true": the mark of the
// cluster's default class.
func marked(obj client.Object, key string) client.Object {
	out := obj.DeepCopyObject().(client.Object)
	out.SetAnnotations(map[string]string{key: "true"})
	return out
}

// labelled is obj with a label of no meaning to any rule.
func labelled(obj client.Object) client.Object {
	out := obj.DeepCopyObject().(client.Object)
	out.SetLabels(map[string]string{"team": "storage"})
	return out
}
