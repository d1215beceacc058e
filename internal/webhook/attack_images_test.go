package webhook_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// TestAttacksImages gives blue the platform's registry alone, each pull
// checked against it (LL029), and sends images from elsewhere as its owner
// and its reconciler, each beside its legitimate neighbour. Blue is
// unbounded again afterwards, as the other attack tables expect.
func TestAttacksImages(t *testing.T) {
	attackWorld(t)
	setImages := func(images *v1alpha1.Images) {
		t.Helper()
		blue := &v1alpha1.Tenant{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: "blue"}, blue); err != nil {
			t.Fatal(err)
		}
		patch := client.MergeFrom(blue.DeepCopy())
		blue.Spec.Images = images
		if err := k8s.Patch(ctx, blue, patch); err != nil {
			t.Fatal(err)
		}
	}
	hub := podWith(func(p *corev1.Pod) { p.Spec.Containers[0].Image = "attacker/web:1" })
	// The guard reads the Tenant from its cache, a moment later.
	waitFor := func(bounded bool) {
		t.Helper()
		testenv.Eventually(t, 30*time.Second, func() error {
			err := identities["owner"].Create(ctx, hub.DeepCopy(), dry)
			if refused := err != nil && strings.Contains(err.Error(), "LL029:"); refused != bounded {
				return errors.New("the guard has not yet seen blue's spec.images")
			}
			return nil
		})
	}
	setImages(&v1alpha1.Images{Allowed: []string{"registry.example.com"}, PullAlways: true})
	waitFor(true)
	t.Cleanup(func() {
		setImages(nil)
		waitFor(false)
	})

	always := func(p *corev1.Pod) {
		for i := range p.Spec.Containers {
			p.Spec.Containers[i].ImagePullPolicy = corev1.PullAlways
		}
	}
	deploymentAlways := func(image string) *appsv1.Deployment {
		return deployment("", func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Image = image
			d.Spec.Template.Spec.Containers[0].ImagePullPolicy = corev1.PullAlways
		})
	}
	const (
		ownPod        = "pod of the platform's registry, pulled every time"
		ownDeployment = "deployment of the platform's registry, pulled every time"
	)
	runAttacks(t, map[string]attack{
		ownPod:        {as: "owner", do: create(podWith(always))},
		ownDeployment: {as: "reconciler", do: create(deploymentAlways("registry.example.com/web:1"))},
		"pod of a Docker Hub user's image": {as: "owner", do: create(podWith(func(p *corev1.Pod) {
			always(p)
			p.Spec.Containers[0].Image = "attacker/web:1"
		})), want: "LL029", near: ownPod},
		"deployment of a look-alike registry": {as: "reconciler", do: create(deploymentAlways("registry.example.com.evil.io/web:1")), want: "LL029", near: ownDeployment},
		"pod whose init container comes from elsewhere": {as: "owner", do: create(podWith(func(p *corev1.Pod) {
			always(p)
			p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "ghcr.io/attacker/init:1", ImagePullPolicy: corev1.PullAlways,
				SecurityContext: p.Spec.Containers[0].SecurityContext, Resources: p.Spec.Containers[0].Resources}}
		})), want: "LL029", near: ownPod},
		"pod of the platform's registry from a node's cache": {as: "owner", do: create(podWith(func(p *corev1.Pod) {
			p.Spec.Containers[0].ImagePullPolicy = corev1.PullIfNotPresent
		})), want: "LL029", near: ownPod},
		"deployment of the platform's registry from a node's cache": {as: "reconciler", do: create(deployment("")), want: "LL029", near: ownDeployment},
	})
}
