package incluster

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/tenancy"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// probeEvery is how often the prober asks for admission.
const probeEvery = 200 * time.Millisecond

// A kill of the leading replica: its pod deleted with grace 0, which the
// kubelet turns into SIGTERM and a shutdown that releases the lease, or
// its process killed with SIGKILL, a crash that releases nothing.
type kill struct {
	name  string
	crash bool
}

var (
	deleted = kill{name: "pod deleted with grace 0"}
	crashed = kill{name: "process SIGKILLed", crash: true}
)

// failover kills the leader while owner's writes in tn's namespace are
// judged every 200ms: each token Secret of the reconciler must be refused
// by the guard's webhook (LL012) and each Opaque Secret admitted, so with failurePolicy Fail
// a call no replica answered is a wrong answer: none may be lost when the
// pod is deleted, only those within crashWindow of a crash. after is
// created once the leader's process has exited, so only a new leader can
// reconcile it: from the kill to its Ready is the failover figure. Probing
// lasts until two replicas are Ready again, a new pod or the crashed one
// restarted.
func failover(t *testing.T, k kill, owner client.Client, tn, after *v1alpha1.Tenant) {
	t.Helper()
	leader, holder := leaderPod(t, "")
	var pod corev1.Pod
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: tenancy.ControllerNamespace, Name: leader}, &pod); err != nil {
		t.Fatal(err)
	}
	pid, err := controllerPID(pod.UID)
	if err != nil {
		t.Fatal(err)
	}
	p := startProbing(owner, tn)
	time.Sleep(time.Second) // some probes before the kill

	killed := time.Now()
	if k.crash {
		err = syscall.Kill(pid, syscall.SIGKILL)
	} else {
		err = k8s.Delete(ctx, &pod, client.GracePeriodSeconds(0))
	}
	if err != nil {
		t.Fatal(err)
	}
	// The kubelet stops a pod deleted with grace 0 within its minimum
	// grace of 2s; until then the old leader still reconciles.
	testenv.Eventually(t, 30*time.Second, func() error {
		if running(pid) {
			return fmt.Errorf("pid %d of pod %s still runs", pid, leader)
		}
		return nil
	})
	exited := time.Since(killed)
	if err := k8s.Create(ctx, after); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteTenant(t, after.Name) })
	testenv.Eventually(t, time.Minute, func() error { return ready(after.Name) })
	reconciled := time.Since(killed)
	next, _ := leaderPod(t, holder)
	if next == leader {
		next += ", its container restarted"
	}

	var pods []corev1.Pod
	if k.crash {
		restarted(t, &pod)
		pods = replicasReady(t, "")
	} else {
		pods = replicasReady(t, leader)
	}
	back := time.Since(killed)
	var names []string
	for _, p := range pods {
		names = append(names, p.Name)
	}
	time.Sleep(time.Second) // some probes once both replicas serve again
	during, lost := 0, 0
	for _, a := range p.stop() {
		since := a.at.Sub(killed)
		if since >= 0 && since <= back {
			during++
		}
		switch {
		case a.err == nil:
		case k.crash && since.Abs() < crashWindow && strings.Contains(a.err.Error(), "failed calling webhook"):
			lost++
			t.Logf("lost in the crash, sent %s after the kill: %v", since.Round(time.Millisecond), a.err)
		default:
			t.Errorf("sent %s after the kill: %v", since.Round(time.Millisecond), a.err)
		}
	}
	if during == 0 {
		t.Error("no write was judged between the kill and both replicas Ready")
	}
	t.Logf("failover, leader's %s: %s's process gone %.1fs after the kill; tenant %s, created then, Ready %.1fs after the kill, reconciled by the new leader %s (lease %s)",
		k.name, leader, exited.Seconds(), after.Name, reconciled.Seconds(), next, leaseDuration(t))
	t.Logf("replicas %s Ready %.1fs after the kill; admission asked every %s: %d writes from the kill to both replicas Ready, %d unanswered within %s of the crash",
		strings.Join(names, ", "), back.Seconds(), probeEvery, during, lost, crashWindow)
}

