package webhook_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/policy"
	"github.com/landlord-dev/landlord/internal/tenancy"
	"github.com/landlord-dev/landlord/internal/testenv"
	"github.com/landlord-dev/landlord/internal/webhook"
)

var (
	ctx = context.Background()
	// k8s is the admin client; env gives impersonated ones.
	k8s client.Client
	env *localcluster.Env
	// hooks are the options the manager runs the webhooks with.
	hooks webhook.Options
	// gate stands between the apiserver and the webhook server.
	gate *proxy
)

// TestMain runs one control plane and one Landlord manager, as its service
// account with the generated RBAC, serving the webhooks on loopback behind
// a proxy the tests can close.
func TestMain(m *testing.M) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapLevel())))
	os.Exit(testenv.RunMain(m, func(e *localcluster.Env) (err error) {
		env = e
		if k8s, err = client.New(env.Config, client.Options{Scheme: manager.Scheme()}); err != nil {
			return err
		}
		if err := install.Prerequisites(ctx, k8s); err != nil {
			return err
		}
		if err := install.ControllerRBAC(ctx, k8s, tenancy.ControllerNamespace); err != nil {
			return err
		}
		certDir, err := os.MkdirTemp("", "landlord-webhook-test")
		if err != nil {
			return err
		}
		ports, err := localcluster.FreePorts(1)
		if err != nil {
			return err
		}
		port := ports[0]
		if gate, err = newProxy(fmt.Sprintf("127.0.0.1:%d", port)); err != nil {
			return err
		}
		hooks = webhook.Options{
			Namespace:         "landlord-system",
			Host:              "127.0.0.1",
			Port:              port,
			URLBase:           "https://" + gate.addr,
			CertDir:           certDir,
			CertCheckInterval: 500 * time.Millisecond,
			Platform:          policy.Platform{Groups: []string{"platform-admins"}},
		}
		controllerConfig := env.ConfigFor("system:serviceaccount:landlord-system:landlord-controller",
			"system:serviceaccounts", "system:serviceaccounts:landlord-system", "system:authenticated")
		mgr, err := manager.New(ctx, controllerConfig, manager.Options{MetricsAddr: "0", HealthAddr: "0", Concurrency: 4, Webhook: &hooks})
		if err != nil {
			return err
		}
		go func() {
			if err := mgr.Start(ctx); err != nil {
				panic(err)
			}
		}()
		return nil
	}))
}

// impersonate returns a client acting as user, through real authentication
// and authorization.
func impersonate(user string, groups ...string) client.Client {
	c, err := client.New(env.ConfigFor(user, groups...), client.Options{Scheme: manager.Scheme()})
	if err != nil {
		panic(err)
	}
	return c
}

// proxy forwards TCP to the webhook server while open; closed, it drops
// every connection, as a webhook that is down would.
type proxy struct {
	addr   string
	closed atomic.Bool
	mu     sync.Mutex
	conns  map[net.Conn]bool
}

// shut drops the open connections and refuses new ones until reopened.
func (p *proxy) shut() {
	p.closed.Store(true)
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
}

func (p *proxy) reopen() { p.closed.Store(false) }

func (p *proxy) track(c net.Conn, open bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if open {
		p.conns[c] = true
	} else {
		delete(p.conns, c)
	}
}

func newProxy(target string) (*proxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &proxy{addr: l.Addr().String(), conns: map[net.Conn]bool{}}
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go p.forward(conn, target)
		}
	}()
	return p, nil
}

func (p *proxy) forward(conn net.Conn, target string) {
	defer conn.Close()
	if p.closed.Load() {
		return
	}
	upstream, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer upstream.Close()
	p.track(conn, true)
	defer p.track(conn, false)
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(upstream, conn); done <- struct{}{} }()
	go func() { _, _ = io.Copy(conn, upstream); done <- struct{}{} }()
	<-done
}

// zapLevel keeps controller logs quiet unless LANDLORD_TEST_LOG is set.
func zapLevel() zapcore.Level {
	if os.Getenv("LANDLORD_TEST_LOG") != "" {
		return zapcore.DebugLevel
	}
	return zapcore.ErrorLevel
}
