package webhook

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// TestDenialEventsAreAggregated: 100 denials of one tenant under one rule
// within a window make one Event at once and one counting the rest when
// the window closes; another rule and the target's reason have their
// own; a quiet window is forgotten, so memory holds open windows only.
func TestDenialEventsAreAggregated(t *testing.T) {
	recorder := events.NewFakeRecorder(1000)
	d := newDenialEvents(recorder, 200*time.Millisecond)
	blue, red := &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "blue"}}, &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "red"}}
	for i := range 100 {
		svc := &corev1.ObjectReference{Kind: "Service", Namespace: "blue-apps", Name: "svc"}
		d.record(blue, svc, "LL017", "Denied", "mallory was denied: "+string(rune('a'+i%26)))
	}
	d.record(blue, nil, "LL020", "Denied", "mallory was denied: a class")
	d.record(red, nil, "Targeted", "LL017", "mallory, acting for tenant blue, was denied")

	want := []string{
		"Warning LL017 mallory was denied: a",
		"Warning LL020 mallory was denied: a class",
		"Warning Targeted mallory, acting for tenant blue, was denied",
		"Warning LL017 mallory was denied: v (and 98 more like it in the last 200ms)",
	}
	var got []string
	deadline := time.After(10 * time.Second)
	for len(got) < len(want) {
		select {
		case e := <-recorder.Events:
			got = append(got, e)
		case <-deadline:
			t.Fatalf("events %q, want %q", got, want)
		}
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("event %d: %q, want %q", i, got[i], want[i])
		}
	}
	// The summary opened one more window, which closes quiet.
	deadline = time.After(10 * time.Second)
	for {
		d.mu.Lock()
		open := len(d.open)
		d.mu.Unlock()
		if open == 0 {
			break
		}
		select {
		case e := <-recorder.Events:
			t.Errorf("an Event with no denial behind it: %q", e)
		case <-deadline:
			t.Fatalf("%d windows still open", open)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
