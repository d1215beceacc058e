package localcluster

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// inNetns runs fn on a thread inside the network namespace ns: a socket
// belongs to the namespace it was created in, whichever thread uses it later.
func inNetns(ns *os.File, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		self, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			errc <- err
			return
		}
		defer self.Close()
		if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("enter the node's network namespace: %w", err)
			return
		}
		ferr := fn()
		if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
			// The thread stays locked, so it ends with this goroutine.
			errc <- errors.Join(ferr, fmt.Errorf("leave the node's network namespace: %w", err))
			return
		}
		runtime.UnlockOSThread()
		errc <- ferr
	}()
	return <-errc
}

// dialIn connects to addr from inside ns.
func dialIn(ctx context.Context, ns *os.File, network, addr string) (net.Conn, error) {
	var conn net.Conn
	err := inNetns(ns, func() (err error) {
		var d net.Dialer
		conn, err = d.DialContext(ctx, network, addr)
		return err
	})
	return conn, err
}

// relay serves l until it is closed, joining each connection to one dial
// opens.
func relay(l net.Listener, dial func() (net.Conn, error), wg *sync.WaitGroup) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				upstream, err := dial()
				if err != nil {
					conn.Close()
					return
				}
				join(conn, upstream)
			}()
		}
	}()
}

// join copies both ways until either side closes.
func join(a, b net.Conn) {
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(a, b)
		a.Close()
		close(done)
	}()
	_, _ = io.Copy(b, a)
	b.Close()
	<-done
}

// serveConnect answers HTTP CONNECT requests on l, the API server's egress
// to the cluster (the kubelet, pods and Services), by dialing inside ns:
// the node's addresses exist nowhere else, so nothing it reaches is
// outside the namespace.
func serveConnect(l net.Listener, ns *os.File, wg *sync.WaitGroup) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go connect(conn, ns)
		}
	}()
}

func connect(conn net.Conn, ns *os.File) {
	br := bufio.NewReader(conn)
	req, err := http.ReadRequest(br)
	if err != nil {
		conn.Close()
		return
	}
	if req.Method != http.MethodConnect {
		fmt.Fprintf(conn, "HTTP/1.1 405 Method Not Allowed\r\n\r\nonly CONNECT\n")
		conn.Close()
		return
	}
	upstream, err := dialIn(req.Context(), ns, "tcp", req.Host)
	if err != nil {
		fmt.Fprintf(conn, "HTTP/1.1 502 Bad Gateway\r\n\r\n%v\n", err)
		conn.Close()
		return
	}
	if _, err := fmt.Fprintf(conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		conn.Close()
		upstream.Close()
		return
	}
	// The client waits for the answer before it sends, so br holds nothing yet.
	join(conn, upstream)
}
