package lint

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/landlord-dev/landlord/internal/fluxoperator"
)

// fluxInstance reports a Flux Operator FluxInstance of the fleet that
// would render a Flux controller without the multi-tenancy lockdown, or
// that Landlord cannot verify, as the audit judges the live one.
func (l *linter) fluxInstance(o *object) {
	if !isKind(o.gvk, fluxoperator.GVK.Group, fluxoperator.GVK.Kind) {
		return
	}
	// Decoded anew, for the number types unstructured objects copy.
	instance := &unstructured.Unstructured{}
	if err := decode(o.obj, &instance.Object); err != nil {
		return // the schema check reports what does not decode
	}
	instance.SetNamespace(o.namespace)
	missing, err := fluxoperator.Missing(instance)
	switch {
	case err != nil:
		l.add(o.repo.finding(RuleFluxLockdown, o.file, o.line(""), err.Error()))
	case len(missing) > 0:
		l.add(o.repo.finding(RuleFluxLockdown, o.file, o.line("spec.cluster"), fluxoperator.Key(instance)+": "+fluxoperator.Describe(missing)+
			"; allowed: spec.cluster."+strings.Join(fluxoperator.Settings(), ", spec.cluster.")+" true, as 'landlord init fleet --flux-operator' writes them"))
	}
}
