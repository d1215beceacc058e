package policy

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"strings"
	"testing"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	fluxacl "github.com/fluxcd/pkg/apis/acl"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// testCase is one request and the rule ids it must violate, comma-joined
// and sorted; "" means allowed.
type testCase struct {
	req   Request
	allow optIns
	want  string
}

func create(user authenticationv1.UserInfo, ns string, obj runtime.Object) Request {
	return Request{Operation: admissionv1.Create, Namespace: ns, Object: obj, User: user}
}

func update(user authenticationv1.UserInfo, ns string, old, obj runtime.Object) Request {
	return Request{Operation: admissionv1.Update, Namespace: ns, Object: obj, OldObject: old, User: user}
}

func remove(user authenticationv1.UserInfo, ns string, old runtime.Object) Request {
	return Request{Operation: admissionv1.Delete, Namespace: ns, OldObject: old, User: user}
}

var testCases = map[string]testCase{
	// LL001
	"kustomization without service account":      {req: create(reconciler, "apps", newKustomization(func(k *kustomizev1.Kustomization) { k.Spec.ServiceAccountName = "" })), want: "LL001"},
	"helmrelease without service account":        {req: create(owner, "apps", newHelmRelease(func(h *helmv2.HelmRelease) { h.Spec.ServiceAccountName = "" })), want: "LL001"},
	"kustomization as the reconciler":            {req: create(reconciler, "apps", newKustomization())},
	"kustomization as another namespace account": {req: create(reconciler, "apps", newKustomization(func(k *kustomizev1.Kustomization) { k.Spec.ServiceAccountName = "deployer" }))},
	"helmrelease as the reconciler":              {req: create(owner, "apps", newHelmRelease())},

	// LL002
	"kustomization source in flux-system":                   {req: create(reconciler, "apps", newKustomization(func(k *kustomizev1.Kustomization) { k.Spec.SourceRef.Namespace = "flux-system" })), want: "LL002"},
	"kustomization source in same tenant's other namespace": {req: create(reconciler, "apps", newKustomization(func(k *kustomizev1.Kustomization) { k.Spec.SourceRef.Namespace = "apps-jobs" })), want: "LL002"},
	"kustomization source named in own namespace":           {req: create(reconciler, "apps", newKustomization(func(k *kustomizev1.Kustomization) { k.Spec.SourceRef.Namespace = "apps" }))},
	"kustomization depends on other namespace": {req: create(reconciler, "apps", newKustomization(func(k *kustomizev1.Kustomization) {
		k.Spec.DependsOn = append(k.Spec.DependsOn, kustomizev1.DependencyReference{Name: "infra", Namespace: "ops"})
	})), want: "LL002"},
	"helmrelease chart from other namespace": {req: create(reconciler, "apps", newHelmRelease(func(h *helmv2.HelmRelease) { h.Spec.Chart.Spec.SourceRef.Namespace = "flux-system" })), want: "LL002"},
	"helmrelease chartRef to other namespace": {req: create(reconciler, "apps", newHelmRelease(func(h *helmv2.HelmRelease) {
		h.Spec.Chart = nil
		h.Spec.ChartRef = &helmv2.CrossNamespaceSourceReference{Kind: sourcev1.OCIRepositoryKind, Name: "podinfo", Namespace: "ops"}
	})), want: "LL002"},
	"helmrelease chartRef local": {req: create(reconciler, "apps", newHelmRelease(func(h *helmv2.HelmRelease) {
		h.Spec.Chart = nil
		h.Spec.ChartRef = &helmv2.CrossNamespaceSourceReference{Kind: sourcev1.OCIRepositoryKind, Name: "podinfo"}
	}))},
	"helmrelease depends on other namespace": {req: create(reconciler, "apps", newHelmRelease(func(h *helmv2.HelmRelease) {
		h.Spec.DependsOn = []helmv2.DependencyReference{{Name: "db", Namespace: "ops"}}
	})), want: "LL002"},
	// The API server's policy does not judge the platform, Landlord's
	// controller included: what it renders is the Tenant's, which the
	// platform writes.
	"controller writes a cross-namespace kustomization": {req: create(controller, "apps", newKustomization(func(k *kustomizev1.Kustomization) { k.Spec.SourceRef.Namespace = "flux-system" }))},

	// LL003
	"kustomization targets other tenant":        {req: create(reconciler, "apps", newKustomization(func(k *kustomizev1.Kustomization) { k.Spec.TargetNamespace = "ops" })), want: "LL003"},
	"kustomization targets kube-system":         {req: create(reconciler, "apps", newKustomization(func(k *kustomizev1.Kustomization) { k.Spec.TargetNamespace = "kube-system" })), want: "LL003"},
	"kustomization targets no namespace's name": {req: create(reconciler, "apps", newKustomization(func(k *kustomizev1.Kustomization) { k.Spec.TargetNamespace = "Not_A_Namespace" })), want: "LL003"},
	"kustomization targets self-service":        {req: create(reconciler, "apps", newKustomization(func(k *kustomizev1.Kustomization) { k.Spec.TargetNamespace = "dev-team-x" }))},
	"helmrelease stores in kube-system":         {req: create(reconciler, "apps", newHelmRelease(func(h *helmv2.HelmRelease) { h.Spec.StorageNamespace = "kube-system" })), want: "LL003"},
	"helmrelease targets other tenant":          {req: create(reconciler, "apps", newHelmRelease(func(h *helmv2.HelmRelease) { h.Spec.TargetNamespace = "ops" })), want: "LL003"},
	"helmrelease targets own other space":       {req: create(reconciler, "apps", newHelmRelease(func(h *helmv2.HelmRelease) { h.Spec.TargetNamespace = "apps-jobs" }))},

	// LL004
	"kustomization with kubeConfig": {req: create(reconciler, "apps", newKustomization(func(k *kustomizev1.Kustomization) {
		k.Spec.KubeConfig = &fluxmeta.KubeConfigReference{SecretRef: &fluxmeta.SecretKeyReference{Name: "prod"}}
	})), want: "LL004"},
	"helmrelease with workload-identity kubeConfig": {req: create(reconciler, "apps", newHelmRelease(func(h *helmv2.HelmRelease) {
		h.Spec.KubeConfig = &fluxmeta.KubeConfigReference{ConfigMapRef: &fluxmeta.LocalObjectReference{Name: "gke"}}
	})), want: "LL004"},

	// LL005
	"git repository with azure identity":  {req: create(reconciler, "apps", newGitRepository("https://git.example.com/org/app", func(g *sourcev1.GitRepository) { g.Spec.Provider = "azure" })), want: "LL005"},
	"git repository with github app":      {req: create(reconciler, "apps", newGitRepository("https://git.example.com/org/app", func(g *sourcev1.GitRepository) { g.Spec.Provider = "github" }))},
	"oci repository with service account": {req: create(reconciler, "apps", newOciRepository("oci://registry.example.com/charts/app", func(o *sourcev1.OCIRepository) { o.Spec.ServiceAccountName = "puller" })), want: "LL005"},
	"oci repository with aws provider":    {req: create(reconciler, "apps", newOciRepository("oci://registry.example.com/charts/app", func(o *sourcev1.OCIRepository) { o.Spec.Provider = "aws" })), want: "LL005"},
	"oci repository with aws when allowed": {
		req: create(reconciler, "apps", newOciRepository("oci://registry.example.com/charts/app", func(o *sourcev1.OCIRepository) {
			o.Spec.Provider, o.Spec.ServiceAccountName = "aws", "puller"
		})),
		allow: optIns{workloadIdentity: true},
	},
	"decryption with service account": {req: create(reconciler, "apps", newKustomization(func(k *kustomizev1.Kustomization) {
		k.Spec.Decryption = &kustomizev1.Decryption{Provider: "sops", ServiceAccountName: "kms"}
	})), want: "LL005"},
	"notification provider with service account": {req: create(reconciler, "apps", newProvider("pubsub")), want: "LL005"},
	"notification provider with secret":          {req: create(reconciler, "apps", newProvider(""))},
	"image repository with gcp provider":         {req: create(reconciler, "apps", newImageRepository(func(r *imagev1.ImageRepository) { r.Spec.Provider = "gcp" })), want: "LL005"},

	// LL006
	"receiver triggers other tenant":    {req: create(reconciler, "apps", newReceiver("ops")), want: "LL006"},
	"receiver triggers own other space": {req: create(reconciler, "apps", newReceiver("apps-jobs"))},
	"alert watches other tenant":        {req: create(reconciler, "apps", newAlert("ops")), want: "LL006"},
	"alert watches own namespace":       {req: create(reconciler, "apps", newAlert(""))},

	// LL007
	"image policy on other namespace":      {req: create(reconciler, "apps", newImagePolicy("ops")), want: "LL007"},
	"image policy on own namespace":        {req: create(reconciler, "apps", newImagePolicy("apps"))},
	"image update of other namespace repo": {req: create(reconciler, "apps", newImageUpdate("apps-jobs")), want: "LL007"},
	"image update of own repo":             {req: create(reconciler, "apps", newImageUpdate(""))},
	"image repository shared with others": {req: create(reconciler, "apps", newImageRepository(func(r *imagev1.ImageRepository) {
		r.Spec.AccessFrom = &fluxacl.AccessFrom{NamespaceSelectors: []fluxacl.NamespaceSelector{{MatchLabels: map[string]string{}}}}
	})), want: "LL007"},
	"image repository private": {req: create(reconciler, "apps", newImageRepository())},

	// LL008
	"git repository from allowed org":        {req: create(reconciler, "apps", newGitRepository("https://git.example.com/org/app"))},
	"git repository deep below allowed org":  {req: create(reconciler, "apps", newGitRepository("https://git.example.com/org/group/app.git"))},
	"git repository from elsewhere":          {req: create(reconciler, "apps", newGitRepository("https://github.com/attacker/app")), want: "LL008"},
	"git repository with dot segments":       {req: create(reconciler, "apps", newGitRepository("https://git.example.com/org/../platform/fleet")), want: "LL008"},
	"git repository with user info host":     {req: create(reconciler, "apps", newGitRepository("https://git.example.com@evil.io/org/app")), want: "LL008"},
	"git repository over ssh in segment":     {req: create(reconciler, "apps", newGitRepository("ssh://git@git.example.com/team-a/config"))},
	"git repository over ssh past a segment": {req: create(reconciler, "apps", newGitRepository("ssh://git@git.example.com/team-a/b/config")), want: "LL008"},
	"oci repository allowed":                 {req: create(reconciler, "apps", newOciRepository("oci://registry.example.com/charts/podinfo"))},
	"helm repository from elsewhere":         {req: create(reconciler, "apps", newHelmRepository("https://charts.evil.io")), want: "LL008,LL027"},
	"bucket allowed":                         {req: create(reconciler, "apps", newBucket("apps", "minio.example.com", "dev-team"))},
	"bucket not allowed":                     {req: create(reconciler, "apps", newBucket("apps", "minio.example.com", "platform")), want: "LL008"},
	"bucket without allowedSources":          {req: create(opsReconciler, "ops", newBucket("ops", "minio.example.com", "ops")), want: "LL008"},
	"any git url without allowedSources":     {req: create(opsReconciler, "ops", newGitRepository("https://github.com/ops/app"))},
	"template source by the controller": {req: create(controller, "apps", newGitRepository("https://git.platform.example.com/templates/base", func(g *sourcev1.GitRepository) {
		g.Labels = map[string]string{sourceLabel: templateSource, v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue}
	}))},
	"template label forged by the tenant": {req: create(reconciler, "apps", newGitRepository("https://git.platform.example.com/templates/base", func(g *sourcev1.GitRepository) {
		g.Labels = map[string]string{sourceLabel: templateSource}
	})), want: "LL008"},

	// LL009
	"self-service namespace":                    {req: create(owner, "", newNamespace("dev-team-y", map[string]string{v1alpha1.TenantLabel: "dev-team", "team": "a"}))},
	"self-service namespace by git":             {req: create(reconciler, "", newNamespace("dev-team-z", map[string]string{v1alpha1.TenantLabel: "dev-team"}))},
	"self-service namespace without label":      {req: create(owner, "", newNamespace("dev-team-y", nil)), want: "LL009"},
	"self-service namespace for other tenant":   {req: create(owner, "", newNamespace("dev-team-y", map[string]string{v1alpha1.TenantLabel: "ops"})), want: "LL009"},
	"self-service namespace without prefix":     {req: create(owner, "", newNamespace("shiny", map[string]string{v1alpha1.TenantLabel: "dev-team"})), want: "LL009"},
	"self-service namespace with pod security":  {req: create(owner, "", newNamespace("dev-team-y", map[string]string{v1alpha1.TenantLabel: "dev-team", "pod-security.kubernetes.io/enforce": "privileged"})), want: "LL009"},
	"self-service namespace beyond the count":   {req: create(carol, "", newNamespace("full-b", map[string]string{v1alpha1.TenantLabel: "full"})), want: "LL009"},
	"namespace by tenant without self-service":  {req: create(opsReconciler, "", newNamespace("ops-2", map[string]string{v1alpha1.TenantLabel: "ops"})), want: "LL009"},
	"assigned namespace squatted":               {req: create(stranger, "", newNamespace("apps", nil)), want: "LL009"},
	"namespace claiming a tenant by a stranger": {req: create(stranger, "", newNamespace("lab", map[string]string{v1alpha1.TenantLabel: "dev-team"})), want: "LL009"},
	"plain namespace by a stranger":             {req: create(stranger, "", newNamespace("lab", nil))},
	"assigned namespace by the controller":      {req: create(controller, "", newTenantNamespace("apps", v1alpha1.NamespaceOriginPlatform))},
	"pod security relaxed on own namespace": {req: update(owner, "", newNamespace("dev-team-x", map[string]string{v1alpha1.TenantLabel: "dev-team", "pod-security.kubernetes.io/enforce": "restricted"}),
		newNamespace("dev-team-x", map[string]string{v1alpha1.TenantLabel: "dev-team", "pod-security.kubernetes.io/enforce": "privileged"})), want: "LL009"},
	"own label on unadopted namespace": {req: update(owner, "", newNamespace("dev-team-x", map[string]string{v1alpha1.TenantLabel: "dev-team"}),
		newNamespace("dev-team-x", map[string]string{v1alpha1.TenantLabel: "dev-team", "team": "b"}))},
	"platform namespace claimed by a tenant": {req: update(owner, "", newNamespace("monitoring", nil), newNamespace("monitoring", map[string]string{v1alpha1.TenantLabel: "dev-team"})), want: "LL009"},
	"platform namespace labelled by a stranger": {req: update(stranger, "", newNamespace("monitoring", nil),
		newNamespace("monitoring", map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}))},
	"namespace update without old object":          {req: update(owner, "", nil, newNamespace("dev-team-y", map[string]string{v1alpha1.TenantLabel: "dev-team"})), want: "LL009"},
	"self-service namespace deleted by its tenant": {req: remove(owner, "", newTenantNamespace("dev-team-x", v1alpha1.NamespaceOriginSelfService))},
	"assigned namespace deleted by the tenant":     {req: remove(reconciler, "", newTenantNamespace("apps", v1alpha1.NamespaceOriginPlatform)), want: "LL009"},
	"self-service namespace deleted by another":    {req: remove(opsReconciler, "", newTenantNamespace("dev-team-x", v1alpha1.NamespaceOriginSelfService)), want: "LL009"},
	"assigned namespace deleted by masters":        {req: remove(masters, "", newTenantNamespace("apps", v1alpha1.NamespaceOriginPlatform))},

	// LL010
	"managed namespace labelled by the tenant with an allowed key": {req: update(owner, "", newTenantNamespace("apps", v1alpha1.NamespaceOriginPlatform), func() *corev1.Namespace {
		ns := newTenantNamespace("apps", v1alpha1.NamespaceOriginPlatform)
		ns.Labels["team"] = "b"
		return ns
	}())},
	"managed namespace given an owner by the tenant": {req: update(owner, "", newTenantNamespace("apps", v1alpha1.NamespaceOriginPlatform), func() *corev1.Namespace {
		ns := newTenantNamespace("apps", v1alpha1.NamespaceOriginPlatform)
		ns.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "gone", UID: "1"}}
		return ns
	}()), want: "LL010"},
	"managed namespace relabelled by the tenant": {req: update(owner, "", newTenantNamespace("apps", v1alpha1.NamespaceOriginPlatform), func() *corev1.Namespace {
		ns := newTenantNamespace("apps", v1alpha1.NamespaceOriginPlatform)
		ns.Labels["pod-security.kubernetes.io/enforce"] = "privileged"
		return ns
	}()), want: "LL009"},
	"managed namespace re-applied unchanged by its tenant": {req: update(reconciler, "", newTenantNamespace("dev-team-x", v1alpha1.NamespaceOriginSelfService), newTenantNamespace("dev-team-x", v1alpha1.NamespaceOriginSelfService))},
	"platform namespace annotated by a tenant": {req: update(reconciler, "", newNamespace("kube-system", nil), func() *corev1.Namespace {
		ns := newNamespace("kube-system", nil)
		ns.Annotations = map[string]string{"scheduler.alpha.kubernetes.io/node-selector": "pool=tenants"}
		return ns
	}()), want: "LL009"},
	"another tenant's namespace re-applied by a tenant": {req: update(opsReconciler, "", newTenantNamespace("apps", v1alpha1.NamespaceOriginPlatform), newTenantNamespace("apps", v1alpha1.NamespaceOriginPlatform)), want: "LL009"},
	"managed namespace updated by the controller":       {req: update(controller, "", newTenantNamespace("apps", v1alpha1.NamespaceOriginPlatform), newTenantNamespace("apps", v1alpha1.NamespaceOriginPlatform))},
	"tenant-vars changed by the tenant":                 {req: update(reconciler, "apps", newConfigMap(managedMeta(v1alpha1.VariablesConfigMap, "apps")), newConfigMap(managedMeta(v1alpha1.VariablesConfigMap, "apps"))), want: "LL010"},
	"tenant-vars unlabelled by the tenant":              {req: update(owner, "apps", newConfigMap(managedMeta(v1alpha1.VariablesConfigMap, "apps")), newConfigMap(objectMeta(v1alpha1.VariablesConfigMap, "apps"))), want: "LL010"},
	"quota deleted by the tenant":                       {req: remove(owner, "apps", &corev1.ResourceQuota{ObjectMeta: managedMeta("landlord-quota", "apps")}), want: "LL010"},
	"quota deleted by the namespace controller":         {req: remove(nsController, "apps", &corev1.ResourceQuota{ObjectMeta: managedMeta("landlord-quota", "apps")})},
	"managed object forged by the tenant":               {req: create(reconciler, "apps", newConfigMap(managedMeta("fake", "apps"))), want: "LL010"},
	"own config map":                                    {req: create(reconciler, "apps", newConfigMap(objectMeta("app", "apps")))},
	"tenant-vars updated by the controller":             {req: update(controller, "apps", newConfigMap(managedMeta(v1alpha1.VariablesConfigMap, "apps")), newConfigMap(managedMeta(v1alpha1.VariablesConfigMap, "apps")))},

	// LL025; the rest of the namespace rules are in namespace_test.go.
	"self-service namespace with a node selector": {req: create(reconciler, "", func() *corev1.Namespace {
		ns := newNamespace("dev-team-y", map[string]string{v1alpha1.TenantLabel: "dev-team"})
		ns.Annotations = map[string]string{"scheduler.alpha.kubernetes.io/node-selector": "pool=gpu"}
		return ns
	}()), want: "LL025"},
	"self-service namespace with an allowed annotation": {req: create(reconciler, "", func() *corev1.Namespace {
		ns := newNamespace("dev-team-y", map[string]string{v1alpha1.TenantLabel: "dev-team"})
		ns.Annotations = map[string]string{"example.com/owner": "team-a"}
		return ns
	}())},

	// LL011
	"binding other tenant's account":                    {req: create(owner, "apps", newRoleBinding("ClusterRole", "view", saSubject("flux", "ops"))), want: "LL011"},
	"binding other tenant's account user":               {req: create(owner, "apps", newRoleBinding("ClusterRole", "view", rbacv1.Subject{Kind: rbacv1.UserKind, Name: "system:serviceaccount:ops:flux"})), want: "LL011"},
	"binding every authenticated user":                  {req: create(owner, "apps", newRoleBinding("ClusterRole", "view", rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "system:authenticated"})), want: "LL011"},
	"binding other namespace's accounts":                {req: create(owner, "apps", newRoleBinding("ClusterRole", "view", rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "system:serviceaccounts:ops"})), want: "LL011"},
	"binding own namespace's accounts":                  {req: create(owner, "apps", newRoleBinding("ClusterRole", "view", rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "system:serviceaccounts:apps-jobs"}))},
	"binding the owner account of a platform namespace": {req: create(owner, "apps", newRoleBinding("ClusterRole", "edit", saSubject("deployer", "ci")))},
	"binding a namesake of the owner account":           {req: create(owner, "apps", newRoleBinding("ClusterRole", "edit", saSubject("deployer", "ops"))), want: "LL011"},
	"binding own accounts":                              {req: create(owner, "apps", newRoleBinding("ClusterRole", "edit", saSubject("ci", ""), saSubject("ci", "dev-team-x"), rbacv1.Subject{Kind: rbacv1.UserKind, Name: "dave"}))},

	// LL012
	"pod as the reconciler":             {req: create(owner, "apps", newPod("apps", func(p *corev1.PodSpec) { p.ServiceAccountName = "dev-team" })), want: "LL012"},
	"pod as the reconciler, deprecated": {req: create(owner, "apps", newPod("apps", func(p *corev1.PodSpec) { p.DeprecatedServiceAccount = "dev-team" })), want: "LL012"},
	"deployment as the reconciler":      {req: create(reconciler, "apps", newDeployment("dev-team", false)), want: "LL012"},
	"cronjob as the reconciler":         {req: create(reconciler, "apps", newCronJob("dev-team")), want: "LL012"},
	"deployment as its own account":     {req: create(reconciler, "apps", newDeployment("app", false))},
	"reconciler token secret":           {req: create(owner, "apps", newTokenSecret("dev-team")), want: "LL012"},
	"pod as a stamped account":          {req: create(owner, "apps", newPod("apps", func(p *corev1.PodSpec) { p.ServiceAccountName = "platform-agent" })), want: "LL012"},
	"stamped account's token secret":    {req: create(owner, "apps", newTokenSecret("platform-agent")), want: "LL012"},
	"pod as an account of the tenant's": {req: create(owner, "apps", newPod("apps", func(p *corev1.PodSpec) { p.ServiceAccountName = "worker" }))},
	"token secret of the tenant's own":  {req: create(owner, "apps", newTokenSecret("worker"))},
	"app token secret":                  {req: create(owner, "apps", newTokenSecret("app"))},
	"pod in a platform namespace":       {req: create(stranger, "kube-system", newPod("kube-system", func(p *corev1.PodSpec) { p.ServiceAccountName = "dev-team" }))},

	// LL013, LL017
	"node port service":                              {req: create(reconciler, "apps", newService(corev1.ServiceTypeNodePort)), want: "LL013"},
	"load balancer service":                          {req: create(reconciler, "apps", newService(corev1.ServiceTypeLoadBalancer)), want: "LL013"},
	"load balancer service when allowed":             {req: create(opsReconciler, "ops", newServiceIn("ops", corev1.ServiceTypeLoadBalancer))},
	"node port service when another type is allowed": {req: create(opsReconciler, "ops", newServiceIn("ops", corev1.ServiceTypeNodePort)), want: "LL013"},
	"node port service kept on an update": {req: update(reconciler, "apps", newService(corev1.ServiceTypeNodePort), func() *corev1.Service {
		s := newService(corev1.ServiceTypeNodePort)
		s.Labels = map[string]string{"app": "web"}
		return s
	}())},
	"cluster ip service turned node port": {req: update(reconciler, "apps", newService(corev1.ServiceTypeClusterIP), newService(corev1.ServiceTypeNodePort)), want: "LL013"},
	"external ips kept on an update":      {req: update(reconciler, "apps", newService(corev1.ServiceTypeClusterIP, "8.8.8.8"), newService(corev1.ServiceTypeClusterIP, "8.8.8.8"))},
	"external ips changed on an update":   {req: update(reconciler, "apps", newService(corev1.ServiceTypeClusterIP, "8.8.8.8"), newService(corev1.ServiceTypeClusterIP, "8.8.4.4")), want: "LL017"},
	"cluster ip service":                  {req: create(reconciler, "apps", newService(corev1.ServiceTypeClusterIP))},
	"service with external ips":           {req: create(reconciler, "apps", newService(corev1.ServiceTypeClusterIP, "8.8.8.8")), want: "LL017"},

	// The platform's admins and Flux's controllers may apply what a tenant
	// wrote: the content rules judge them, the identity rules do not.
	"platform admin's node port service": {req: create(masters, "apps", newService(corev1.ServiceTypeNodePort)), want: "LL013"},
	"kustomize-controller's remote cluster": {req: create(fluxKustomize, "apps", newKustomization(func(k *kustomizev1.Kustomization) {
		k.Spec.KubeConfig = &fluxmeta.KubeConfigReference{SecretRef: &fluxmeta.SecretKeyReference{Name: "prod"}}
	})), want: "LL004"},
	"kustomize-controller's finalizer on Landlord's kustomization": {req: update(fluxKustomize, "apps", newKustomization(func(k *kustomizev1.Kustomization) { k.ObjectMeta = managedMeta("app", "apps") }), newKustomization(func(k *kustomizev1.Kustomization) {
		k.ObjectMeta = managedMeta("app", "apps")
		k.Finalizers = []string{"finalizers.fluxcd.io"}
	}))},

	// LL014
	"cluster role binding by a tenant":   {req: create(reconciler, "", &rbacv1.ClusterRoleBinding{}), want: "LL014"},
	"unknown cluster kind by a tenant":   {req: create(owner, "", nil), want: "LL014"},
	"cluster role binding by a stranger": {req: create(stranger, "", &rbacv1.ClusterRoleBinding{})},
	"cluster role binding by flux":       {req: create(fluxKustomize, "", &rbacv1.ClusterRoleBinding{})},
	"cluster role deleted by the tenant": {req: remove(owner, "", nil), want: "LL014"},

	// LL015
	"binding cluster-admin":         {req: create(owner, "apps", newRoleBinding("ClusterRole", "cluster-admin", saSubject("ci", "apps"))), want: "LL015"},
	"binding a platform role":       {req: create(owner, "apps", newRoleBinding("ClusterRole", "flux-edit", saSubject("ci", "apps"))), want: "LL015"},
	"binding the namespace deleter": {req: create(owner, "apps", newRoleBinding("ClusterRole", "landlord-self-service-namespace", saSubject("ci", "apps"))), want: "LL015"},
	"binding the tenant role":       {req: create(owner, "apps", newRoleBinding("ClusterRole", v1alpha1.DefaultRole, saSubject("ci", "apps")))},
	"binding a role of the tenant":  {req: create(owner, "apps", newRoleBinding("Role", "deployer", saSubject("ci", "apps")))},

	// LL016
	"deployment without resources when required": {req: create(reconciler, "apps", newDeployment("app", false)), allow: optIns{requireResources: true}, want: "LL016"},
	"deployment with resources when required":    {req: create(reconciler, "apps", newDeployment("app", true)), allow: optIns{requireResources: true}},
	"init container without resources": {req: create(reconciler, "apps", func() *corev1.Pod {
		p := newPod("apps")
		p.Spec = podSpecWith("app", true)
		p.Spec.InitContainers[0].Resources = corev1.ResourceRequirements{}
		return p
	}()), allow: optIns{requireResources: true}, want: "LL016"},

	// Updates ratchet: what was already there does not block the update.
	"finalizer removed from an old violation": {req: update(fluxKustomize, "apps",
		newKustomization(func(k *kustomizev1.Kustomization) {
			k.Spec.SourceRef.Namespace = "flux-system"
			k.Finalizers = []string{"finalizers.fluxcd.io"}
		}),
		newKustomization(func(k *kustomizev1.Kustomization) { k.Spec.SourceRef.Namespace = "flux-system" }))},
	"violation introduced by an update": {req: update(reconciler, "apps", newKustomization(),
		newKustomization(func(k *kustomizev1.Kustomization) { k.Spec.SourceRef.Namespace = "flux-system" })), want: "LL002"},
	"delete of a violating object": {req: remove(reconciler, "apps", newKustomization(func(k *kustomizev1.Kustomization) { k.Spec.SourceRef.Namespace = "flux-system" }))},
	// The ratchet compares values, not messages: a kubeConfig's message
	// names no value, yet pointing it elsewhere is a new violation.
	"grandfathered kubeConfig pointed elsewhere": {req: update(reconciler, "apps",
		newKustomization(func(k *kustomizev1.Kustomization) {
			k.Spec.KubeConfig = &fluxmeta.KubeConfigReference{SecretRef: &fluxmeta.SecretKeyReference{Name: "old-cluster"}}
		}),
		newKustomization(func(k *kustomizev1.Kustomization) {
			k.Spec.KubeConfig = &fluxmeta.KubeConfigReference{SecretRef: &fluxmeta.SecretKeyReference{Name: "stolen"}}
		})), want: "LL004"},
	"grandfathered kubeConfig kept as it was": {req: update(reconciler, "apps",
		newKustomization(func(k *kustomizev1.Kustomization) {
			k.Spec.KubeConfig = &fluxmeta.KubeConfigReference{SecretRef: &fluxmeta.SecretKeyReference{Name: "old-cluster"}}
		}),
		newKustomization(func(k *kustomizev1.Kustomization) {
			k.Spec.KubeConfig = &fluxmeta.KubeConfigReference{SecretRef: &fluxmeta.SecretKeyReference{Name: "old-cluster"}}
			k.Spec.Path = "./other"
		}))},

	// LL028: a tenant identity RBAC lets into another tenant's namespace.
	"ops reconciler writes in dev-team's namespace": {req: create(opsReconciler, "apps", newConfigMap(metav1.ObjectMeta{Namespace: "apps", Name: "settings"})), want: "LL028"},
	"ops owner deletes in dev-team's namespace":     {req: remove(authenticationv1.UserInfo{Username: "alice"}, "apps", newConfigMap(metav1.ObjectMeta{Namespace: "apps", Name: "settings"})), want: "LL028"},
	"ops reconciler writes in its own namespace":    {req: create(opsReconciler, "ops", newConfigMap(metav1.ObjectMeta{Namespace: "ops", Name: "settings"}))},

	// LL026: a namespace labelled for a tenant nobody holds it for is frozen.
	"write in a namespace claimed but not held": {req: create(reconciler, "orphan", newConfigMap(metav1.ObjectMeta{Namespace: "orphan", Name: "settings"})), want: "LL026"},
	"platform write in a namespace not held":    {req: create(masters, "orphan", newConfigMap(metav1.ObjectMeta{Namespace: "orphan", Name: "settings"}))},
	"kubelet deleting a pod in it":              {req: remove(kubelet, "orphan", newPod("orphan"))},

	// LL024: a namespace its tenant released is frozen for all but the platform.
	"owner writes in a released namespace":     {req: create(owner, "was-apps", newConfigMap(metav1.ObjectMeta{Namespace: "was-apps", Name: "settings"})), want: "LL024"},
	"stranger deletes in a released namespace": {req: remove(stranger, "was-apps", newDeployment("app", false)), want: "LL024"},
	"owner removes the released mark":          {req: update(owner, "", newNamespace("was-apps", map[string]string{v1alpha1.ReleasedLabel: "dev-team"}), newNamespace("was-apps", nil)), want: "LL024"},
	"stranger marks a namespace released":      {req: create(stranger, "", newNamespace("trap", map[string]string{v1alpha1.ReleasedLabel: "dev-team"})), want: "LL024"},
	"platform writes in a released namespace":  {req: create(masters, "was-apps", newConfigMap(metav1.ObjectMeta{Namespace: "was-apps", Name: "settings"}))},
	"garbage collector deletes in it":          {req: remove(nsController, "was-apps", newDeployment("app", false))},
	"platform removes the released mark":       {req: update(masters, "", newNamespace("was-apps", map[string]string{v1alpha1.ReleasedLabel: "dev-team"}), newNamespace("was-apps", nil))},
}

