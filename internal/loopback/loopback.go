// Package loopback serves HTTP on a free port of 127.0.0.1, for the local
// servers the tests and the development environment run.
package loopback

import (
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"sync"
)

// Server is one HTTP server on loopback; the zero value is ready to Start.
type Server struct {
	mu   sync.Mutex
	url  string
	srv  *http.Server
	done chan error
}

// Start serves h on a free loopback port and returns its base URL.
func (s *Server) Start(h http.Handler, errorLog *log.Logger) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		return "", errors.New("already serving at " + s.url)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("listen: %w", err)
	}
	s.url = "http://" + l.Addr().String()
	s.srv = &http.Server{Handler: h, ErrorLog: errorLog}
	s.done = make(chan error, 1)
	go func() { s.done <- s.srv.Serve(l) }()
	return s.url, nil
}

// URL is the base URL Start returned, "" before.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// Close stops serving; it may be called more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil {
		return nil
	}
	err := s.srv.Close()
	if serveErr := <-s.done; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	s.srv = nil
	return err
}
