package policy

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// ruleNamespaceMetadata is declared here, beside the rule, and listed in Rules.
var ruleNamespaceMetadata = Rule{"LL025", "namespace-metadata", "other components trust a namespace's labels, annotations and finalizers (node selectors, cloud roles, policy selectors, deletion): a tenant writes only the keys the platform allows, and no finalizer nothing removes"}

// Keys every tenant may write on its namespaces, because the tools that
// create and apply them write them; no other component trusts them.
var (
	// builtinLabels: the apiserver names every namespace; kustomize- and
	// helm-controller label what they apply with the object that applied it.
	builtinLabels = []string{
		corev1.LabelMetadataName,
		"kustomize.toolkit.fluxcd.io/name", "kustomize.toolkit.fluxcd.io/namespace",
		"helm.toolkit.fluxcd.io/name", "helm.toolkit.fluxcd.io/namespace",
	}
	// builtinAnnotations: client-side kubectl apply keeps what it applied.
	builtinAnnotations = []string{corev1.LastAppliedConfigAnnotation}
)

// Finalizers a tenant may add: those Kubernetes itself removes. Landlord's
// own finalizer is not among them, since nothing of Landlord's removes it
// from a namespace.
var (
	// namespaceFinalizers are the garbage collector's, in metadata.finalizers.
	namespaceFinalizers = []string{metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents}
	// specFinalizers are the namespace controller's, in spec.finalizers.
	specFinalizers = []string{string(corev1.FinalizerKubernetes)}
)

// namespaceMetadata is rule LL025: on its namespaces a tenant adds, changes
// or removes only the label and annotation keys its allow-list names (other
// components trust node selectors, IAM roles and labels that policies
// select on), and adds no finalizer that nothing would remove: a namespace
// held Terminating stops counting against maxNamespaces. Only what the
// request changes is judged, so the platform's own metadata never blocks
// the tenant's other edits. Landlord's labels are rule LL009's.
func namespaceMetadata(old, ns *corev1.Namespace, t *v1alpha1.Tenant) field.ErrorList {
	var before corev1.Namespace
	if old != nil {
		before = *old
	}
	labels, annotations := allowedMetadata(t)
	meta := field.NewPath("metadata")
	errs := keyChanges(meta.Child("labels"), "label", before.Labels, ns.Labels, labels,
		"spec.namespaceMetadata.allowedLabels", t)
	errs = append(errs, keyChanges(meta.Child("annotations"), "annotation", before.Annotations, ns.Annotations, annotations,
		"spec.namespaceMetadata.allowedAnnotations", t)...)
	errs = append(errs, addedFinalizers(meta.Child("finalizers"), before.Finalizers, ns.Finalizers, namespaceFinalizers)...)
	return append(errs, addedFinalizers(field.NewPath("spec", "finalizers"),
		finalizerNames(before.Spec.Finalizers), finalizerNames(ns.Spec.Finalizers), specFinalizers)...)
}

// allowedMetadata is the tenant's label and annotation key patterns,
// the built-in ones first.
func allowedMetadata(t *v1alpha1.Tenant) (labels, annotations []string) {
	labels = slices.Clone(builtinLabels)
	annotations = slices.Clone(builtinAnnotations)
	if m := t.Spec.NamespaceMetadata; m != nil {
		labels = append(labels, m.AllowedLabels...)
		annotations = append(annotations, m.AllowedAnnotations...)
	}
	return labels, annotations
}

// keyChanges denies setting or removing a key no pattern of allowed
// matches; protected labels and annotations are left to
// platformMetadataChanges.
func keyChanges(p *field.Path, kind string, before, after map[string]string, allowed []string, setting string, t *v1alpha1.Tenant) field.ErrorList {
	keys := maps.Collect(maps.All(before))
	maps.Copy(keys, after)
	var errs field.ErrorList
	for _, key := range slices.Sorted(maps.Keys(keys)) {
		was, had := before[key]
		is, has := after[key]
		if had == has && was == is || kind == "label" && protectedLabel(key) || kind == "annotation" && v1alpha1.IsLandlordKey(key) || matchesAny(allowed, key) {
			continue
		}
		verb := "set"
		if !has {
			verb = "remove"
		}
		errs = append(errs, forbidden(ruleNamespaceMetadata, p.Key(key), "tenant "+t.Name+" may not "+verb+" this "+kind+
			" on its namespaces; allowed: keys matching "+quoteList(allowed)+" ("+setting+")"))
	}
	return errs
}

// matchesAny reports whether key matches one of the patterns, in which
// '*' matches any run of characters.
func matchesAny(patterns []string, key string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return glob(p, key) })
}

// addedFinalizers denies a finalizer the request adds that is not allowed;
// removing one is no threat to the count.
func addedFinalizers(p *field.Path, before, after, allowed []string) field.ErrorList {
	var errs field.ErrorList
	for i, f := range after {
		if slices.Contains(before, f) || slices.Contains(allowed, f) {
			continue
		}
		errs = append(errs, forbidden(ruleNamespaceMetadata, p.Index(i), "finalizer "+strconv.Quote(f)+
			" would hold the namespace Terminating with nothing to remove it; allowed: adding "+quoteList(allowed)+", removing any"))
	}
	return errs
}

func finalizerNames(names []corev1.FinalizerName) []string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return s
}

// removedAny reports whether after lacks an entry of before.
func removedAny(before, after []string) bool {
	return slices.ContainsFunc(before, func(f string) bool { return !slices.Contains(after, f) })
}

// glob matches s against pattern, in which only '*' is special and matches
// any run of characters, as in allowedLabels and allowedAnnotations.
func glob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s = s[i+len(part):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}
