// Package lockdown is Flux's multi-tenancy lockdown: the flags each Flux
// controller needs so that a tenant's objects reach no other namespace,
// pull no remote base and never borrow the controller's own identity. The
// fleet scaffold, `landlord install --flux-lockdown`, the local Flux and
// `landlord audit` all read them from here.
package lockdown

import (
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Flag is one command-line flag the lockdown sets.
type Flag struct {
	Name  string
	Value string
	// AnyValue says any non-empty value locks down as well: which account
	// Flux falls back to is the platform's choice.
	AnyValue bool
	// Gate says Value is one key=value of a feature-gates list: the flag
	// repeats and its occurrences merge, so other gates stay as they are.
	Gate bool
}

func (f Flag) String() string { return f.Name + "=" + f.Value }

// Satisfied reports whether value, as the controller received it (a gate
// flag's occurrences joined by commas), locks down.
func (f Flag) Satisfied(value string) bool {
	switch {
	case f.AnyValue:
		return value != ""
	case f.Gate:
		key, want, _ := strings.Cut(f.Value, "=")
		return sameBool(gates(value)[key], want)
	}
	return sameBool(value, f.Value)
}

// sameBool compares a value as pflag reads a boolean (True, 1 and t are
// true), any other value as written.
func sameBool(value, want string) bool {
	got, err := strconv.ParseBool(value)
	if w, werr := strconv.ParseBool(want); err == nil && werr == nil {
		return got == w
	}
	return value == want
}

// gates reads a feature-gates list; a later entry wins, as in pflag.
func gates(list string) map[string]string {
	m := map[string]string{}
	for _, entry := range strings.Split(list, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(entry), "="); ok {
			m[k] = v
		}
	}
	return m
}

