package localcluster

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Service stands in for a Kubernetes Service in front of several replicas
// out of cluster: a loopback TCP listener that hands each connection to the
// next backend accepting one, as kube-proxy does with the ready endpoints.
// It passes TLS through, so each replica presents its own certificate.
type Service struct {
	listener net.Listener
	backends []string
	next     atomic.Uint32
	wg       sync.WaitGroup
	mu       sync.Mutex
	open     map[net.Conn]struct{}
	closed   bool
}

// NewService listens on a free loopback port and serves backends, which
// need not listen yet.
func NewService(backends ...string) (*Service, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Service{listener: l, backends: backends, open: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go s.serve()
	return s, nil
}

// Addr is the host:port clients connect to.
func (s *Service) Addr() string { return s.listener.Addr().String() }

// Backends are the host:port it forwards to, in the order given.
func (s *Service) Backends() []string { return s.backends }

// Close stops accepting and closes the connections it forwards.
func (s *Service) Close() error {
	err := s.listener.Close()
	s.mu.Lock()
	s.closed = true
	for c := range s.open {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

func (s *Service) serve() {
	defer s.wg.Done()
	for {
		conn, err := s.listener.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.forward(conn)
		}()
	}
}

// forward pipes conn to the first backend, from the next in turn, that
// accepts a connection, until either side ends; it closes conn when no
// backend accepts.
func (s *Service) forward(conn net.Conn) {
	defer s.track(conn)()
	start := int(s.next.Add(1))
	for i := range len(s.backends) {
		backend, err := net.DialTimeout("tcp", s.backends[(start+i)%len(s.backends)], time.Second)
		if err != nil {
			continue
		}
		defer s.track(backend)()
		ended := make(chan struct{}, 2)
		pipe := func(dst, src net.Conn) {
			_, _ = io.Copy(dst, src)
			ended <- struct{}{}
		}
		go pipe(backend, conn)
		go pipe(conn, backend)
		<-ended
		return
	}
}

// track records c as open until the function it returns closes it; once
// the Service is closed it closes c at once.
func (s *Service) track(c net.Conn) func() {
	s.mu.Lock()
	if s.closed {
		c.Close()
	}
	s.open[c] = struct{}{}
	s.mu.Unlock()
	return func() {
		c.Close()
		s.mu.Lock()
		delete(s.open, c)
		s.mu.Unlock()
	}
}
