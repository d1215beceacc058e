package ha_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/testenv"
)

// TestLeaderFailover kills the leader of three replicas with SIGKILL: a
// Tenant created after the kill is Ready within the lease, reconciled by
// another replica, and a tenant owner's writes are judged throughout, one
// that must be denied denied and one that may be admitted admitted.
func TestLeaderFailover(t *testing.T) {
	r := startReplicas(t, 3)
	createReady(t, tenant("fo"))
	p := startProbing(t, impersonate(t, "fo-lead"), "fo-apps")
	leader, err := r.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}

	killed := time.Now()
	if err := leader.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Create(ctx, tenant("fo-after")); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, func() error { return ready("fo-after") })
	failover := time.Since(killed)
	t.Logf("failover: a Tenant created after the leader's SIGKILL was Ready %.1fs later (lease %s)", failover.Seconds(), lease.Duration)
	if bound := lease.Duration + 5*time.Second; failover > bound {
		t.Errorf("failover took %s, want under %s", failover, bound)
	}
	next, err := r.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if next == leader {
		t.Errorf("%s still leads after its kill", leader.Name)
	}

	time.Sleep(2 * time.Second)
	during := p.stop(killed, killed.Add(failover))
	if during == 0 {
		t.Error("no tenant write was judged between the kill and the new leader's reconcile")
	}
}

// prober writes as a tenant owner every 100ms, once what the policy admits
// and once what it denies, recording each answer that is not the policy's.
type prober struct {
	t      *testing.T
	c      client.Client
	ns     string
	done   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	at     []time.Time
	wrongs []string
}

func startProbing(t *testing.T, owner client.Client, ns string) *prober {
	p := &prober{t: t, c: owner, ns: ns, done: make(chan struct{})}
	p.wg.Add(1)
	go p.run()
	return p
}

func (p *prober) run() {
	defer p.wg.Done()
	for {
		select {
		case <-p.done:
			return
		case <-time.After(100 * time.Millisecond):
		}
		now := time.Now()
		// Secrets, which the webhook judges: ConfigMaps never leave the API
		// server. A token of the tenant's reconciler is LL012's.
		admitted := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: p.ns, GenerateName: "probe-"}}
		admitErr := p.c.Create(ctx, admitted)
		token := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: p.ns, GenerateName: "probe-",
			Annotations: map[string]string{corev1.ServiceAccountNameKey: strings.TrimSuffix(p.ns, "-apps")}},
			Type: corev1.SecretTypeServiceAccountToken}
		denyErr := p.c.Create(ctx, token)
		p.mu.Lock()
		p.at = append(p.at, now)
		if admitErr != nil {
			p.wrongs = append(p.wrongs, now.Format("15:04:05.000")+" a plain Secret: "+admitErr.Error())
		}
		if denyErr == nil || !strings.Contains(denyErr.Error(), "denied the request") {
			p.wrongs = append(p.wrongs, now.Format("15:04:05.000")+" a token of the reconciler: want denied, got "+errString(denyErr))
		}
		p.mu.Unlock()
	}
}

// stop ends probing, fails the test on each wrong answer and returns how
// many probes were sent between from and to.
func (p *prober) stop(from, to time.Time) int {
	close(p.done)
	p.wg.Wait()
	for _, w := range p.wrongs {
		p.t.Error(w)
	}
	n := 0
	for _, at := range p.at {
		if !at.Before(from) && !at.After(to) {
			n++
		}
	}
	p.t.Logf("%d probes, %d between the kill and the new leader's reconcile", len(p.at), n)
	return n
}

func errString(err error) string {
	if err == nil {
		return "admitted"
	}
	return err.Error()
}