var (
	noCrossNamespaceRefs = Flag{Name: "--no-cross-namespace-refs", Value: "true"}
	noRemoteBases        = Flag{Name: "--no-remote-bases", Value: "true"}
	// An object naming no service account impersonates its namespace's
	// default one, which holds no rights, rather than the controller
	// (kustomize- and helm-controller: impersonation; source-,
	// notification- and image-controllers: the identity they fetch or
	// notify with for a cloud provider).
	defaultServiceAccount = Flag{Name: "--default-service-account", Value: "default", AnyValue: true}
	// SOPS decryption naming no service account takes its cloud KMS
	// identity from the namespace's default account, not the controller's.
	defaultDecryptionServiceAccount = Flag{Name: "--default-decryption-service-account", Value: "default", AnyValue: true}
	// A kubeConfig ConfigMap naming no service account likewise (LL004
	// refuses tenants any kubeConfig; this covers the controller's side).
	defaultKubeConfigServiceAccount = Flag{Name: "--default-kubeconfig-service-account", Value: "default", AnyValue: true}
	// Object-level identity, which the three flags above configure: without
	// the gate, a controller given any of them exits at start.
	objectLevelWorkloadIdentity = Flag{Name: "--feature-gates", Value: "ObjectLevelWorkloadIdentity=true", Gate: true}
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
// order. Which versions have which flag, read in their main.go:
//
//   - --no-cross-namespace-refs, --no-remote-bases and kustomize's and
//     helm's impersonation --default-service-account: every v1 controller.
//   - the ObjectLevelWorkloadIdentity gate, --default-decryption-service-account
//     and --default-kubeconfig-service-account (kustomize-controller v1.6+,
//     pinned v1.7.3; helm-controller v1.3+, pinned v1.4.3), and
//     --default-service-account for cloud identity (source-controller v1.6+,
//     pinned v1.7.3; notification-controller v1.7+, whose API at v1.7.5 is required, the
//     controller not built here;
//     image-reflector- and image-automation-controller v1.0+): Flux 2.6 on.
//
// Older controllers refuse the newer flags at start: the lockdown needs
// Flux 2.6 or later.
var Controllers = []Controller{
	{Name: "source-controller", Flags: []Flag{objectLevelWorkloadIdentity, defaultServiceAccount}},
	{Name: "kustomize-controller", Flags: []Flag{noCrossNamespaceRefs, noRemoteBases, defaultServiceAccount,
		objectLevelWorkloadIdentity, defaultDecryptionServiceAccount, defaultKubeConfigServiceAccount}, Required: true},
	{Name: "helm-controller", Flags: []Flag{noCrossNamespaceRefs, defaultServiceAccount, objectLevelWorkloadIdentity, defaultKubeConfigServiceAccount}},
	{Name: "notification-controller", Flags: []Flag{noCrossNamespaceRefs, objectLevelWorkloadIdentity, defaultServiceAccount}},
	{Name: "image-reflector-controller", Flags: []Flag{noCrossNamespaceRefs, objectLevelWorkloadIdentity, defaultServiceAccount}},
	{Name: "image-automation-controller", Flags: []Flag{noCrossNamespaceRefs, objectLevelWorkloadIdentity, defaultServiceAccount}},
	// Flux 2.7's optional source-watcher: an ArtifactGenerator may name
	// sources in other namespaces.
	{Name: "source-watcher", Flags: []Flag{noCrossNamespaceRefs}},
}

// Setting is one flag of the lockdown and the controllers that take it.
type Setting struct {
	Flag        Flag
	Controllers []string
}

// Settings are the lockdown by flag, in the order Controllers first names
// each: what a patch per flag sets, or a help text lists.
func Settings() []Setting {
	var settings []Setting
	index := map[Flag]int{}
	for _, c := range Controllers {
		for _, f := range c.Flags {
			i, ok := index[f]
			if !ok {
				i = len(settings)
				index[f] = i
				settings = append(settings, Setting{Flag: f})
			}
			settings[i].Controllers = append(settings[i].Controllers, c.Name)
		}
	}
	return settings
}

// Lookup is the named controller of Controllers, if it is one.
func Lookup(name string) (Controller, bool) {
	i := slices.IndexFunc(Controllers, func(c Controller) bool { return c.Name == name })
	if i < 0 {
		return Controller{}, false
	}
	return Controllers[i], true
}

// Args are the flags of the named controller as command-line arguments.
func Args(controller string) []string {
	c, _ := Lookup(controller)
	var args []string
	for _, f := range c.Flags {
		args = append(args, f.String())
	}
	return args
}

// CommandLine is what the controller of a Flux Deployment's pod spec
// runs: the command and arguments of its manager container, as Flux's
// manifests name it, else of its first. Other containers' flags are not
// the controller's.
func CommandLine(spec *corev1.PodSpec) []string {
	for _, c := range spec.Containers {
		if c.Name == "manager" {
			return append(slices.Clone(c.Command), c.Args...)
		}
	}
	if len(spec.Containers) == 0 {
		return nil
	}
	return append(slices.Clone(spec.Containers[0].Command), spec.Containers[0].Args...)
}

// Missing lists the lockdown flags a command line does not pass with a
// value that locks down, as flag=value.
func Missing(controller string, args []string) []string {
	var missing []string
	for _, f := range missingFlags(controller, args) {
		missing = append(missing, f.String())
	}
	return missing
}

func missingFlags(controller string, args []string) []Flag {
	got := parse(args)
	c, _ := Lookup(controller)
	var missing []Flag
	for _, f := range c.Flags {
		if !f.Satisfied(got[f.Name]) {
			missing = append(missing, f)
		}
	}
	return missing
}

// fluxBooleans are the boolean flags of Flux's controllers (read in
// fluxcd/pkg/runtime v0.91.0 and the controllers' main.go): alone, they
// take no value from the next argument.
var fluxBooleans = []string{"--enable-leader-election", "--leader-election-release-on-cancel", "--watch-all-namespaces",
	"--insecure-allow-http", "--insecure-kubeconfig-exec", "--insecure-kubeconfig-tls"}

// boolean reports whether pflag would read name as a boolean flag: a
// lockdown flag set to true or false, or one of fluxBooleans.
func boolean(name string) bool {
	for _, c := range Controllers {
		for _, f := range c.Flags {
			if f.Name == name {
				_, err := strconv.ParseBool(f.Value)
				return err == nil
			}
		}
	}
	return slices.Contains(fluxBooleans, name)
}

// parse reads a command line's long flags as pflag would: the last
// occurrence wins, except for gate flags, whose occurrences merge; "--"
// ends the flags; a flag alone that is not known to be boolean takes the
// next argument as its value, whatever it starts with, so that a lockdown
// flag an unknown flag may swallow does not count.
func parse(args []string) map[string]string {
	gate := map[string]bool{}
	for _, c := range Controllers {
		for _, f := range c.Flags {
			gate[f.Name] = gate[f.Name] || f.Gate
		}
	}
	got := map[string]string{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			break
		}
		if !strings.HasPrefix(arg, "--") {
			continue
		}
		name, value, ok := strings.Cut(arg, "=")
		switch {
		case ok:
		case boolean(name):
			value = "true"
		case i+1 < len(args):
			i++
			value = args[i]
		}
		if gate[name] && got[name] != "" {
			value = got[name] + "," + value
		}
		got[name] = value
	}
	return got
}

