// Package lockdown is Flux's multi-tenancy lockdown: the flags each Flux
// controller needs so that a tenant's objects reach no other namespace,
// pull no remote base and never borrow the controller's own identity. The
// fleet scaffold, `landlord install --flux-lockdown`, the local Flux and
// `landlord audit` all read them from here.
package lockdown

import "strings"

// Flag is one command-line flag the lockdown sets.
type Flag struct {
	Name  string
	Value string
	// AnyValue says any non-empty value locks down as well: which account
	// Flux falls back to is the platform's choice.
	AnyValue bool
}

func (f Flag) String() string { return f.Name + "=" + f.Value }

// Satisfied reports whether value, as the controller received it, locks
// down.
func (f Flag) Satisfied(value string) bool {
	if f.AnyValue {
		return value != ""
	}
	return value == f.Value
}

var (
	noCrossNamespaceRefs = Flag{Name: "--no-cross-namespace-refs", Value: "true"}
	noRemoteBases        = Flag{Name: "--no-remote-bases", Value: "true"}
	// An object naming no service account impersonates its namespace's
	// default one, which holds no rights, rather than the controller.
	defaultServiceAccount = Flag{Name: "--default-service-account", Value: "default", AnyValue: true}
)

// Controller is one Flux controller and the flags it needs.
type Controller struct {
	Name  string
	Flags []Flag
	// Required says Flux is not running without it: it applies the
	// tenants' manifests.
	Required bool
}

// Controllers are the Flux controllers the lockdown concerns, in a fixed
// order; source-controller has none of these flags.
var Controllers = []Controller{
	{Name: "kustomize-controller", Flags: []Flag{noCrossNamespaceRefs, noRemoteBases, defaultServiceAccount}, Required: true},
	{Name: "helm-controller", Flags: []Flag{noCrossNamespaceRefs, defaultServiceAccount}},
	{Name: "notification-controller", Flags: []Flag{noCrossNamespaceRefs}},
	{Name: "image-reflector-controller", Flags: []Flag{noCrossNamespaceRefs}},
	{Name: "image-automation-controller", Flags: []Flag{noCrossNamespaceRefs}},
}

// Args are the flags of the named controller as command-line arguments.
func Args(controller string) []string {
	var args []string
	for _, c := range Controllers {
		if c.Name == controller {
			for _, f := range c.Flags {
				args = append(args, f.String())
			}
		}
	}
	return args
}

// Missing lists the lockdown flags a command line does not pass with a
// value that locks down, as flag=value.
func Missing(controller string, args []string) []string {
	got := map[string]string{}
	for i, arg := range args {
		if !strings.HasPrefix(arg, "--") {
			continue
		}
		name, value, ok := strings.Cut(arg, "=")
		if !ok {
			// A boolean flag alone, or a value in the next argument.
			value = "true"
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				value = args[i+1]
			}
		}
		got[name] = value
	}
	var missing []string
	for _, c := range Controllers {
		if c.Name != controller {
			continue
		}
		for _, f := range c.Flags {
			if !f.Satisfied(got[f.Name]) {
				missing = append(missing, f.String())
			}
		}
	}
	return missing
}