func TestEvaluate(t *testing.T) {
	for name, tc := range testCases {
		t.Run(name, func(t *testing.T) {
			errs := Evaluate(tc.req, testTenants.allowing(tc.allow))
			if got := ruleIDs(errs); got != tc.want {
				t.Fatalf("rules = %q, want %q: %v", got, tc.want, errs)
			}
			for _, e := range errs {
				if !strings.Contains(e.Detail, "allowed") && !strings.Contains(e.Detail, "supported values") {
					t.Errorf("message names no allowed values: %v", e)
				}
				if strings.Contains(e.Detail, "could not be evaluated") {
					t.Errorf("the API server's policy failed, not refused: %v", e)
				}
				if e.Field == "" {
					t.Errorf("violation names no field: %v", e)
				}
			}
		})
	}
}

// TestEvaluateDefaults checks that Evaluate keeps every opt-in off.
func TestEvaluateDefaults(t *testing.T) {
	for name, tc := range map[string]testCase{
		"load balancer":          {req: create(reconciler, "apps", newService(corev1.ServiceTypeLoadBalancer)), want: "LL013"},
		"workload identity":      {req: create(reconciler, "apps", newOciRepository("oci://registry.example.com/charts/app", func(o *sourcev1.OCIRepository) { o.Spec.Provider = "aws" })), want: "LL005"},
		"resources not required": {req: create(reconciler, "apps", newDeployment("app", false))},
	} {
		t.Run(name, func(t *testing.T) {
			if got := ruleIDs(Evaluate(tc.req, testTenants)); got != tc.want {
				t.Fatalf("rules = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRulesCovered checks every rule has a denial and an allowed neighbour
// of its kind in testCases.
func TestRulesCovered(t *testing.T) {
	// LL018 judges the roles a Tenant binds, for the controller, not an
	// admission request: TestRoleGrants holds its denials.
	denied := map[string]bool{ruleRoleGrants.ID: true}
	for _, tc := range testCases {
		for _, id := range strings.Split(tc.want, ",") {
			denied[id] = true
		}
	}
	seen := map[string]bool{}
	for i, r := range Rules {
		if i > 0 && r.ID <= Rules[i-1].ID || RuleID(forbidden(r, field.NewPath("x"), "")) != r.ID {
			t.Errorf("Rules[%d].ID = %s: ids must be LLnnn, in order, each once", i, r.ID)
		}
		if seen[r.Name] || r.Name == "" || r.Reason == "" {
			t.Errorf("rule %s: name %q duplicated or empty, or no reason", r.ID, r.Name)
		}
		seen[r.Name] = true
		if !denied[r.ID] {
			t.Errorf("rule %s has no denial in testCases", r.ID)
		}
	}
}

func TestRuleID(t *testing.T) {
	for name, tc := range map[string]struct {
		err  *field.Error
		want string
	}{
		"forbidden":     {forbidden(ruleKubeConfig, field.NewPath("spec"), "x; allowed: unset"), "LL004"},
		"not supported": {notSupported(ruleSources, field.NewPath("spec"), "u", "x", []string{"a"}), "LL008"},
		"foreign":       {field.Forbidden(field.NewPath("spec"), "no"), ""},
		"lookalike":     {field.Forbidden(field.NewPath("spec"), "LLAMA: no"), ""},
		"nil":           {nil, ""},
	} {
		t.Run(name, func(t *testing.T) {
			if got := RuleID(tc.err); got != tc.want {
				t.Fatalf("RuleID = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestPlatformIdentities: admins configured as a platform group or user
// are exempt from the identity rules as system:masters is; without the
// setting the same admin counts as the tenant owner it also is.
func TestPlatformIdentities(t *testing.T) {
	admin := authenticationv1.UserInfo{Username: "pat@example.com", Groups: []string{"platform-admins", "dev-team"}}
	relabel := update(admin, "", newNamespace("apps", map[string]string{v1alpha1.TenantLabel: "dev-team"}),
		newNamespace("apps", map[string]string{v1alpha1.TenantLabel: "dev-team", "pod-security.kubernetes.io/enforce": "privileged"}))
	for name, tc := range map[string]struct {
		platform Platform
		want     string
	}{
		"no platform setting":  {want: "LL009"},
		"platform group":       {platform: Platform{Groups: []string{"platform-admins"}}},
		"platform user":        {platform: Platform{Users: []string{"pat@example.com"}}},
		"another group listed": {platform: Platform{Groups: []string{"sre"}}, want: "LL009"},
	} {
		t.Run(name, func(t *testing.T) {
			req := relabel
			req.Platform = tc.platform
			if got := ruleIDs(Evaluate(req, testTenants)); got != tc.want {
				t.Fatalf("rules = %q, want %q", got, tc.want)
			}
		})
	}
}
