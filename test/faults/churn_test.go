package faults_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// maxTenants bounds the churn, so that convergence is quick to check.
const maxTenants = 10

// churn creates, edits and deletes Tenants as the platform admin, one
// write every 50 to 250ms, until stopped; writes the faults refuse are
// counted and not retried.
type churn struct {
	rng     *rand.Rand
	planted []string
	done    chan struct{}
	wg      sync.WaitGroup
	// Only the churn's goroutine touches these until it stops.
	next           int
	live           []string
	writes, failed int
}

func startChurn(rng *rand.Rand, planted []string) *churn {
	w := &churn{rng: rng, planted: planted, done: make(chan struct{})}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for {
			select {
			case <-w.done:
				return
			case <-time.After(time.Duration(50+w.rng.IntN(200)) * time.Millisecond):
			}
			w.writes++
			if err := w.step(); err != nil {
				w.failed++
			}
		}
	}()
	return w
}

// stop ends the churn and waits for its last write.
func (w *churn) stop() {
	close(w.done)
	w.wg.Wait()
}

func (w *churn) step() error {
	switch roll := w.rng.Float64(); {
	case len(w.live) == 0 || (roll < 0.4 && len(w.live) < maxTenants):
		return w.create()
	case roll < 0.85:
		return w.edit(w.live[w.rng.IntN(len(w.live))])
	default:
		i := w.rng.IntN(len(w.live))
		name := w.live[i]
		err := k8s.Delete(ctx, &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: name}})
		if client.IgnoreNotFound(err) == nil {
			w.live = slices.Delete(w.live, i, i+1)
		}
		return err
	}
}

// create makes Tenant f-N with one namespace of its own and an owner.
func (w *churn) create() error {
	name := fmt.Sprintf("f-%d", w.next)
	w.next++
	t := &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.TenantSpec{
			Namespaces: []v1alpha1.TenantNamespace{{Name: name + "-a"}},
			Owners:     []v1alpha1.Owner{{Kind: "User", Name: name + "-lead"}},
		},
	}
	err := k8s.Create(ctx, t)
	if err == nil {
		w.live = append(w.live, name)
	}
	return err
}

// edit toggles one of: a second namespace of its own, a planted namespace
// Landlord must never take, a group owner, network isolation.
func (w *churn) edit(name string) error {
	change := w.rng.IntN(4)
	planted := w.planted[w.rng.IntN(len(w.planted))]
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		t := &v1alpha1.Tenant{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: name}, t); err != nil {
			return err
		}
		switch change {
		case 0:
			t.Spec.Namespaces = toggle(t.Spec.Namespaces, name+"-b")
		case 1:
			t.Spec.Namespaces = toggle(t.Spec.Namespaces, planted)
		case 2:
			team := v1alpha1.Owner{Kind: "Group", Name: name + "-team"}
			if i := slices.Index(t.Spec.Owners, team); i >= 0 {
				t.Spec.Owners = slices.Delete(t.Spec.Owners, i, i+1)
			} else {
				t.Spec.Owners = append(t.Spec.Owners, team)
			}
		default:
			if t.Spec.Network.Isolation == v1alpha1.NetworkIsolationNone {
				t.Spec.Network.Isolation = v1alpha1.NetworkIsolationTenant
			} else {
				t.Spec.Network.Isolation = v1alpha1.NetworkIsolationNone
			}
		}
		return k8s.Update(ctx, t)
	})
}

// toggle adds namespace ns to the list, or removes it, keeping one.
func toggle(list []v1alpha1.TenantNamespace, ns string) []v1alpha1.TenantNamespace {
	i := slices.IndexFunc(list, func(n v1alpha1.TenantNamespace) bool { return n.Name == ns })
	switch {
	case i < 0:
		return append(list, v1alpha1.TenantNamespace{Name: ns})
	case len(list) > 1:
		return slices.Delete(list, i, i+1)
	}
	return list
}
