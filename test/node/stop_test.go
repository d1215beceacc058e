package node

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/landlord-dev/landlord/internal/localcluster"
)

// TestStopLeavesNothing starts a second environment with a node beside the
// shared one, runs a pod on it (so shims, sandboxes, mounts and rules
// exist), stops it and looks for anything left: a process of its PID
// namespace or naming its directory, a mount, an interface, an iptables
// rule of either backend, a cgroup, the directory itself.
func TestStopLeavesNothing(t *testing.T) {
	links, rules := hostInterfaces(t), hostRules(t)
	second, err := localcluster.Start(ctx, localcluster.Options{Node: true})
	if err != nil {
		t.Fatal(err)
	}
	node, dir := second.Node, second.Dir
	c, err := kubernetes.NewForConfig(second.Config)
	if err != nil {
		t.Fatal(err)
	}
	pod := runPod(t, c, metav1.NamespaceDefault, "server")
	t.Logf("second node's pod at %s; PID namespace %s, cgroup %s, directory %s", pod.Status.PodIP, node.PIDNamespace, node.CgroupRoot, dir)
	if !slices.ContainsFunc(processes(t), func(p process) bool {
		return p.pidNamespace == node.PIDNamespace && strings.Contains(p.cmdline, "containerd-shim")
	}) {
		t.Fatal("no shim in the node's PID namespace while it runs: the checks below would prove nothing")
	}

	if err := second.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, p := range processes(t) {
		if p.pidNamespace == node.PIDNamespace || strings.Contains(p.cmdline, dir) {
			t.Errorf("process %s left: %s", p.pid, p.cmdline)
		}
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(mounts), "\n") {
		if strings.Contains(line, dir) {
			t.Errorf("mount left: %s", line)
		}
	}
	if after := hostInterfaces(t); !slices.Equal(links, after) {
		t.Errorf("interfaces %v, before %v", after, links)
	}
	if after := hostRules(t); after != rules {
		t.Errorf("iptables rules changed:\n%s\nbefore:\n%s", after, rules)
	}
	cgroups, err := filepath.Glob("/sys/fs/cgroup/*/" + node.CgroupRoot)
	if err != nil {
		t.Fatal(err)
	}
	if len(cgroups) > 0 {
		t.Errorf("cgroups left: %v", cgroups)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("directory %s left (%v)", dir, err)
	}
}

func hostInterfaces(t *testing.T) []string {
	t.Helper()
	ifaces, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, i := range ifaces {
		names = append(names, i.Name)
	}
	slices.Sort(names)
	return names
}

// hostRules is the host's ruleset in both iptables backends, without the
// save's timestamped comments.
func hostRules(t *testing.T) string {
	t.Helper()
	var all bytes.Buffer
	for _, save := range []string{"iptables-save", "iptables-legacy-save"} {
		out, err := exec.Command(save).Output()
		if err != nil {
			t.Fatalf("%s: %v", save, err)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if !strings.HasPrefix(line, "#") {
				all.WriteString(line + "\n")
			}
		}
	}
	return all.String()
}

type process struct {
	pid          string
	pidNamespace string
	cmdline      string
}

func processes(t *testing.T) []process {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var procs []process
	for _, e := range entries {
		if strings.Trim(e.Name(), "0123456789") != "" {
			continue
		}
		// A process may exit while it is read: skip it then.
		ns, err := os.Readlink(filepath.Join("/proc", e.Name(), "ns", "pid"))
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		procs = append(procs, process{pid: e.Name(), pidNamespace: ns, cmdline: strings.ReplaceAll(string(cmdline), "\x00", " ")})
	}
	return procs
}
