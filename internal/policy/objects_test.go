package policy

import (
	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	imageautov1 "github.com/fluxcd/image-automation-controller/api/v1"
	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	notificationv1 "github.com/fluxcd/notification-controller/api/v1"
	notificationv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// Realistic objects of the tests, each built legitimate; each case changes
// what it needs through the edit function.

func objectMeta(name, ns string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: ns}
}

func managedMeta(name, ns string) metav1.ObjectMeta {
	m := objectMeta(name, ns)
	m.Labels = map[string]string{v1alpha1.TenantLabel: "dev-team", v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue}
	return m
}

func newKustomization(edit ...func(*kustomizev1.Kustomization)) *kustomizev1.Kustomization {
	k := &kustomizev1.Kustomization{
		TypeMeta:   metav1.TypeMeta{APIVersion: kustomizev1.GroupVersion.String(), Kind: kustomizev1.KustomizationKind},
		ObjectMeta: objectMeta("app", "apps"),
		Spec: kustomizev1.KustomizationSpec{
			SourceRef:          kustomizev1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: "app"},
			ServiceAccountName: "dev-team",
			Path:               "./deploy",
			Interval:           metav1.Duration{Duration: 300e9},
			Prune:              true,
			TargetNamespace:    "apps-jobs",
			DependsOn:          []kustomizev1.DependencyReference{{Name: "infra"}},
			Decryption:         &kustomizev1.Decryption{Provider: "sops", SecretRef: &fluxmeta.LocalObjectReference{Name: "sops"}},
		},
	}
	for _, e := range edit {
		e(k)
	}
	return k
}

func newHelmRelease(edit ...func(*helmv2.HelmRelease)) *helmv2.HelmRelease {
	h := &helmv2.HelmRelease{
		TypeMeta:   metav1.TypeMeta{APIVersion: helmv2.GroupVersion.String(), Kind: helmv2.HelmReleaseKind},
		ObjectMeta: objectMeta("podinfo", "apps"),
		Spec: helmv2.HelmReleaseSpec{
			Chart: &helmv2.HelmChartTemplate{Spec: helmv2.HelmChartTemplateSpec{
				Chart:     "podinfo",
				Version:   "6.x",
				SourceRef: helmv2.CrossNamespaceObjectReference{Kind: sourcev1.HelmRepositoryKind, Name: "podinfo"},
			}},
			ServiceAccountName: "dev-team",
			StorageNamespace:   "apps",
			ValuesFrom:         []helmv2.ValuesReference{{Kind: "ConfigMap", Name: "podinfo-values"}},
		},
	}
	for _, e := range edit {
		e(h)
	}
	return h
}

func newGitRepository(url string, edit ...func(*sourcev1.GitRepository)) *sourcev1.GitRepository {
	g := &sourcev1.GitRepository{
		TypeMeta:   metav1.TypeMeta{APIVersion: sourcev1.GroupVersion.String(), Kind: sourcev1.GitRepositoryKind},
		ObjectMeta: objectMeta("app", "apps"),
		Spec: sourcev1.GitRepositorySpec{
			URL:       url,
			Interval:  metav1.Duration{Duration: 60e9},
			Reference: &sourcev1.GitRepositoryRef{Branch: "main"},
			SecretRef: &fluxmeta.LocalObjectReference{Name: "git-auth"},
		},
	}
	for _, e := range edit {
		e(g)
	}
	return g
}

func newOciRepository(url string, edit ...func(*sourcev1.OCIRepository)) *sourcev1.OCIRepository {
	o := &sourcev1.OCIRepository{
		ObjectMeta: objectMeta("charts", "apps"),
		Spec:       sourcev1.OCIRepositorySpec{URL: url, Interval: metav1.Duration{Duration: 60e9}},
	}
	for _, e := range edit {
		e(o)
	}
	return o
}

func newHelmRepository(url string) *sourcev1.HelmRepository {
	return &sourcev1.HelmRepository{ObjectMeta: objectMeta("podinfo", "apps"), Spec: sourcev1.HelmRepositorySpec{URL: url}}
}

func newBucket(ns, endpoint, name string) *sourcev1.Bucket {
	return &sourcev1.Bucket{ObjectMeta: objectMeta("bucket", ns), Spec: sourcev1.BucketSpec{Endpoint: endpoint, BucketName: name, Provider: "generic"}}
}

func newReceiver(ns string) *notificationv1.Receiver {
	return &notificationv1.Receiver{
		ObjectMeta: objectMeta("github", "apps"),
		Spec: notificationv1.ReceiverSpec{
			Type:      "github",
			Resources: []notificationv1.CrossNamespaceObjectReference{{Kind: sourcev1.GitRepositoryKind, Name: "app", Namespace: ns}},
		},
	}
}