// crashWindow bounds the calls a crash may lose: those in flight on the
// API server's connection to the killed replica, or sent on it before the
// API server saw it close (EOF), which it does not retry. A pod deleted
// gracefully loses none.
const crashWindow = time.Second

// restarted waits until the kubelet has restarted pod's container and it
// is Ready again.
func restarted(t *testing.T, pod *corev1.Pod) {
	t.Helper()
	before := pod.Status.ContainerStatuses[0].RestartCount
	testenv.Eventually(t, 2*time.Minute, func() error {
		var now corev1.Pod
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(pod), &now); err != nil {
			return err
		}
		if now.Status.ContainerStatuses[0].RestartCount == before || !podReady(&now) {
			return fmt.Errorf("pod %s: %s", pod.Name, podState(&now))
		}
		return nil
	})
}

// controllerPID finds the controller's process of the pod uid among the
// host's: the node's processes are the host's too, each container in the
// pod's cgroup, which the kubelet names pod<uid>.
func controllerPID(uid types.UID) (int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !running(pid) {
			continue
		}
		cgroup, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
		if err == nil && bytes.Contains(cgroup, []byte("pod"+string(uid))) {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("no process of %s runs in the cgroup of pod %s", binary, uid)
}

// binary is the controller's executable in its image.
const binary = "/landlord-controller"

// running reports whether pid runs the controller's binary.
func running(pid int) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	arg0, _, _ := bytes.Cut(cmdline, []byte{0})
	return string(arg0) == binary
}

// leaderPod is the pod holding the leader lease and the holder's identity,
// once it is not previous: controller-runtime's identity is the holder's
// host name, the pod's name, and a suffix of each process.
func leaderPod(t *testing.T, previous string) (string, string) {
	t.Helper()
	var name, holder string
	testenv.Eventually(t, time.Minute, func() error {
		lease, err := readLease()
		if err != nil {
			return err
		}
		holder = ptr.Deref(lease.Spec.HolderIdentity, "")
		if holder == previous {
			return fmt.Errorf("the lease still names %q", previous)
		}
		name, _, _ = strings.Cut(holder, "_")
		var pod corev1.Pod
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: tenancy.ControllerNamespace, Name: name}, &pod); err != nil {
			return fmt.Errorf("lease holder %q: %w", holder, err)
		}
		return nil
	})
	return name, holder
}

func readLease() (*coordinationv1.Lease, error) {
	lease := &coordinationv1.Lease{}
	err := k8s.Get(ctx, client.ObjectKey{Namespace: tenancy.ControllerNamespace, Name: leaseName}, lease)
	return lease, err
}

func leaseDuration(t *testing.T) time.Duration {
	lease, err := readLease()
	if err != nil {
		t.Fatal(err)
	}
	return time.Duration(ptr.Deref(lease.Spec.LeaseDurationSeconds, 0)) * time.Second
}

// prober writes as a tenant's reconciler every probeEvery, once what the
// guard refuses and once what it admits, recording each answer that is
// not the guard's.
type prober struct {
	owner   client.Client
	tn      *v1alpha1.Tenant
	done    chan struct{}
	wg      sync.WaitGroup
	answers []answer
}

// answer is one write's: nil when it was the guard's.
type answer struct {
	at  time.Time
	err error
}

func startProbing(owner client.Client, tn *v1alpha1.Tenant) *prober {
	p := &prober{owner: owner, tn: tn, done: make(chan struct{})}
	p.wg.Add(1)
	go p.run()
	return p
}

func (p *prober) run() {
	defer p.wg.Done()
	tick := time.NewTicker(probeEvery)
	defer tick.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-tick.C:
		}
		for _, write := range []func(client.Client, *v1alpha1.Tenant) error{stolenToken, plainSecret} {
			at := time.Now()
			p.answers = append(p.answers, answer{at: at, err: write(p.owner, p.tn)})
		}
	}
}

// stop ends probing and returns every answer.
func (p *prober) stop() []answer {
	close(p.done)
	p.wg.Wait()
	return p.answers
}
