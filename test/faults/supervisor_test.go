package faults_test

import (
	"sync"
	"time"

	"github.com/landlord-dev/landlord/internal/localcluster"
)

// restartDelay is how long a replica stays down before its restart, as the
// kubelet's first back-off would.
const restartDelay = 500 * time.Millisecond

// supervisor restarts every replica that exits, as the kubelet restarts a
// container, and records the exits it did not cause.
type supervisor struct {
	done chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	// killing are the replicas being killed on purpose.
	killing map[*localcluster.Controller]bool
	exits   []exit
}

// exit is a replica's exit nobody asked for.
type exit struct {
	replica string
	at      time.Time
}

func supervise(r *localcluster.Replicas) *supervisor {
	s := &supervisor{done: make(chan struct{}), killing: map[*localcluster.Controller]bool{}}
	for _, c := range r.Controllers {
		s.wg.Add(1)
		go s.watch(c)
	}
	return s
}

func (s *supervisor) watch(c *localcluster.Controller) {
	defer s.wg.Done()
	for {
		select {
		case <-s.done:
			return
		case <-c.Done():
		}
		s.mu.Lock()
		if !s.killing[c] {
			s.exits = append(s.exits, exit{replica: c.Name, at: time.Now()})
		}
		delete(s.killing, c)
		s.mu.Unlock()
		select {
		case <-s.done:
			return
		case <-time.After(restartDelay):
		}
		if err := c.Restart(); err != nil {
			s.mu.Lock()
			s.exits = append(s.exits, exit{replica: c.Name, at: time.Now()})
			s.mu.Unlock()
			return
		}
	}
}

// kill SIGKILLs the replica, which the supervisor then restarts.
func (s *supervisor) kill(c *localcluster.Controller) error {
	s.mu.Lock()
	s.killing[c] = true
	s.mu.Unlock()
	return c.Kill()
}

// stop ends supervision; the replicas are left as they are.
func (s *supervisor) stop() []exit {
	close(s.done)
	s.wg.Wait()
	return s.exits
}