func newAlert(ns string) *notificationv1beta3.Alert {
	return &notificationv1beta3.Alert{
		ObjectMeta: objectMeta("slack", "apps"),
		Spec: notificationv1beta3.AlertSpec{
			ProviderRef:  fluxmeta.LocalObjectReference{Name: "slack"},
			EventSources: []notificationv1.CrossNamespaceObjectReference{{Kind: kustomizev1.KustomizationKind, Name: "*", Namespace: ns}},
		},
	}
}

func newProvider(sa string) *notificationv1beta3.Provider {
	return &notificationv1beta3.Provider{ObjectMeta: objectMeta("slack", "apps"), Spec: notificationv1beta3.ProviderSpec{Type: "slack", ServiceAccountName: sa}}
}

func newImageRepository(edit ...func(*imagev1.ImageRepository)) *imagev1.ImageRepository {
	r := &imagev1.ImageRepository{ObjectMeta: objectMeta("app", "apps"), Spec: imagev1.ImageRepositorySpec{Image: "registry.example.com/charts/app"}}
	for _, e := range edit {
		e(r)
	}
	return r
}

func newImagePolicy(ns string) *imagev1.ImagePolicy {
	return &imagev1.ImagePolicy{
		ObjectMeta: objectMeta("app", "apps"),
		Spec: imagev1.ImagePolicySpec{
			ImageRepositoryRef: fluxmeta.NamespacedObjectReference{Name: "app", Namespace: ns},
			Policy:             imagev1.ImagePolicyChoice{SemVer: &imagev1.SemVerPolicy{Range: "1.x"}},
		},
	}
}

func newImageUpdate(ns string) *imageautov1.ImageUpdateAutomation {
	return &imageautov1.ImageUpdateAutomation{
		ObjectMeta: objectMeta("app", "apps"),
		Spec: imageautov1.ImageUpdateAutomationSpec{
			SourceRef: imageautov1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: "app", Namespace: ns},
		},
	}
}

func newNamespace(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// tenantNamespace is a namespace as the controller renders it.
func newTenantNamespace(name string, origin v1alpha1.NamespaceOrigin) *corev1.Namespace {
	return newNamespace(name, map[string]string{
		v1alpha1.TenantLabel:                 "dev-team",
		v1alpha1.ManagedByLabel:              v1alpha1.ManagedByValue,
		v1alpha1.OriginLabel:                 string(origin),
		"pod-security.kubernetes.io/enforce": "restricted",
	})
}

func newContainer(name string, withResources bool) corev1.Container {
	c := corev1.Container{Name: name, Image: "registry.example.com/app:1.0.0"}
	if withResources {
		list := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")}
		c.Resources = corev1.ResourceRequirements{Requests: list, Limits: list}
	}
	return c
}

func podSpecWith(sa string, withResources bool) corev1.PodSpec {
	return corev1.PodSpec{
		ServiceAccountName: sa,
		InitContainers:     []corev1.Container{newContainer("init", withResources)},
		Containers:         []corev1.Container{newContainer("app", withResources)},
	}
}

func newDeployment(sa string, withResources bool) *appsv1.Deployment {
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: objectMeta("app", "apps"),
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "app"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "app"}},
				Spec:       podSpecWith(sa, withResources),
			},
		},
	}
}

func newCronJob(sa string) *batchv1.CronJob {
	return &batchv1.CronJob{
		ObjectMeta: objectMeta("nightly", "apps"),
		Spec: batchv1.CronJobSpec{Schedule: "@daily", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{Spec: podSpecWith(sa, false)},
		}}},
	}
}

func newPod(ns string, edit ...func(*corev1.PodSpec)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: objectMeta("app", ns), Spec: podSpecWith("app", false)}
	for _, e := range edit {
		e(&p.Spec)
	}
	return p
}

func newService(t corev1.ServiceType, externalIPs ...string) *corev1.Service {
	return newServiceIn("apps", t, externalIPs...)
}

func newServiceIn(ns string, t corev1.ServiceType, externalIPs ...string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: objectMeta("app", ns),
		Spec:       corev1.ServiceSpec{Type: t, ExternalIPs: externalIPs, Ports: []corev1.ServicePort{{Port: 80}}},
	}
}

func newTokenSecret(sa string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "token", Namespace: "apps", Annotations: map[string]string{corev1.ServiceAccountNameKey: sa}},
		Type:       corev1.SecretTypeServiceAccountToken,
	}
}

func newRoleBinding(roleKind, role string, subjects ...rbacv1.Subject) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		ObjectMeta: objectMeta("ci", "apps"),
		Subjects:   subjects,
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: roleKind, Name: role},
	}
}

func saSubject(name, ns string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}
}

func newConfigMap(meta metav1.ObjectMeta) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"TENANT_NAME": "dev-team"}}
}
