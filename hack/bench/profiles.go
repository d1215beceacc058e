package main

import (
	"fmt"
	"os"

	"github.com/google/pprof/profile"
)

// cpuPart is a part of a CPU profile: the samples whose stack passes
// through a function of each of the groups in through (any one of a
// group), and through none named in besides.
type cpuPart struct {
	figure  string
	through [][]string
	besides []string
}

// Functions a CPU profile of the API server is read by.
const (
	policyPlugin   = "k8s.io/apiserver/pkg/admission/plugin/policy/validating.(*Plugin).Validate"
	webhookPlugin  = "k8s.io/apiserver/pkg/admission/plugin/webhook/validating.(*Plugin).Validate"
	webhookMatch   = "k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions.(*matcher).Match"
	celAuthorize   = "k8s.io/apiserver/pkg/cel/library.resourceCheckVal.Authorize"
	rbacVisit      = "k8s.io/kubernetes/pkg/registry/rbac/validation.(*DefaultRuleResolver).VisitRulesFor"
	requestAuthz   = "k8s.io/apiserver/pkg/endpoints/filters.withAuthorization.func1"
	toUnstructured = "k8s.io/apimachinery/pkg/runtime.(*unstructuredConverter).ToUnstructured"
)

// apiserverParts are what p2's profile of the API server is read into:
// what admission costs, and of it what RBAC and the rest of CEL cost.
var apiserverParts = []cpuPart{
	{figure: "admission by the policies and the webhook", through: [][]string{{policyPlugin, webhookPlugin}}},
	{figure: "RBAC answering the policies' authorizer checks", through: [][]string{{policyPlugin}, {celAuthorize}}},
	{figure: "RBAC answering the webhook's match condition", through: [][]string{{webhookMatch}, {celAuthorize}}},
	{figure: "the policies' conversions of the object to unstructured", through: [][]string{{policyPlugin}, {toUnstructured}}},
	{figure: "the policies' CEL and the rest, RBAC and conversions aside", through: [][]string{{policyPlugin}}, besides: []string{celAuthorize, toUnstructured}},
	{figure: "RBAC authorizing the request itself (the baseline pays it too)", through: [][]string{{requestAuthz}, {rbacVisit}}},
}

// Functions a CPU profile of the API server under provisioning is read by.
const (
	bindingAuthorized = "k8s.io/kubernetes/pkg/registry/rbac.BindingAuthorized"
	escalationAllowed = "k8s.io/kubernetes/pkg/registry/rbac.EscalationAllowed"
	roleEscalation    = "k8s.io/kubernetes/pkg/registry/rbac.RoleEscalationAuthorized"
	storageCreate     = "k8s.io/apiserver/pkg/storage/etcd3.(*store).Create"
	storageUpdate     = "k8s.io/apiserver/pkg/storage/etcd3.(*store).GuaranteedUpdate"
)

// provisioningParts are what p1's profile of the API server is read into:
// where the controller's writes cost it more than the baseline's.
var provisioningParts = []cpuPart{
	{figure: "RBAC, every question", through: [][]string{{rbacVisit}}},
	{figure: "RBAC authorizing the writes themselves", through: [][]string{{requestAuthz}, {rbacVisit}}},
	{figure: "RBAC checking the bind and escalate grants of RBAC writes (the baseline, system:masters, skips it)", through: [][]string{{bindingAuthorized, escalationAllowed, roleEscalation}}},
	{figure: "admission by the webhook (RoleBindings)", through: [][]string{{webhookPlugin}}},
	{figure: "admission by the policies", through: [][]string{{policyPlugin}}},
	{figure: "storing in etcd", through: [][]string{{storageCreate, storageUpdate}}},
}

// cpuShares reads the CPU profile at path and returns the share of its
// samples each part holds, in percent.
func cpuShares(path string, parts []cpuPart) ([]float64, error) {
	p, err := readProfile(path)
	if err != nil {
		return nil, err
	}
	shares := make([]float64, len(parts))
	var total float64
	for _, s := range p.Sample {
		v := float64(s.Value[len(s.Value)-1]) // cpu nanoseconds follow the sample count
		total += v
		stack := functionsOf(s)
		for i, part := range parts {
			if part.holds(stack) {
				shares[i] += v
			}
		}
	}
	if total == 0 {
		return nil, fmt.Errorf("%s holds no samples", path)
	}
	for i := range shares {
		shares[i] *= 100 / total
	}
	return shares, nil
}

// holds reports whether a stack's functions pass through the part.
func (c cpuPart) holds(stack map[string]bool) bool {
	for _, group := range c.through {
		if !anyOf(stack, group) {
			return false
		}
	}
	return !anyOf(stack, c.besides)
}

// anyOf reports whether stack holds any of names.
func anyOf(stack map[string]bool, names []string) bool {
	for _, n := range names {
		if stack[n] {
			return true
		}
	}
	return false
}

// functionsOf is the set of functions on a sample's stack, inlined ones
// included.
func functionsOf(s *profile.Sample) map[string]bool {
	stack := map[string]bool{}
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function != nil {
				stack[line.Function.Name] = true
			}
		}
	}
	return stack
}

// heapInUse reads a heap profile at path and returns the bytes in use
// when it was taken, in MiB, and the share of them the informers' watches
// decoded (the objects the caches hold) and indexed, in percent.
func heapInUse(path string) (mib, cached float64, err error) {
	p, err := readProfile(path)
	if err != nil {
		return 0, 0, err
	}
	index := -1
	for i, t := range p.SampleType {
		if t.Type == "inuse_space" {
			index = i
		}
	}
	if index < 0 {
		return 0, 0, fmt.Errorf("%s is not a heap profile", path)
	}
	var total, informers float64
	for _, s := range p.Sample {
		v := float64(s.Value[index])
		total += v
		if stack := functionsOf(s); anyOf(stack, informerFunctions) {
			informers += v
		}
	}
	if total == 0 {
		return 0, 0, fmt.Errorf("%s holds no samples", path)
	}
	return total / (1 << 20), informers * 100 / total, nil
}

// informerFunctions are where the caches' objects and indexes are made:
// decoded off the watch (lists come as watches too), and kept in the
// store with its indexes.
var informerFunctions = []string{
	"k8s.io/apimachinery/pkg/watch.(*StreamWatcher).receive",
	"k8s.io/client-go/tools/cache.(*threadSafeMap).updateLocked",
}

// readProfile parses the pprof file at path.
func readProfile(path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	return p, nil
}

// shareRows are a profile's parts as rows of the table.
func shareRows(part, of string, parts []cpuPart, shares []float64, note string) []row {
	rows := make([]row, len(parts))
	for i, c := range parts {
		rows[i] = row{part: part, figure: of + ": " + c.figure, value: shares[i], unit: "%", note: note}
	}
	return rows
}
