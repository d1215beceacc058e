package webhook

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/landlord-dev/landlord/internal/tenancy"
)

// TestSelfServiceLocksAreForgotten: creations for one tenant are judged
// one at a time, and a tenant's lock is forgotten once no creation holds
// or waits on it, so that label values requests choose do not pile up in
// the guard's memory (issue 23, suspected in class 11).
func TestSelfServiceLocksAreForgotten(t *testing.T) {
	s := newSelfServiceCreates()
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	for i := range 400 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tenant := fmt.Sprintf("label-%d", i%100) // four creations a tenant
			s.judge(nil, tenant, fmt.Sprintf("ns-%d", i), true, func(tenancy.Resolver) bool {
				if n := inside.Add(1); n > most.Load() {
					most.Store(n)
				}
				defer inside.Add(-1)
				return false
			})
		}()
	}
	wg.Wait()
	if n := len(s.locks); n != 0 {
		t.Errorf("%d tenant locks left after every creation was judged, want 0", n)
	}
	if most.Load() > 100 {
		t.Errorf("%d judged at once, more than one per tenant", most.Load())
	}

	// One tenant's creations never overlap.
	inside.Store(0)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.judge(nil, "one", fmt.Sprintf("ns-%d", i), true, func(tenancy.Resolver) bool {
				if inside.Add(1) > 1 {
					t.Error("two creations of one tenant judged at once")
				}
				defer inside.Add(-1)
				return false
			})
		}()
	}
	wg.Wait()
}
