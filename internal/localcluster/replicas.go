package localcluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/landlord-dev/landlord/internal/tenancy"
)

// LeaseSeries is the metric that is 1 on the replica leading.
const LeaseSeries = `leader_election_master_status{name="landlord-controller.landlord.dev"}`

// Lease times the replicas' leader election: short, so that a test sees a
// killed leader replaced within seconds.
type Lease struct {
	Duration, RenewDeadline, RetryPeriod time.Duration
}

// Replicas are several landlord-controller processes electing a leader,
// their webhooks behind one Service, as a Deployment runs them.
type Replicas struct {
	Service     *Service
	Controllers []*Controller
	Lease       Lease
}

// StartReplicas starts n replicas of opts with leader election timed by
// lease, named opts.Name-0 to -n-1, and returns once all are ready.
func (e *Env) StartReplicas(ctx context.Context, n int, lease Lease, opts ControllerOptions) (*Replicas, error) {
	ports, err := FreePorts(n)
	if err != nil {
		return nil, err
	}
	backends := make([]string, n)
	for i, p := range ports {
		backends[i] = loopback(p)
	}
	svc, err := NewService(backends...)
	if err != nil {
		return nil, err
	}
	r := &Replicas{Service: svc, Controllers: make([]*Controller, n), Lease: lease}
	if opts.Name == "" {
		opts.Name = "landlord-controller"
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		replica := opts
		replica.Name = opts.Name + "-" + strconv.Itoa(i)
		replica.WebhookAddr = backends[i]
		replica.WebhookURLBase = "https://" + svc.Addr()
		replica.Args = append([]string{
			"--leader-elect",
			"--leader-election-namespace=" + tenancy.ControllerNamespace,
			"--leader-elect-lease-duration=" + lease.Duration.String(),
			"--leader-elect-renew-deadline=" + lease.RenewDeadline.String(),
			"--leader-elect-retry-period=" + lease.RetryPeriod.String(),
		}, opts.Args...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Controllers[i], errs[i] = e.StartController(ctx, replica)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, errors.Join(err, r.Stop())
	}
	return r, nil
}

// Stop stops every replica, then the Service.
func (r *Replicas) Stop() error {
	var errs []error
	for _, c := range r.Controllers {
		if c != nil {
			errs = append(errs, c.Stop())
		}
	}
	return errors.Join(append(errs, r.Service.Close())...)
}

// Leader is the running replica whose metrics say it leads, waiting up to
// two lease durations for one to.
func (r *Replicas) Leader(ctx context.Context) (*Controller, error) {
	deadline := time.Now().Add(2 * r.Lease.Duration)
	for {
		for _, c := range r.Controllers {
			select {
			case <-c.Done():
				continue
			default:
			}
			if series, err := c.ReadMetrics(ctx); err == nil && series[LeaseSeries] == 1 {
				return c, nil
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no replica leads after %s", 2*r.Lease.Duration)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}