// Lock returns args with the controller's missing lockdown flags set, a
// flag already locking down left as it is. A missing flag's first
// occurrence (--name=…, --name, or "--name value") is replaced where it
// stands and any later one dropped, since the last would win; a gate flag's
// occurrences become one that keeps the other gates; an absent flag is
// appended.
func Lock(controller string, args []string) []string {
	out := slices.Clone(args)
	for _, f := range missingFlags(controller, args) {
		// pflag reads a non-boolean flag's value from the next argument.
		separateValue := f.Value != "true" && f.Value != "false"
		var values []string
		first := -1
		for i := 0; i < len(out); {
			n, value := 0, ""
			switch a := out[i]; {
			case strings.HasPrefix(a, f.Name+"="):
				n, value = 1, strings.TrimPrefix(a, f.Name+"=")
			case a == f.Name && separateValue && i+1 < len(out):
				n, value = 2, out[i+1]
			case a == f.Name:
				n = 1
			default:
				i++
				continue
			}
			values = append(values, value)
			out = slices.Delete(out, i, i+n)
			if first < 0 {
				first = i
			}
		}
		flag := f.String()
		if f.Gate {
			flag = f.Name + "=" + mergeGates(append(values, f.Value))
		}
		if first < 0 {
			out = slices.Insert(out, appendAt(out), flag)
		} else {
			out = slices.Insert(out, first, flag)
		}
	}
	return out
}

// appendAt is where a flag is added to args: at the end, but before any
// "--", after which pflag reads no flag, and before a last flag alone that
// may take it as its value.
func appendAt(args []string) int {
	end := slices.Index(args, "--")
	if end < 0 {
		end = len(args)
	}
	if end > 0 {
		if last := args[end-1]; strings.HasPrefix(last, "--") && !strings.Contains(last, "=") && !boolean(last) {
			end--
		}
	}
	return end
}

// mergeGates joins feature-gates lists into one, each gate once, in the
// order first seen, with the value it was given last.
func mergeGates(lists []string) string {
	var keys []string
	values := map[string]string{}
	for _, list := range lists {
		for _, entry := range strings.Split(list, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(entry), "=")
			if !ok {
				continue
			}
			if _, seen := values[k]; !seen {
				keys = append(keys, k)
			}
			values[k] = v
		}
	}
	entries := make([]string, len(keys))
	for i, k := range keys {
		entries[i] = k + "=" + values[k]
	}
	return strings.Join(entries, ",")
}
