package webhook_test

import (
	"testing"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	notificationv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestAttacksFetch sends what would make Flux reach a URL no rule judged
// (issue 17, class 4): submodules, chart URLs of an HTTP Helm index,
// ExternalArtifacts, notification addresses and proxies, in the object or
// in a Secret, and the registry an image scan reaches. Blue is confined by
// allowedSources.
func TestAttacksFetch(t *testing.T) {
	attackWorld(t)
	identities["platform"] = k8s
	// The platform vouches for an HTTP index of its own in blue's namespace.
	platformIndex := &sourcev1.HelmRepository{ObjectMeta: metav1.ObjectMeta{Namespace: "blue-apps", Name: "platform-charts"},
		Spec: sourcev1.HelmRepositorySpec{URL: "https://charts.example.com/blue", Interval: minute}}
	if err := k8s.Create(ctx, platformIndex); err != nil {
		t.Fatal(err)
	}
	const (
		ownInclude   = "git repository including another"
		ownOCICharts = "oci helm repository in allowedSources"
		ownArtifact  = "external artifact written by the platform"
		ownNotifier  = "commit status to the tenant's repository"
		ownAddress   = "secret holding an allowed address"
		ownImage     = "image scan in allowedSources"
	)
	runAttacks(t, map[string]attack{
		"git submodules": {as: "reconciler", do: create(fetchGit(func(g *sourcev1.GitRepository) { g.Spec.RecurseSubmodules = true })), want: "LL027", near: ownInclude},
		ownInclude: {as: "reconciler", do: create(fetchGit(func(g *sourcev1.GitRepository) {
			g.Spec.Include = []sourcev1.GitRepositoryInclude{{GitRepositoryRef: fluxmeta.LocalObjectReference{Name: "lib"}, ToPath: "lib"}}
		}))},

		"http helm index on an allowed host":         {as: "reconciler", do: create(helmRepo("https://charts.example.com/blue")), want: "LL027", near: ownOCICharts},
		"owner's http helm index on allowed git":     {as: "owner", do: create(helmRepo("https://git.example.com/blue/charts")), want: "LL027", near: ownOCICharts},
		ownOCICharts:                                 {as: "reconciler", do: create(ociHelmRepo("oci://registry.example.com/blue/charts"))},
		"http helm index written by the platform":    {as: "platform", do: create(helmRepo("https://charts.example.com/blue"))},
		"repointing the platform's http helm index":  {as: "reconciler", do: mutate(platformIndex, func(o client.Object) { o.(*sourcev1.HelmRepository).Spec.URL = "https://git.example.com/blue/charts" }), want: "LL027", near: "relabelling the platform's http helm index"},
		"relabelling the platform's http helm index": {as: "reconciler", do: mutate(platformIndex, func(o client.Object) { o.SetLabels(map[string]string{"team": "blue"}) })},

		"external artifact":         {as: "reconciler", do: create(externalArtifact()), want: "LL027", near: ownArtifact},
		"owner's external artifact": {as: "owner", do: create(externalArtifact()), want: "LL027", near: ownArtifact},
		"leaky's external artifact": {as: "leaky", do: create(externalArtifact()), want: "LL027", near: ownArtifact},
		ownArtifact:                 {as: "platform", do: create(externalArtifact())},

		"notification to a foreign address":    {as: "reconciler", do: create(postTo("https://169.254.169.254/latest", "")), want: "LL008", near: ownNotifier},
		"notification through a foreign proxy": {as: "owner", do: create(postTo("https://git.example.com/blue/app", "http://10.0.0.1:3128")), want: "LL008", near: ownNotifier},
		ownNotifier:                            {as: "reconciler", do: create(postTo("https://git.example.com/blue/app", ""))},

		"notification address in a secret": {as: "reconciler", do: create(urlSecret("address", "http://169.254.169.254/latest")), want: "LL008", near: ownAddress},
		"source proxy in a secret":         {as: "owner", do: create(urlSecret("address", "http://10.0.0.1:3128")), want: "LL008", near: ownAddress},
		"notification proxy in a secret":   {as: "leaky", do: create(urlSecret("proxy", "http://10.0.0.1:3128")), want: "LL008", near: ownAddress},
		ownAddress:                         {as: "reconciler", do: create(urlSecret("address", "https://git.example.com/blue/app"))},
		"secret with a token only":         {as: "reconciler", do: create(urlSecret("token", "http://169.254.169.254/latest"))},

		"image scan of a foreign registry": {as: "reconciler", do: create(imageScan("evil.example.com/app")), want: "LL008", near: ownImage},
		ownImage:                           {as: "reconciler", do: create(imageScan("registry.example.com/blue/app"))},
	})
}

func fetchGit(edit func(*sourcev1.GitRepository)) *sourcev1.GitRepository {
	return gitRepo("https://git.example.com/blue/app", edit)
}

func ociHelmRepo(url string) *sourcev1.HelmRepository {
	h := helmRepo(url)
	h.Spec.Type = sourcev1.HelmRepositoryTypeOCI
	return h
}

func externalArtifact() *sourcev1.ExternalArtifact {
	return &sourcev1.ExternalArtifact{ObjectMeta: blueMeta("generated"),
		Spec: sourcev1.ExternalArtifactSpec{SourceRef: &fluxmeta.NamespacedObjectKindReference{APIVersion: "example.com/v1", Kind: "Generator", Name: "app"}}}
}

func postTo(address, proxy string) *notificationv1beta3.Provider {
	return &notificationv1beta3.Provider{ObjectMeta: blueMeta("status"),
		Spec: notificationv1beta3.ProviderSpec{Type: "github", Address: address, Proxy: proxy, SecretRef: &fluxmeta.LocalObjectReference{Name: "status"}}}
}

func urlSecret(key, value string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: blueMeta("status"), Data: map[string][]byte{key: []byte(value), "token": []byte("t0ken")}}
}

func imageScan(image string) *imagev1.ImageRepository {
	return &imagev1.ImageRepository{ObjectMeta: blueMeta("app"), Spec: imagev1.ImageRepositorySpec{Image: image, Interval: minute}}
}
