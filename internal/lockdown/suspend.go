package lockdown

import "k8s.io/apimachinery/pkg/runtime/schema"

// Suspendable are the Flux kinds that act while spec.suspend is false: a
// released namespace keeps every one of them suspended.
var Suspendable = []schema.GroupVersionKind{
	{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Kind: "Kustomization"},
	{Group: "helm.toolkit.fluxcd.io", Version: "v2", Kind: "HelmRelease"},
	{Group: "source.toolkit.fluxcd.io", Version: "v1", Kind: "GitRepository"},
	{Group: "source.toolkit.fluxcd.io", Version: "v1", Kind: "OCIRepository"},
	{Group: "source.toolkit.fluxcd.io", Version: "v1", Kind: "HelmRepository"},
	{Group: "source.toolkit.fluxcd.io", Version: "v1", Kind: "HelmChart"},
	{Group: "source.toolkit.fluxcd.io", Version: "v1", Kind: "Bucket"},
	{Group: "image.toolkit.fluxcd.io", Version: "v1", Kind: "ImageRepository"},
	{Group: "image.toolkit.fluxcd.io", Version: "v1", Kind: "ImageUpdateAutomation"},
}
