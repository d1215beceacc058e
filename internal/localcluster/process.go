package localcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// tailBytes bounds how much of a child's log an error quotes.
const tailBytes = 4096

// process is one child of the environment, in its own process group.
type process struct {
	name      string
	path      string
	args, env []string
	logPath   string
	// mu guards pid, done and err, which a restart replaces.
	mu   sync.Mutex
	pid  int
	done chan struct{} // closed once the child has been reaped
	err  error         // how the child exited, set before done closes
	// ready holds once the child serves; nil for children never restarted.
	ready func(context.Context) error
}

// startProcess runs path with args and the environment plus env, its output
// written to logPath. The child
// gets SIGKILL if the thread that started it dies, so the starting goroutine
// stays locked to its thread until the child is reaped: then even a killed
// test binary leaves no control plane behind.
func startProcess(name, path string, args, env []string, logPath string) (*process, error) {
	p := &process{name: name, path: path, args: args, env: env, logPath: logPath}
	return p, p.start(os.O_TRUNC)
}

// start runs the child, its log opened with flag added (O_TRUNC or
// O_APPEND).
func (p *process) start(flag int) error {
	logFile, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|flag, 0o600)
	if err != nil {
		return fmt.Errorf("open %s log: %w", p.name, err)
	}
	cmd := exec.Command(p.path, p.args...)
	cmd.Env = append(os.Environ(), p.env...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	done := make(chan struct{})
	p.mu.Lock()
	p.done = done
	p.mu.Unlock()
	started := make(chan error)
	go func() {
		// Never unlocked: the thread exits with this goroutine, after the child.
		runtime.LockOSThread()
		defer logFile.Close()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		p.mu.Lock()
		p.pid = cmd.Process.Pid
		p.mu.Unlock()
		started <- nil
		err := cmd.Wait()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(done)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	return nil
}

// stop sends SIGTERM to the child's process group, then SIGKILL after grace.
func (p *process) stop(grace time.Duration) error {
	if err := p.signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-p.exited():
	case <-time.After(grace):
		if err := p.signal(syscall.SIGKILL); err != nil {
			return err
		}
		<-p.exited()
	}
	// Anything the child left in its group goes too.
	return p.signal(syscall.SIGKILL)
}

func (p *process) signal(sig syscall.Signal) error {
	if err := syscall.Kill(-p.id(), sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal %s: %w", p.name, err)
	}
	return nil
}

// exited is closed once the last run of the child has been reaped.
func (p *process) exited() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

// id is the process id of the last run.
func (p *process) id() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pid
}

// exitError describes a child that stopped on its own, with the end of
// its log.
func (p *process) exitError() error {
	p.mu.Lock()
	err := p.err
	p.mu.Unlock()
	return fmt.Errorf("%s exited (%v); end of %s:\n%s", p.name, err, p.logPath, p.tail())
}

// tail returns the last lines of the child's log.
func (p *process) tail() string {
	f, err := os.Open(p.logPath)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() > tailBytes {
		if _, err := f.Seek(-tailBytes, io.SeekEnd); err != nil {
			return fmt.Sprintf("(unreadable log: %v)", err)
		}
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fmt.Sprintf("(unreadable log: %v)", err)
	}
	if len(data) == tailBytes {
		// Drop the partial first line.
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return strings.TrimRight(string(data), "\n")
}
