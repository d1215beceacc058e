package faults_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// lease is short, so that each kill costs seconds; its renew deadline
// still gives a loaded machine 3s to answer.
var lease = localcluster.Lease{Duration: 4 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: 500 * time.Millisecond}

// etcdDown is how long etcd stays stopped.
const etcdDown = 10 * time.Second

// outage is a span the control plane was away.
type outage struct {
	what     string
	from, to time.Time
}

// TestFaults churns Tenants while two replicas run: the leader is SIGKILLed
// at random points -kills times and restarted, the API server is restarted
// a third of the way in and etcd stopped for 10s two thirds in. Then every
// Tenant converges to its render with nothing orphaned, lost, drifted or
// held twice, the planted namespaces Landlord did not create stand, and no
// replica exited unasked but once per outage, when it could not renew its
// lease: none crash-looped while the control plane was away.
func TestFaults(t *testing.T) {
	s := *seed
	if s == 0 {
		s = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (-args -seed=%d repeats the random choices)", s, s)
	rng := rand.New(rand.NewPCG(s, 0))
	planted := plant(t)

	r, err := env.StartReplicas(ctx, 2, lease, localcluster.ControllerOptions{Bin: bin, Name: "faults"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Stop(); err != nil {
			t.Error(err)
		}
	})
	sup := supervise(r)
	churn := startChurn(rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64())), planted)

	var failovers []time.Duration
	var outages []outage
	for i := range *kills {
		time.Sleep(time.Duration(100+rng.IntN(900)) * time.Millisecond)
		switch i {
		case *kills / 3:
			outages = append(outages, restartAPIServer(t))
		case 2 * *kills / 3:
			outages = append(outages, stopEtcd(t))
		}
		// A failover needs a ready standby: one restarted after the
		// last fault may still wait for its informers.
		allReady(t, r, time.Minute)
		leader := leaderWithin(t, r, 30*time.Second)
		killed := time.Now()
		if err := sup.kill(leader); err != nil {
			t.Fatal(err)
		}
		leaderWithin(t, r, 30*time.Second)
		failovers = append(failovers, time.Since(killed))
	}
	churn.stop()
	settled := time.Now()
	got := converge(t, planted, 3*time.Minute)
	exits := sup.stop()

	perOutage, outside := exitsDuring(exits, outages)
	t.Logf("faults: kills survived %d/%d, failover max %.1fs mean %.1fs (lease %s), outages %s, converged in %.1fs: %d Tenants, %d objects, orphans %d, lost %d, drifted %d, duplicates %d, planted namespaces taken %d/%d, unasked exits %d (per outage %v, outside outages %d), churn writes %d (%d refused by the faults)",
		len(failovers), *kills, maxOf(failovers).Seconds(), meanOf(failovers).Seconds(), lease.Duration, describe(outages), time.Since(settled).Seconds(),
		got.tenants, got.objects, len(got.orphans), len(got.lost), len(got.drifted), len(got.duplicates), len(got.plantedTaken), len(planted),
		len(exits), perOutage, outside, churn.writes, churn.failed)
	for what, list := range map[string][]string{"unconverged": got.unconverged, "orphan": got.orphans, "lost": got.lost, "drifted": got.drifted, "duplicate": got.duplicates, "planted namespace taken": got.plantedTaken} {
		for _, item := range list {
			t.Errorf("%s: %s", what, item)
		}
	}
	if bound := lease.Duration + 2*time.Second; maxOf(failovers) > bound {
		t.Errorf("a failover took %s, want under %s", maxOf(failovers), bound)
	}
	for i, n := range perOutage {
		if n > len(r.Controllers) {
			t.Errorf("%d unasked exits during the %s, want at most one per replica: a crash loop", n, outages[i].what)
		}
	}
	if outside > 0 {
		t.Errorf("%d unasked exits with the control plane up", outside)
	}
}

// plant creates namespaces Landlord did not create, which the churn's
// Tenants list and one is labelled for, and which must outlive them all.
func plant(t *testing.T) []string {
	t.Helper()
	namespaces := []*corev1.Namespace{
		{ObjectMeta: metav1.ObjectMeta{Name: "planted-bare"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "planted-claimed", Labels: map[string]string{v1alpha1.TenantLabel: "f-0"}}},
	}
	var names []string
	for _, ns := range namespaces {
		if err := k8s.Create(ctx, ns); err != nil {
			t.Fatal(err)
		}
		names = append(names, ns.Name)
	}
	return names
}

// leaderWithin waits for a replica to lead.
func leaderWithin(t *testing.T, r *localcluster.Replicas, timeout time.Duration) *localcluster.Controller {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		leader, err := r.Leader(ctx)
		if err == nil {
			return leader
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %v", timeout, err)
		}
	}
}

// restartAPIServer crashes the API server and starts it again; a graceful
// stop outlasts the 10s grace testenv gives it.
// allReady waits until every replica is ready.
func allReady(t *testing.T, r *localcluster.Replicas, timeout time.Duration) {
	t.Helper()
	testenv.Eventually(t, timeout, func() error {
		for _, c := range r.Controllers {
			if err := c.Ready(ctx); err != nil {
				return fmt.Errorf("%s: %w", c.Name, err)
			}
		}
		return nil
	})
}

func restartAPIServer(t *testing.T) outage {
	t.Helper()
	o := outage{what: "API server restart", from: time.Now()}
	if err := env.KillComponent(localcluster.APIServer); err != nil {
		t.Fatal(err)
	}
	if err := env.StartComponent(ctx, localcluster.APIServer); err != nil {
		t.Fatal(err)
	}
	o.to = time.Now()
	return o
}

// stopEtcd kills etcd and starts it again etcdDown later; its graceful
// stop alone takes 5s, serving meanwhile.
func stopEtcd(t *testing.T) outage {
	t.Helper()
	o := outage{what: "etcd stop", from: time.Now()}
	if err := env.KillComponent(localcluster.Etcd); err != nil {
		t.Fatal(err)
	}
	time.Sleep(etcdDown)
	if err := env.StartComponent(ctx, localcluster.Etcd); err != nil {
		t.Fatal(err)
	}
	o.to = time.Now()
	return o
}

// exitsDuring counts the exits in each outage, or soon after it, while a
// replica that lost its lease restarts, and those outside every outage.
func exitsDuring(exits []exit, outages []outage) (per []int, outside int) {
	per = make([]int, len(outages))
	grace := lease.Duration + restartDelay + 5*time.Second
	for _, e := range exits {
		i := slices.IndexFunc(outages, func(o outage) bool { return !e.at.Before(o.from) && !e.at.After(o.to.Add(grace)) })
		if i < 0 {
			outside++
			continue
		}
		per[i]++
	}
	return per, outside
}

func describe(outages []outage) string {
	parts := make([]string, len(outages))
	for i, o := range outages {
		parts[i] = fmt.Sprintf("%s %.1fs", o.what, o.to.Sub(o.from).Seconds())
	}
	return strings.Join(parts, ", ")
}

func maxOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return slices.Max(ds)
}

func meanOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}
