// Package ha shows landlord-controller highly available: replicas as
// separate processes against the local control plane, their webhooks
// behind one Service, one of them leading.
package ha_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/testenv"
)

var (
	ctx = context.Background()
	env *localcluster.Env
	k8s client.Client
	// bin is landlord-controller built from this tree.
	bin string
)

// lease is short, so that a killed leader is replaced in seconds; its
// renew deadline still gives a loaded machine 3s to answer.
var lease = localcluster.Lease{Duration: 4 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: 500 * time.Millisecond}

func TestMain(m *testing.M) {
	os.Exit(testenv.RunMainWithController(m, localcluster.Options{Workloads: true}, func(e *localcluster.Env, path string) error {
		env, bin = e, path
		var err error
		k8s, err = client.New(e.Config, client.Options{Scheme: manager.Scheme()})
		return err
	}))
}

// startReplicas runs n replicas for the test's duration.
func startReplicas(t *testing.T, n int) *localcluster.Replicas {
	t.Helper()
	r, err := env.StartReplicas(ctx, n, lease, localcluster.ControllerOptions{Bin: bin, Name: t.Name()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Stop(); err != nil {
			t.Error(err)
		}
	})
	return r
}

// impersonate is a client acting as user, through real authentication
// and authorization.
func impersonate(t *testing.T, user string) client.Client {
	t.Helper()
	c, err := client.New(env.ConfigFor(user, "system:authenticated"), client.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// tenant is name, holding namespace name-apps, owned by user name-lead,
// serving Ingresses for name.example.com.
func tenant(name string) *v1alpha1.Tenant {
	return &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.TenantSpec{
			Namespaces: []v1alpha1.TenantNamespace{{Name: name + "-apps"}},
			Owners:     []v1alpha1.Owner{{Kind: "User", Name: name + "-lead"}},
			Ingress:    &v1alpha1.Ingress{Hostnames: []string{name + ".example.com"}},
		},
	}
}

// ready reports whether the named Tenant is Ready for its generation.
func ready(name string) error {
	t := &v1alpha1.Tenant{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: name}, t); err != nil {
		return err
	}
	c := apimeta.FindStatusCondition(t.Status.Conditions, v1alpha1.ReadyCondition)
	if c == nil || c.Status != metav1.ConditionTrue || t.Status.ObservedGeneration != t.Generation {
		return fmt.Errorf("tenant %s not Ready: %v", name, c)
	}
	return nil
}

// createReady creates the tenant and waits until it is Ready.
func createReady(t *testing.T, tn *v1alpha1.Tenant) {
	t.Helper()
	if err := k8s.Create(ctx, tn); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, func() error { return ready(tn.Name) })
}
