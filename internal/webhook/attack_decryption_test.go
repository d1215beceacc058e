package webhook_test

import (
	"fmt"
	"testing"
	"time"

	imagev1 "github.com/fluxcd/image-reflector-controller/api/v1"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	notificationv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// TestAttacksDecryption sends what would borrow a Flux controller's own
// identity (issue 10, class 2): SOPS decryption without keys of its own,
// and cloud providers without an object-level service account, from blue
// and from amber, a tenant allowed workload identity.
func TestAttacksDecryption(t *testing.T) {
	attackWorld(t)
	identities["amber"] = workloadIdentityTenant(t)
	decrypt := func(ns string, d kustomizev1.Decryption) client.Object {
		k := kustomization(ns, "app")
		k.Spec.Decryption = &d
		return k
	}
	ownKey := &fluxmeta.LocalObjectReference{Name: "sops-age"}
	amberGit := func(provider, sa string) client.Object {
		return &sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Namespace: "amber-apps", Name: "app"},
			Spec: sourcev1.GitRepositorySpec{URL: "https://dev.azure.com/amber/app/_git/app", Interval: minute, Provider: provider, ServiceAccountName: sa}}
	}
	amberOCI := func(provider, sa string) client.Object {
		return &sourcev1.OCIRepository{ObjectMeta: metav1.ObjectMeta{Namespace: "amber-apps", Name: "charts"},
			Spec: sourcev1.OCIRepositorySpec{URL: "oci://123456789.dkr.ecr.eu-west-1.amazonaws.com/app", Interval: minute, Provider: provider, ServiceAccountName: sa}}
	}
	amberBucket := func(provider, sa string) client.Object {
		return &sourcev1.Bucket{ObjectMeta: metav1.ObjectMeta{Namespace: "amber-apps", Name: "bucket"},
			Spec: sourcev1.BucketSpec{Endpoint: "storage.googleapis.com", BucketName: "amber", Interval: minute, Provider: provider, ServiceAccountName: sa}}
	}
	amberHelmOCI := func(provider string) client.Object {
		return &sourcev1.HelmRepository{ObjectMeta: metav1.ObjectMeta{Namespace: "amber-apps", Name: "charts"},
			Spec: sourcev1.HelmRepositorySpec{URL: "oci://europe-docker.pkg.dev/amber/charts", Type: sourcev1.HelmRepositoryTypeOCI, Interval: minute, Provider: provider}}
	}
	amberImage := func(provider, sa string) client.Object {
		return &imagev1.ImageRepository{ObjectMeta: metav1.ObjectMeta{Namespace: "amber-apps", Name: "app"},
			Spec: imagev1.ImageRepositorySpec{Image: "123456789.dkr.ecr.eu-west-1.amazonaws.com/app", Interval: minute, Provider: provider, ServiceAccountName: sa}}
	}
	notifier := func(ns, kind, sa string) client.Object {
		return &notificationv1beta3.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "events"},
			Spec: notificationv1beta3.ProviderSpec{Type: kind, Address: "https://events.example.com", ServiceAccountName: sa}}
	}
	const (
		blueOwnKey    = "blue decrypting with its own key"
		amberOwnKey   = "amber decrypting with its own key"
		amberOwnSA    = "amber decrypting as its own service account"
		amberAzureSA  = "amber git over azure as its own service account"
		amberECRSA    = "amber oci over aws as its own service account"
		amberGCSSA    = "amber bucket over gcp as its own service account"
		amberHelmGen  = "amber helm oci repository with its own secret"
		amberImageSA  = "amber image repository over aws as its own service account"
		amberPubSubSA = "amber pubsub notifier as its own service account"
		blueSlack     = "blue slack notifier with its secret"
	)
	runAttacks(t, map[string]attack{
		"blue decrypting with the controller's keys":       {as: "reconciler", do: create(decrypt("blue-apps", kustomizev1.Decryption{Provider: "sops"})), want: "LL005", near: blueOwnKey},
		"blue owner decrypting with the controller's keys": {as: "owner", do: create(decrypt("blue-apps", kustomizev1.Decryption{Provider: "sops"})), want: "LL005", near: blueOwnKey},
		blueOwnKey: {as: "reconciler", do: create(decrypt("blue-apps", kustomizev1.Decryption{Provider: "sops", SecretRef: ownKey}))},
		"amber decrypting with the controller's keys": {as: "amber", do: create(decrypt("amber-apps", kustomizev1.Decryption{Provider: "sops"})), want: "LL005", near: amberOwnSA},
		amberOwnKey: {as: "amber", do: create(decrypt("amber-apps", kustomizev1.Decryption{Provider: "sops", SecretRef: ownKey}))},
		amberOwnSA:  {as: "amber", do: create(decrypt("amber-apps", kustomizev1.Decryption{Provider: "sops", ServiceAccountName: "kms"}))},

		"blue git over azure as its own service account": {as: "reconciler", do: create(gitRepo("https://git.example.com/blue/app", func(g *sourcev1.GitRepository) {
			g.Spec.Provider, g.Spec.ServiceAccountName = "azure", "blue"
		})), want: "LL005", near: amberAzureSA},
		"amber git over azure as the controller":  {as: "amber", do: create(amberGit("azure", "")), want: "LL005", near: amberAzureSA},
		amberAzureSA:                              {as: "amber", do: create(amberGit("azure", "fetcher"))},
		"amber oci over aws as the controller":    {as: "amber", do: create(amberOCI("aws", "")), want: "LL005", near: amberECRSA},
		amberECRSA:                                {as: "amber", do: create(amberOCI("aws", "puller"))},
		"amber bucket over gcp as the controller": {as: "amber", do: create(amberBucket("gcp", "")), want: "LL005", near: amberGCSSA},
		amberGCSSA:                                {as: "amber", do: create(amberBucket("gcp", "reader"))},
		// HelmRepository has no serviceAccountName: a cloud provider is
		// always source-controller's own identity.
		"amber helm oci repository over gcp":                 {as: "amber", do: create(amberHelmOCI("gcp")), want: "LL005", near: amberHelmGen},
		amberHelmGen:                                         {as: "amber", do: create(amberHelmOCI("generic"))},
		"amber image repository over aws as the controller":  {as: "amber", do: create(amberImage("aws", "")), want: "LL005", near: amberImageSA},
		amberImageSA:                                         {as: "amber", do: create(amberImage("aws", "scanner"))},
		"amber pubsub notifier as the controller":            {as: "amber", do: create(notifier("amber-apps", "googlepubsub", "")), want: "LL005", near: amberPubSubSA},
		amberPubSubSA:                                        {as: "amber", do: create(notifier("amber-apps", "googlepubsub", "notifier"))},
		"blue owner azure devops notifier as the controller": {as: "owner", do: create(notifier("blue-apps", "azuredevops", "")), want: "LL005", near: blueSlack},
		blueSlack: {as: "owner", do: create(notifier("blue-apps", "slack", ""))},
	})
}

// workloadIdentityTenant provisions amber, allowed workload identity, and
// returns its reconciler.
func workloadIdentityTenant(t *testing.T) client.Client {
	t.Helper()
	amber := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: "amber"},
		Spec: v1alpha1.TenantSpec{
			Namespaces:            []v1alpha1.TenantNamespace{{Name: "amber-apps"}},
			AllowWorkloadIdentity: true,
			AllowedSources: []string{"https://dev.azure.com/amber/*", "oci://123456789.dkr.ecr.eu-west-1.amazonaws.com/*",
				"oci://europe-docker.pkg.dev/amber/*", "https://storage.googleapis.com/amber", "https://events.example.com"},
		},
	}
	if err := k8s.Create(ctx, amber); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, amber) })
	testenv.Eventually(t, time.Minute, func() error {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(amber), amber); err != nil {
			return err
		}
		if !metaReady(amber) {
			return fmt.Errorf("tenant amber not ready: %+v", amber.Status.Conditions)
		}
		return nil
	})
	return impersonate("system:serviceaccount:amber-apps:amber")
}
