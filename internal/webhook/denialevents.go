package webhook

import (
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// denialWindow is how often a tenant's denials under one rule make an
// Event at most.
const denialWindow = time.Minute

// denialEvents records the guard's denials as Events on Tenants, at most
// one per tenant, rule and reason each window: the first at once, the
// rest counted into one at the window's end. A tenant retrying a refused
// write then adds an Event a minute, not one a write, and memory holds
// only the windows open, one per tenant and rule at most.
type denialEvents struct {
	recorder events.EventRecorder
	window   time.Duration
	mu       sync.Mutex
	open     map[denialKey]*denialWindowState
}

// denialKey is what one window aggregates.
type denialKey struct{ tenant, reason, action string }

// denialWindowState is what a window saw after its first denial.
type denialWindowState struct {
	count   int
	tenant  *v1alpha1.Tenant
	related *corev1.ObjectReference
	note    string
}

func newDenialEvents(recorder events.EventRecorder, window time.Duration) *denialEvents {
	return &denialEvents{recorder: recorder, window: window, open: map[denialKey]*denialWindowState{}}
}

// record notes a denial on tenant, about the object related.
func (d *denialEvents) record(tenant *v1alpha1.Tenant, related *corev1.ObjectReference, reason, action, note string) {
	key := denialKey{tenant.Name, reason, action}
	d.mu.Lock()
	defer d.mu.Unlock()
	if w, ok := d.open[key]; ok {
		w.count++
		w.tenant, w.related, w.note = tenant, related, note
		return
	}
	d.open[key] = &denialWindowState{}
	d.recorder.Eventf(tenant, related, corev1.EventTypeWarning, reason, action, "%s", note)
	time.AfterFunc(d.window, func() { d.close(key) })
}

// close ends key's window: its count goes into one Event, which opens the
// next window, or, with none, the window is forgotten.
func (d *denialEvents) close(key denialKey) {
	d.mu.Lock()
	defer d.mu.Unlock()
	w := d.open[key]
	if w.count == 0 {
		delete(d.open, key)
		return
	}
	d.open[key] = &denialWindowState{}
	d.recorder.Eventf(w.tenant, w.related, corev1.EventTypeWarning, key.reason, key.action, "%s",
		fmt.Sprintf("%s (and %d more like it in the last %s)", w.note, w.count-1, d.window))
	time.AfterFunc(d.window, func() { d.close(key) })
}
