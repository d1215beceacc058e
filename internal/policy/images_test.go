package policy

import (
	"maps"

	corev1 "k8s.io/api/core/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// vetted is dev-team's own repositories on the platform's registry, and
// Docker Hub's official images.
var vetted = optIns{images: &v1alpha1.Images{Allowed: []string{"registry.example.com/dev", "docker.io/library"}}}

// pullAlways is vetted, each pull checked against the registry.
var pullAlways = optIns{images: &v1alpha1.Images{Allowed: vetted.images.Allowed, PullAlways: true}}

// image sets every container's image.
func image(name string) func(*corev1.PodSpec) {
	return func(p *corev1.PodSpec) {
		for i := range p.InitContainers {
			p.InitContainers[i].Image = name
		}
		for i := range p.Containers {
			p.Containers[i].Image = name
		}
	}
}

// pull sets every container's pull policy.
func pull(policy corev1.PullPolicy) func(*corev1.PodSpec) {
	return func(p *corev1.PodSpec) {
		for i := range p.InitContainers {
			p.InitContainers[i].ImagePullPolicy = policy
		}
		for i := range p.Containers {
			p.Containers[i].ImagePullPolicy = policy
		}
	}
}

// imageCases are LL029, each attack beside its allowed neighbour; they
// join testCases.
var imageCases = map[string]testCase{
	"pod of a vetted repository":            {req: create(owner, "apps", newPod("apps", image("registry.example.com/dev/app:1.0"))), allow: vetted},
	"pod of an official image, short name":  {req: create(owner, "apps", newPod("apps", image("nginx:1.27"))), allow: vetted},
	"pod of a repository beside the vetted": {req: create(owner, "apps", newPod("apps", image("registry.example.com/dev-b/app:1.0"))), allow: vetted, want: "LL029"},
	"pod of a look-alike registry":          {req: create(owner, "apps", newPod("apps", image("registry.example.com.evil.io/dev/app:1.0"))), allow: vetted, want: "LL029"},
	"pod of a user's Docker Hub image":      {req: create(owner, "apps", newPod("apps", image("attacker/nginx:1.27"))), allow: vetted, want: "LL029"},
	"pod of an image that does not parse":   {req: create(owner, "apps", newPod("apps", image("registry.example.com/dev/App"))), allow: vetted, want: "LL029"},
	"pod of any image, nothing bounded":     {req: create(owner, "apps", newPod("apps", image("attacker/nginx:1.27")))},
	"pod of any image, an empty allowance":  {req: create(owner, "apps", newPod("apps")), allow: optIns{images: &v1alpha1.Images{}}, want: "LL029"},
	"deployment whose init container is not": {req: create(reconciler, "apps", withTemplate(newDeployment("app", false), func(p *corev1.PodSpec) {
		p.Containers[0].Image = "registry.example.com/dev/app:1.0"
	})), allow: vetted, want: "LL029"},
	"deployment all of vetted images": {req: create(reconciler, "apps", withTemplate(newDeployment("app", false), func(p *corev1.PodSpec) {
		p.InitContainers[0].Image = "docker.io/library/busybox@sha256:" + sha
		p.Containers[0].Image = "registry.example.com/dev/app:1.0"
	})), allow: vetted},
	"cronjob of an unvetted image": {req: create(reconciler, "apps", newCronJob("app")), allow: vetted, want: "LL029"},

	"pod pulling from cache, pull always required": {req: create(owner, "apps", newPod("apps", image("nginx:1.27"), pull(corev1.PullIfNotPresent))), allow: pullAlways, want: "LL029"},
	"pod pulling every time":                       {req: create(owner, "apps", newPod("apps", image("nginx:1.27"), pull(corev1.PullAlways))), allow: pullAlways},
	"pod of latest, pulled every time by default":  {req: create(owner, "apps", newPod("apps", image("nginx"))), allow: pullAlways},
	"pod of an old image, relabelled by its owner": {req: update(owner, "apps", newPod("apps", image("attacker/nginx:1.27")), withLabels(newPod("apps", image("attacker/nginx:1.27")), map[string]string{"team": "dev"})), allow: vetted},
	"pod mounting an image volume from elsewhere": {req: create(owner, "apps", newPod("apps", image("nginx:1.27"), func(p *corev1.PodSpec) {
		p.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "attacker/data:1"}}}}
	})), allow: vetted, want: "LL029"},
	"pod mounting an image volume of its own": {req: create(owner, "apps", newPod("apps", image("nginx:1.27"), func(p *corev1.PodSpec) {
		p.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "registry.example.com/dev/data:1"}}}}
	})), allow: vetted},
	"pod debugged with an ephemeral container from elsewhere": {req: update(owner, "apps", newPod("apps", image("nginx:1.27")), newPod("apps", image("nginx:1.27"), func(p *corev1.PodSpec) {
		p.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Image: "attacker/tools:1"}}}
	})), allow: vetted, want: "LL029"},
	"pod of an old image, its image changed": {req: update(owner, "apps", newPod("apps", image("attacker/nginx:1.27")), newPod("apps", image("attacker/nginx:1.28"))), allow: vetted, want: "LL029"},
}

const sha = "0000000000000000000000000000000000000000000000000000000000000000"

func init() { maps.Copy(testCases, imageCases) }
