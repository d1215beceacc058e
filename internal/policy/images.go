package policy

import (
	"strings"

	"github.com/distribution/reference"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ruleImages is rule LL029, declared here beside it and listed in Rules.
var ruleImages = Rule{"LL029", "allowed-images", "where the Tenant lists registries, a container pulls only from them, so that no image the platform has not vetted runs on shared nodes; and where it asks, every pull is checked against the registry, so that a node's cached copy of another tenant's private image is never run without that tenant's credentials"}

// images is rule LL029 on every image a pod spec pulls: its init, app and
// ephemeral containers', and its image volumes'.
func images(spec *corev1.PodSpec, p *field.Path, s scope) field.ErrorList {
	allow := s.allow.images
	if allow == nil {
		return nil
	}
	var errs field.ErrorList
	check := func(image string, policy corev1.PullPolicy, imagePath, policyPath *field.Path) {
		if !imageAllowed(image, allow.Allowed) {
			errs = append(errs, invalid(ruleImages, imagePath, image,
				"tenant "+s.tenant.Name+" may not pull this image; allowed: images below "+orNothing(allow.Allowed)))
		}
		if policy = pullPolicy(image, policy); allow.PullAlways && policy != corev1.PullAlways {
			errs = append(errs, notSupported(ruleImages, policyPath, string(policy),
				"tenant "+s.tenant.Name+" requires every pull checked against the registry", []string{string(corev1.PullAlways)}))
		}
	}
	container := func(c *corev1.Container, cp *field.Path) {
		check(c.Image, c.ImagePullPolicy, cp.Child("image"), cp.Child("imagePullPolicy"))
	}
	for i := range spec.InitContainers {
		container(&spec.InitContainers[i], p.Child("initContainers").Index(i))
	}
	for i := range spec.Containers {
		container(&spec.Containers[i], p.Child("containers").Index(i))
	}
	for i := range spec.EphemeralContainers {
		container((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon), p.Child("ephemeralContainers").Index(i))
	}
	for i, v := range spec.Volumes {
		if v.Image != nil {
			vp := p.Child("volumes").Index(i).Child("image")
			check(v.Image.Reference, v.Image.PullPolicy, vp.Child("reference"), vp.Child("pullPolicy"))
		}
	}
	return errs
}

// imageAllowed reports whether image's full name is one of the prefixes
// or continues one with "/". An image that does not parse is not allowed.
func imageAllowed(image string, prefixes []string) bool {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return false
	}
	name := named.Name()
	for _, prefix := range prefixes {
		if name == prefix || strings.HasPrefix(name, prefix+"/") {
			return true
		}
	}
	return false
}

// pullPolicy is an image's pull policy as the API server defaults it, for
// containers and image volumes alike: Always for an image tagged latest or
// not at all, else IfNotPresent. Lint reads manifests before that
// defaulting.
func pullPolicy(image string, policy corev1.PullPolicy) corev1.PullPolicy {
	if policy != "" {
		return policy
	}
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return corev1.PullIfNotPresent
	}
	tagged, isTagged := named.(reference.Tagged)
	_, isDigested := named.(reference.Digested)
	if (!isTagged && !isDigested) || (isTagged && tagged.Tag() == "latest") {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

// orNothing lists values, or says none are.
func orNothing(values []string) string {
	if len(values) == 0 {
		return "none (spec.images.allowed is empty)"
	}
	return quoteList(values)
}
