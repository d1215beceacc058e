package controller_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

// TestTenantWideQuota gives a tenant three Services over two namespaces:
// it gets them where it likes, and a fourth is refused in either
// namespace with a message naming the quota, while the status adds up.
func TestTenantWideQuota(t *testing.T) {
	t.Parallel()
	tenant := newTenant("pool", "pool-a", "pool-b")
	tenant.Spec.Quota = &v1alpha1.Quota{Scope: v1alpha1.QuotaScopeTenant, Hard: corev1.ResourceList{corev1.ResourceServices: resource.MustParse("3")}}
	create(t, tenant)
	t.Cleanup(func() { deleteTenant(t, tenant.Name) })
	waitReady(t, tenant.Name)

	service := func(ns, name string) error {
		return k8s.Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
		})
	}
	// Each namespace's share is resized as the other uses its own.
	for _, s := range []struct{ ns, name string }{{"pool-a", "one"}, {"pool-a", "two"}, {"pool-b", "three"}} {
		eventually(t, "Service "+s.ns+"/"+s.name, func() error { return service(s.ns, s.name) })
	}
	eventually(t, "the tenant's use in its status", func() error {
		got := &v1alpha1.Tenant{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: tenant.Name}, got); err != nil {
			return err
		}
		q := got.Status.Quota
		if q == nil || q.Used.Name(corev1.ResourceServices, resource.DecimalSI).Value() != 3 || q.Hard.Name(corev1.ResourceServices, resource.DecimalSI).Value() != 3 {
			return fmt.Errorf("status quota %+v, want services 3 of 3", q)
		}
		return nil
	})
	var total int64
	for _, ns := range []string{"pool-a", "pool-b"} {
		q := &corev1.ResourceQuota{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: render.QuotaName}, q); err != nil {
			t.Fatal(err)
		}
		total += q.Spec.Hard.Name(corev1.ResourceServices, resource.DecimalSI).Value()
	}
	if total != 3 {
		t.Errorf("the namespaces' limits add up to %d Services, want the tenant's 3", total)
	}
	for _, ns := range []string{"pool-a", "pool-b"} {
		err := service(ns, "four")
		if err == nil || !strings.Contains(err.Error(), "exceeded quota: "+render.QuotaName) {
			t.Errorf("a fourth Service in %s: err = %v, want the tenant-wide quota to refuse it", ns, err)
		}
	}
}

// TestTenantWideQuotaHoldsUnderConcurrentCreates: creates in three
// namespaces at once, while deletes make the controller resize their
// shares, never leave the tenant using more than its 20 Services (the
// third review saw 21 once, a namespace counting 10 while holding 11).
func TestTenantWideQuotaHoldsUnderConcurrentCreates(t *testing.T) {
	t.Parallel()
	namespaces := []string{"rush-a", "rush-b", "rush-c"}
	tenant := newTenant("rush", namespaces...)
	tenant.Spec.Quota = &v1alpha1.Quota{Scope: v1alpha1.QuotaScopeTenant, Hard: corev1.ResourceList{corev1.ResourceServices: resource.MustParse("20")}}
	create(t, tenant)
	t.Cleanup(func() { deleteTenant(t, tenant.Name) })
	waitReady(t, tenant.Name)
	// A quota binds once Kubernetes' quota controller has filled its
	// status, a moment after Landlord creates it.
	eventually(t, "the quotas in force", func() error {
		for _, ns := range namespaces {
			q := &corev1.ResourceQuota{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: render.QuotaName}, q); err != nil {
				return err
			}
			if !equality.Semantic.DeepEqual(q.Spec.Hard, q.Status.Hard) {
				return fmt.Errorf("%s: status.hard %v, spec.hard %v", ns, q.Status.Hard, q.Spec.Hard)
			}
		}
		return nil
	})

	held := func() (map[string]int, int) {
		by, sum := map[string]int{}, 0
		for _, ns := range namespaces {
			list := &corev1.ServiceList{}
			if err := k8s.List(ctx, list, client.InNamespace(ns)); err != nil {
				t.Fatal(err)
			}
			by[ns] = len(list.Items)
			sum += len(list.Items)
		}
		return by, sum
	}
	for round := range 8 {
		var wg sync.WaitGroup
		for _, ns := range namespaces {
			for w := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 6 {
						_ = k8s.Create(ctx, &corev1.Service{
							ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("r%d-w%d-%d", round, w, i)},
							Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
						})
					}
				}()
			}
		}
		wg.Wait()
		by, sum := held()
		if sum > 20 {
			t.Fatalf("round %d: the tenant holds %d Services (%v), over its 20", round, sum, by)
		}
		// Free one namespace's Services, so the next round resizes while
		// the others create.
		victim := namespaces[round%len(namespaces)]
		if err := k8s.DeleteAllOf(ctx, &corev1.Service{}, client.InNamespace(victim)); err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d: %v, freed %s", round, by, victim)
	}
}
