package policy

import (
	"maps"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	notificationv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fetchCases are the URLs Flux reaches beyond the object's own (LL027,
// LL008): dev-team is confined by allowedSources, ops is not. They join
// testCases, so TestEvaluate runs them and TestRulesCovered counts them.
var fetchCases = map[string]testCase{
	// Git submodules: their URLs are in .gitmodules.
	"submodules of a confined tenant": {req: create(reconciler, "apps", newGitRepository("https://git.example.com/org/app", func(g *sourcev1.GitRepository) {
		g.Spec.RecurseSubmodules = true
	})), want: "LL027"},
	"includes of a confined tenant": {req: create(reconciler, "apps", newGitRepository("https://git.example.com/org/app", func(g *sourcev1.GitRepository) {
		g.Spec.Include = []sourcev1.GitRepositoryInclude{{GitRepositoryRef: fluxmeta.LocalObjectReference{Name: "lib"}, ToPath: "lib"}}
	}))},
	"submodules of an unconfined tenant": {req: create(opsReconciler, "ops", fetchGit("ops", func(g *sourcev1.GitRepository) { g.Spec.RecurseSubmodules = true }))},
	"submodules added to a confined tenant's repository": {req: update(reconciler, "apps", newGitRepository("https://git.example.com/org/app"),
		newGitRepository("https://git.example.com/org/app", func(g *sourcev1.GitRepository) { g.Spec.RecurseSubmodules = true })), want: "LL027"},

	// Helm indexes: chart URLs are whatever the index lists.
	"http helm index of a confined tenant":     {req: create(reconciler, "apps", newHelmRepository("https://git.example.com/org/charts")), want: "LL027"},
	"oci helm repository of a confined tenant": {req: create(reconciler, "apps", fetchHelm("oci://registry.example.com/charts/app", sourcev1.HelmRepositoryTypeOCI))},
	"http helm index the platform wrote":       {req: create(masters, "apps", newHelmRepository("https://git.example.com/org/charts"))},
	"tenant keeps the platform's http index": {req: update(reconciler, "apps", newHelmRepository("https://git.example.com/org/charts"),
		withLabels(newHelmRepository("https://git.example.com/org/charts"), map[string]string{"team": "dev"}))},
	"tenant repoints the platform's http index": {req: update(reconciler, "apps", newHelmRepository("https://git.example.com/org/charts"),
		newHelmRepository("https://git.example.com/org/other")), want: "LL027"},
	"oci helm repository turned http": {req: update(reconciler, "apps", fetchHelm("https://git.example.com/org/charts", sourcev1.HelmRepositoryTypeOCI),
		newHelmRepository("https://git.example.com/org/charts")), want: "LL027"},
	"http helm index of an unconfined tenant": {req: create(opsReconciler, "ops", withNamespace(newHelmRepository("https://charts.example.com"), "ops"))},

	// ExternalArtifact: its status, which tenants may write, names the URL.
	"external artifact by a tenant":       {req: create(reconciler, "apps", externalArtifactIn("apps")), want: "LL027"},
	"external artifact by an owner":       {req: create(owner, "apps", externalArtifactIn("apps")), want: "LL027"},
	"external artifact unconfined tenant": {req: create(opsReconciler, "ops", externalArtifactIn("ops")), want: "LL027"},
	"external artifact by the platform":   {req: create(fluxKustomize, "apps", externalArtifactIn("apps"))},

	// A bucket's token service is asked for credentials, with the
	// Secret's username and password (issue 23's census).
	"bucket token service outside allowedSources": {req: create(reconciler, "apps", withSTS(newBucket("apps", "minio.example.com", "dev-team"), "https://sts.evil.example.com")), want: "LL008"},
	"bucket token service in allowedSources":      {req: create(reconciler, "apps", withSTS(newBucket("apps", "minio.example.com", "dev-team"), "https://minio.example.com/dev-team"))},

	// Image scans reach the registry the image names.
	"image scan outside allowedSources": {req: create(reconciler, "apps", newImageRepository(func(r *imagev1.ImageRepository) { r.Spec.Image = "evil.example.com/app" })), want: "LL008"},
	"image scan in allowedSources": {req: create(reconciler, "apps", newImageRepository(func(r *imagev1.ImageRepository) {
		r.Spec.Image = "registry.example.com/charts/app"
	}))},

	// Notification addresses and proxies.
	"provider posting outside allowedSources": {req: create(reconciler, "apps", fetchProvider("https://evil.example.com/hook", "")), want: "LL008"},
	"provider posting to an allowed address":  {req: create(reconciler, "apps", fetchProvider("https://git.example.com/org/app", ""))},
	"provider proxied outside allowedSources": {req: create(reconciler, "apps", fetchProvider("https://git.example.com/org/app", "http://10.0.0.1:3128")), want: "LL008"},
	// An OCI repository admitted outside allowedSources may not turn into
	// an HTTP index of the same URL, whose charts are on any host.
	"oci helm repository outside allowedSources turned http": {req: update(reconciler, "apps",
		withHelmType(newHelmRepository("https://charts.evil.io"), sourcev1.HelmRepositoryTypeOCI), newHelmRepository("https://charts.evil.io")), want: "LL027"},
	"pubsub provider naming its project":                {req: create(reconciler, "apps", withType(fetchProvider("my-project", ""), "googlepubsub", "notifier")), allow: optIns{workloadIdentity: true}},
	"provider posting to its notifications address":     {req: create(reconciler, "apps", fetchProvider("https://hooks.example.com/dev-team", ""))},
	"provider posting beside its notifications address": {req: create(reconciler, "apps", fetchProvider("https://hooks.example.com/dev-team/more", "")), want: "LL008"},
	"provider of an unconfined tenant":                  {req: create(opsReconciler, "ops", withNamespace(fetchProvider("http://10.0.0.1/hook", "http://10.0.0.1:3128"), "ops"))},

	// Secrets: a Provider's address and every proxySecretRef's.
	"secret address outside allowedSources":  {req: create(reconciler, "apps", urlSecret("apps", "address", "http://169.254.169.254/latest")), want: "LL008"},
	"secret proxy outside allowedSources":    {req: create(reconciler, "apps", urlSecret("apps", "proxy", "http://10.0.0.1:3128")), want: "LL008"},
	"secret address in allowedSources":       {req: create(reconciler, "apps", urlSecret("apps", "address", "https://git.example.com/org/app\n"))},
	"secret address its notifications name":  {req: create(reconciler, "apps", urlSecret("apps", "address", "https://hooks.example.com/dev-team\n"))},
	"secret with other keys":                 {req: create(reconciler, "apps", urlSecret("apps", "token", "http://169.254.169.254/latest"))},
	"secret address of an unconfined tenant": {req: create(opsReconciler, "ops", urlSecret("ops", "address", "http://169.254.169.254/latest"))},
}

func init() { maps.Copy(testCases, fetchCases) }

func fetchGit(ns string, edit func(*sourcev1.GitRepository)) *sourcev1.GitRepository {
	g := newGitRepository("https://github.com/ops/app", edit)
	g.Namespace = ns
	return g
}

func fetchHelm(url, kind string) *sourcev1.HelmRepository {
	h := newHelmRepository(url)
	h.Spec.Type = kind
	return h
}

func withNamespace[T interface{ SetNamespace(string) }](obj T, ns string) T {
	obj.SetNamespace(ns)
	return obj
}

func withLabels[T interface{ SetLabels(map[string]string) }](obj T, labels map[string]string) T {
	obj.SetLabels(labels)
	return obj
}

func externalArtifactIn(ns string) *sourcev1.ExternalArtifact {
	return &sourcev1.ExternalArtifact{ObjectMeta: objectMeta("app", ns),
		Spec: sourcev1.ExternalArtifactSpec{SourceRef: &fluxmeta.NamespacedObjectKindReference{Kind: "Generator", Name: "app"}}}
}

func fetchProvider(address, proxy string) *notificationv1beta3.Provider {
	return &notificationv1beta3.Provider{ObjectMeta: objectMeta("hook", "apps"),
		Spec: notificationv1beta3.ProviderSpec{Type: "generic", Address: address, Proxy: proxy}}
}

func withType(p *notificationv1beta3.Provider, kind, sa string) *notificationv1beta3.Provider {
	p.Spec.Type, p.Spec.ServiceAccountName = kind, sa
	return p
}

func urlSecret(ns, key, value string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "hook", Namespace: ns}, Data: map[string][]byte{key: []byte(value)}}
}

// withSTS gives a bucket an LDAP token service at endpoint.
func withSTS(b *sourcev1.Bucket, endpoint string) *sourcev1.Bucket {
	b.Spec.STS = &sourcev1.BucketSTSSpec{Provider: "ldap", Endpoint: endpoint, SecretRef: &fluxmeta.LocalObjectReference{Name: "ldap"}}
	return b
}

func withHelmType(r *sourcev1.HelmRepository, kind string) *sourcev1.HelmRepository {
	r.Spec.Type = kind
	return r
}
