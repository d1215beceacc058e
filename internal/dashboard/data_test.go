package dashboard

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestUsages(t *testing.T) {
	for name, tc := range map[string]struct {
		hard, used corev1.ResourceList
		want       []usage
	}{
		"milli-units and a missing use": {
			hard: corev1.ResourceList{"requests.cpu": resource.MustParse("2"), "pods": resource.MustParse("10")},
			used: corev1.ResourceList{"requests.cpu": resource.MustParse("500m")},
			want: []usage{
				{Resource: "pods", Used: "0", Hard: "10", UsedMilli: 0, HardMilli: 10000, Percent: 0},
				{Resource: "requests.cpu", Used: "500m", Hard: "2", UsedMilli: 500, HardMilli: 2000, Percent: 25},
			},
		},
		"over the limit stops at a full bar": {
			hard: corev1.ResourceList{"pods": resource.MustParse("2")},
			used: corev1.ResourceList{"pods": resource.MustParse("3")},
			want: []usage{{Resource: "pods", Used: "3", Hard: "2", UsedMilli: 3000, HardMilli: 2000, Percent: 100}},
		},
		"a zero limit in use is full": {
			hard: corev1.ResourceList{"services": resource.MustParse("0")},
			used: corev1.ResourceList{"services": resource.MustParse("1")},
			want: []usage{{Resource: "services", Used: "1", Hard: "0", UsedMilli: 1000, HardMilli: 0, Percent: 100}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			got := usages(tc.hard, tc.used)
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("[%d] = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestDenials(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(ago time.Duration) metav1.MicroTime { return metav1.NewMicroTime(now.Add(-ago)) }
	events := []corev1.Event{
		{InvolvedObject: corev1.ObjectReference{Name: "alpha"}, Reason: "LL021", Action: "Denied", Message: "old", EventTime: at(2 * time.Hour)},
		{InvolvedObject: corev1.ObjectReference{Name: "alpha"}, Reason: "LL028", Action: "Denied", Message: "repeated", EventTime: at(time.Hour),
			Series:  &corev1.EventSeries{Count: 4, LastObservedTime: at(time.Minute)},
			Related: &corev1.ObjectReference{Kind: "Service", Namespace: "alpha-apps", Name: "escape"}},
		{InvolvedObject: corev1.ObjectReference{Name: "alpha"}, Reason: "Targeted", Action: "LL009", Message: "aimed", EventTime: at(10 * time.Minute)},
		{InvolvedObject: corev1.ObjectReference{Name: "alpha"}, Reason: "Reconciled", Action: "Apply", EventTime: at(0)},
	}
	got := denials(events, now)
	want := []struct {
		rule, object string
		count        int32
		targeted     bool
	}{{"LL028", "Service alpha-apps/escape", 4, false}, {"LL009", "", 1, true}, {"LL021", "", 1, false}}
	if len(got) != len(want) {
		t.Fatalf("got %d denials, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if d := got[i]; d.Rule != w.rule || d.Object != w.object || d.Count != w.count || d.Targeted != w.targeted || d.tenant != "alpha" {
			t.Errorf("[%d] = %+v, want %+v", i, d, w)
		}
	}
	if got[0].Ago != "60s" {
		t.Errorf("a series is as old as its last observation: %q, want 60s", got[0].Ago)
	}
}
