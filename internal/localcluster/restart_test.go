package localcluster

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestComponentsRestart stops and starts etcd, the API server and the
// controller manager of an environment of its own: while etcd is away
// reads fail, and what was written before is there after each restart.
func TestComponentsRestart(t *testing.T) {
	e, err := Start(t.Context(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Stop(); err != nil {
			t.Error(err)
		}
	})
	client := clientFor(t, e.Config)
	ns := newNamespace(t, client)

	if err := e.StopComponent(Etcd); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	if _, err := client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err == nil {
		t.Error("namespace read with etcd stopped")
	}
	for _, name := range []string{Etcd, APIServer, ControllerManager} {
		if name != Etcd {
			if err := e.StopComponent(name); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.StartComponent(t.Context(), name); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := client.CoreV1().Namespaces().Get(t.Context(), ns, metav1.GetOptions{}); err != nil {
		t.Errorf("after the restarts: %v", err)
	}
	if err := e.StartComponent(t.Context(), APIServer); err == nil {
		t.Error("started the running API server again")
	}
}

// TestServiceSkipsBackendsDown sends every connection to the backend that
// listens, none to the one that does not.
func TestServiceSkipsBackendsDown(t *testing.T) {
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	down, err := FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			conn, err := up.Accept()
			if err != nil {
				return
			}
			_, _ = conn.Write([]byte("up"))
			conn.Close()
		}
	}()
	svc, err := NewService(loopback(down[0]), up.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	for range 4 {
		conn, err := net.Dial("tcp", svc.Addr())
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(conn)
		conn.Close()
		if err != nil || string(got) != "up" {
			t.Errorf("read %q, %v; want the live backend's \"up\"", got, err)
		}
	}
}
