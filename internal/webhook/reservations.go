package webhook

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// reservationTTL bounds how long an admitted namespace creation counts
// before the API server lists it: past it, the create failed after
// admission.
const reservationTTL = 30 * time.Second

// selfServiceCreates makes a tenant's self-service limit hold under
// parallel creates: creations for one tenant are judged one at a time,
// counted from a live list, plus the ones admitted that the list does not
// show yet. The controller adopts at most the limit whatever happens, so
// several replicas of the webhook can at worst let through namespaces the
// tenant gets no access to.
type selfServiceCreates struct {
	mu sync.Mutex
	// locks holds a lock per tenant while a creation for it is judged or
	// waits, and forgets it after: the label values requests send are
	// theirs to choose.
	locks map[string]*tenantLock
	// admitted maps tenant, then namespace, to when its creation was
	// admitted.
	admitted map[string]map[string]time.Time
}

func newSelfServiceCreates() *selfServiceCreates {
	return &selfServiceCreates{locks: map[string]*tenantLock{}, admitted: map[string]map[string]time.Time{}}
}

// tenantLock is one tenant's lock and how many creations hold or wait on it.
type tenantLock struct {
	sync.Mutex
	users int
}

// judge runs evaluate for a creation of a namespace labelled for tenant
// with that tenant's count exact, and records the creation when admitted
// and real.
func (s *selfServiceCreates) judge(reads *Reads, tenant, namespace string, dryRun bool, evaluate func(tenancy.Resolver) bool) {
	defer s.lock(tenant)()
	if evaluate(tenancy.Resolver{Store: &liveCount{Reads: reads, creates: s}}) && reads.Err() == nil && !dryRun {
		s.mu.Lock()
		if s.admitted[tenant] == nil {
			s.admitted[tenant] = map[string]time.Time{}
		}
		s.admitted[tenant][namespace] = time.Now()
		s.mu.Unlock()
	}
}

// lock takes tenant's lock and returns its release, which forgets the lock
// when no other creation holds or waits on it.
func (s *selfServiceCreates) lock(tenant string) (release func()) {
	s.mu.Lock()
	l := s.locks[tenant]
	if l == nil {
		l = &tenantLock{}
		s.locks[tenant] = l
	}
	l.users++
	s.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		s.mu.Lock()
		defer s.mu.Unlock()
		if l.users--; l.users == 0 {
			delete(s.locks, tenant)
		}
	}
}

// pending lists the admitted creations of tenant the live list lacks,
// forgetting those it has and those too old to be coming.
func (s *selfServiceCreates) pending(tenant string, listed []*corev1.Namespace) []*corev1.Namespace {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	for _, ns := range listed {
		seen[ns.Name] = true
	}
	var out []*corev1.Namespace
	for name, at := range s.admitted[tenant] {
		if seen[name] || time.Since(at) > reservationTTL {
			delete(s.admitted[tenant], name)
			continue
		}
		out = append(out, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1alpha1.TenantLabel: tenant}}})
	}
	if len(s.admitted[tenant]) == 0 {
		delete(s.admitted, tenant)
	}
	return out
}

// liveCount is a request's reads with the tenant's namespaces listed live
// and its admitted creations counted.
type liveCount struct {
	*Reads
	creates *selfServiceCreates
}

// Labelled lists the tenant's namespaces from the API server, plus those
// admitted but not listed yet; a failed list fails the request's reads.
func (l *liveCount) Labelled(tenant string) []*corev1.Namespace {
	list := &corev1.NamespaceList{}
	if err := l.index.live.List(l.ctx, list, client.MatchingLabels{v1alpha1.TenantLabel: tenant}); err != nil {
		l.fail("the namespaces of tenant "+tenant, err)
		return nil
	}
	out := make([]*corev1.Namespace, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return append(out, l.creates.pending(tenant, out)...)
}
