package localcluster

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"time"
)

// Names of the control plane's children, for StopComponent and
// StartComponent.
const (
	Etcd              = "etcd"
	APIServer         = "kube-apiserver"
	ControllerManager = "kube-controller-manager"
)

// StopComponent stops the named child as Stop does, leaving it stopped
// until StartComponent: a fault the tests inject.
func (e *Env) StopComponent(name string) error {
	p, err := e.component(name)
	if err != nil {
		return err
	}
	return p.stop(stopGrace)
}

// KillComponent SIGKILLs the named child, as a crash would, leaving it
// stopped until StartComponent.
func (e *Env) KillComponent(name string) error {
	p, err := e.component(name)
	if err != nil {
		return err
	}
	return p.stop(0)
}

// StartComponent starts the named stopped child again with the flags it
// first had, its log appended to, and waits until it serves again.
func (e *Env) StartComponent(ctx context.Context, name string) error {
	p, err := e.component(name)
	if err != nil {
		return err
	}
	select {
	case <-p.exited():
	default:
		return fmt.Errorf("%s is running", name)
	}
	if err := p.start(os.O_APPEND); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, defaultStartTimeout)
	defer cancel()
	return e.waitFor(ctx, p, name+" ready", p.ready)
}

// component is the named child that can be restarted.
func (e *Env) component(name string) (*process, error) {
	for _, p := range e.procs {
		if p.name == name && p.ready != nil {
			return p, nil
		}
	}
	return nil, fmt.Errorf("no component %q: want %s, %s or %s", name, Etcd, APIServer, ControllerManager)
}

// insecureHTTPSOK holds once a GET of url answers 200, whatever certificate
// the child serves: it issues its own.
func insecureHTTPSOK(url string) func(context.Context) error {
	c := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %s", url, resp.Status)
		}
		return nil
	}
}
