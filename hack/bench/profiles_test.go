package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
)

// writeProfile writes a profile of one sample type whose samples are the
// given stacks, each worth its value, and returns its path.
func writeProfile(t *testing.T, sampleType string, stacks [][]string, values []int64) string {
	t.Helper()
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: sampleType, Unit: "bytes"}}}
	functions := map[string]*profile.Function{}
	for i, stack := range stacks {
		s := &profile.Sample{Value: []int64{1, values[i]}}
		for _, name := range stack {
			f, ok := functions[name]
			if !ok {
				f = &profile.Function{ID: uint64(len(functions) + 1), Name: name}
				functions[name] = f
				p.Function = append(p.Function, f)
			}
			loc := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f}}}
			p.Location = append(p.Location, loc)
			s.Location = append(s.Location, loc)
		}
		p.Sample = append(p.Sample, s)
	}
	path := filepath.Join(t.TempDir(), "profile.pprof")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCPUShares(t *testing.T) {
	path := writeProfile(t, "cpu", [][]string{
		{celAuthorize, rbacVisit, policyPlugin},                // the policy's authorizer check
		{toUnstructured, policyPlugin},                         // its conversion
		{"cel.Eval", policyPlugin},                             // the rest of its CEL
		{celAuthorize, rbacVisit, webhookMatch, webhookPlugin}, // the webhook's match condition
		{rbacVisit, requestAuthz},                              // the request's own authorization
		{"etcd3.(*store).Create"},                              // storage, no part of admission
		{celAuthorize, "some other plugin"},                    // an authorizer check outside both
		{"cel.Eval", toUnstructured, "elsewhere"},              // a conversion outside the policies
	}, []int64{30, 10, 5, 20, 15, 15, 3, 2})
	shares, err := cpuShares(path, apiserverParts)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"admission by the policies and the webhook":                      65,
		"RBAC answering the policies' authorizer checks":                 30,
		"RBAC answering the webhook's match condition":                   20,
		"the policies' conversions of the object to unstructured":        10,
		"the policies' CEL and the rest, RBAC and conversions aside":     5,
		"RBAC authorizing the request itself (the baseline pays it too)": 15,
	}
	for i, part := range apiserverParts {
		if shares[i] != want[part.figure] {
			t.Errorf("%s: %.1f%%, want %.1f%%", part.figure, shares[i], want[part.figure])
		}
	}
}

func TestHeapInUse(t *testing.T) {
	path := writeProfile(t, "inuse_space", [][]string{
		{"protobuf.Decode", informerFunctions[0]},
		{"sets.Insert", informerFunctions[1]},
		{"render.Objects"},
	}, []int64{3 << 20, 1 << 20, 4 << 20})
	mib, cached, err := heapInUse(path)
	if err != nil {
		t.Fatal(err)
	}
	if mib != 8 || cached != 50 {
		t.Errorf("heap %.1f MiB, %.0f%% cached; want 8 MiB, 50%%", mib, cached)
	}
	if _, _, err := heapInUse(writeProfile(t, "cpu", [][]string{{"f"}}, []int64{1})); err == nil {
		t.Error("a CPU profile read as a heap profile")
	}
}
