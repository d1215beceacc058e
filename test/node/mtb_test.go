package node

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"golang.org/x/sys/unix"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// The node's address on its pod bridge, and the kubelet's port there.
const (
	nodeAddress = "10.244.0.1"
	kubeletPort = 10250
)

// TestMTB runs the Multi-Tenancy Benchmarks' checks that need a kubelet
// against a Landlord tenant on the node, as its owner would: what Pod
// Security refuses is refused on create, also through a Deployment, and no
// container of it exists on the node; beside each, the pod that must still
// run does, and what it may not touch on the node is shown from the
// running process or with a packet it sends. MTB-PL1-BC-NI-1 (traffic
// between tenants) is TestNetworkIsolation.
func TestMTB(t *testing.T) {
	const tenant, ns, owner = "mtb", "mtb-apps", "alice"
	createTenant(t, &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: tenant},
		Spec: v1alpha1.TenantSpec{
			Namespaces: []v1alpha1.TenantNamespace{{Name: ns}},
			Owners:     []v1alpha1.Owner{{Kind: "User", Name: owner}},
		},
	})
	alice, err := kubernetes.NewForConfig(env.ConfigFor(owner))
	if err != nil {
		t.Fatal(err)
	}
	plain := runReady(t, alice, tenantPod(ns, "plain", nil))
	proc := containerProcess(t, plain)
	nodePID := nodeInit(t)
	if ids := nodeContainers(t, ns, "plain"); len(ids) < 2 {
		t.Fatalf("the node lists %v for the running pod plain, want its sandbox and container: its absence below would prove nothing", ids)
	}
	t.Logf("neighbour %s/%s runs as process %d on the node; the node's init is %d", ns, plain.Name, proc, nodePID)

	t.Run("MTB-PL1-BC-HI-1 block use of host path", func(t *testing.T) {
		refused(t, alice, tenantPod(ns, "host-path", func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}}
			s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "host", MountPath: "/host"}}
		}), `restricted volume types (volume "host" uses restricted volume type "hostPath")`)
		scratch := runReady(t, alice, tenantPod(ns, "empty-dir", func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
			s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "scratch", MountPath: "/scratch"}}
		}))
		t.Logf("neighbour: %s/%s with an emptyDir volume Running", ns, scratch.Name)
	})

	t.Run("MTB-PL1-BC-HI-3 block use of host networking and ports", func(t *testing.T) {
		refused(t, alice, tenantPod(ns, "host-network", func(s *corev1.PodSpec) { s.HostNetwork = true }), "host namespaces (hostNetwork=true)")
		const hostPort = 18080
		refused(t, alice, tenantPod(ns, "host-port", func(s *corev1.PodSpec) {
			s.Containers[0].Ports[0].HostPort = hostPort
		}), fmt.Sprintf(`hostPort (container "netcheck" uses hostPort %d)`, hostPort))
		// Nothing maps the host port on the node's address.
		if resp, err := env.Node.HTTPClient(2 * time.Second).Get(fmt.Sprintf("http://%s:%d/", nodeAddress, hostPort)); err == nil {
			resp.Body.Close()
			t.Errorf("the node's %s:%d answers %s", nodeAddress, hostPort, resp.Status)
		} else {
			t.Logf("the node's %s:%d: %v", nodeAddress, hostPort, err)
		}
		// Neighbour: the container's own port, in a network namespace not the node's.
		resp, err := env.Node.HTTPClient(2 * time.Second).Get("http://" + podAddr(plain) + "/")
		if err != nil {
			t.Fatalf("neighbour: %s/%s's container port: %v", ns, plain.Name, err)
		}
		resp.Body.Close()
		t.Logf("neighbour: %s/%s answers %s on its container port %s", ns, plain.Name, resp.Status, podAddr(plain))
		notShared(t, proc, nodePID, "net")
	})

	t.Run("MTB-PL1-BC-HI-4 block use of host PID", func(t *testing.T) {
		refused(t, alice, tenantPod(ns, "host-pid", func(s *corev1.PodSpec) { s.HostPID = true }), "host namespaces (hostPID=true)")
		notShared(t, proc, nodePID, "pid")
		// Its own PID namespace starts at netcheck.
		nspid := strings.Fields(procStatus(t, proc)["NSpid"])
		if len(nspid) < 2 || nspid[len(nspid)-1] != "1" {
			t.Errorf("neighbour's NSpid %v: want it PID 1 of its own namespace", nspid)
		}
		t.Logf("neighbour: NSpid %v", nspid)
	})

	t.Run("MTB-PL1-BC-HI-5 block use of host IPC", func(t *testing.T) {
		refused(t, alice, tenantPod(ns, "host-ipc", func(s *corev1.PodSpec) { s.HostIPC = true }), "host namespaces (hostIPC=true)")
		// The node shares the machine's IPC namespace: a pod in it would too.
		notShared(t, proc, nodePID, "ipc")
		notShared(t, proc, os.Getpid(), "ipc")
	})

	t.Run("MTB-PL1-BC-CPI-3 block add capabilities", func(t *testing.T) {
		for _, capability := range []corev1.Capability{"NET_ADMIN", "SYS_ADMIN"} {
			refused(t, alice, tenantPod(ns, "add-"+strings.ToLower(strings.ReplaceAll(string(capability), "_", "-")), func(s *corev1.PodSpec) {
				s.Containers[0].SecurityContext.Capabilities.Add = []corev1.Capability{capability}
			}), fmt.Sprintf(`unrestricted capabilities (container "netcheck" must not include %q in securityContext.capabilities.add)`, capability))
		}
		bind := runReady(t, alice, tenantPod(ns, "add-net-bind-service", func(s *corev1.PodSpec) {
			s.Containers[0].SecurityContext.Capabilities.Add = []corev1.Capability{"NET_BIND_SERVICE"}
		}))
		// NET_BIND_SERVICE is bit 10: the one capability the process can ever hold.
		capabilities(t, containerProcess(t, bind), "CapBnd", "0000000000000400")
		capabilities(t, proc, "CapBnd", "0000000000000000")
	})

	t.Run("MTB-PL1-BC-CPI-4 require run as non-root user", func(t *testing.T) {
		refused(t, alice, tenantPod(ns, "run-as-root", func(s *corev1.PodSpec) {
			s.SecurityContext.RunAsNonRoot = nil
			s.Containers[0].SecurityContext.RunAsUser = ptr.To(int64(0))
		}), `runAsUser=0 (container "netcheck" must not set runAsUser=0)`)
		uid := strings.Fields(procStatus(t, proc)["Uid"])
		for _, id := range uid {
			if id == "0" {
				t.Errorf("neighbour runs with Uid %v", uid)
			}
		}
		t.Logf("neighbour: Uid %v (real, effective, saved, fs)", uid)
	})

	t.Run("MTB-PL1-BC-CPI-5 block privileged containers", func(t *testing.T) {
		refused(t, alice, tenantPod(ns, "privileged", func(s *corev1.PodSpec) {
			// A privileged container may not forbid escalation: the API would refuse that first.
			s.Containers[0].SecurityContext.AllowPrivilegeEscalation = nil
			s.Containers[0].SecurityContext.Privileged = ptr.To(true)
		}), `privileged (container "netcheck" must not set securityContext.privileged=true)`)
		capabilities(t, proc, "CapEff", "0000000000000000")
	})

	t.Run("MTB-PL1-BC-CPI-6 block privilege escalation", func(t *testing.T) {
		refused(t, alice, tenantPod(ns, "escalate", func(s *corev1.PodSpec) {
			s.Containers[0].SecurityContext.AllowPrivilegeEscalation = ptr.To(true)
		}), `allowPrivilegeEscalation != false (container "netcheck" must set securityContext.allowPrivilegeEscalation=false)`)
		if got := procStatus(t, proc)["NoNewPrivs"]; got != "1" {
			t.Errorf("neighbour's NoNewPrivs = %q, want 1", got)
		}
		t.Log("neighbour: NoNewPrivs 1, no setuid binary or file capability raises it")
	})

	t.Run("node access", func(t *testing.T) {
		peer := runReady(t, alice, tenantPod(ns, "peer", nil))
		reaches(t, plain, podAddr(peer), "its own tenant's pod (neighbour)")
		token, err := core.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "default", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tenantUser := "system:serviceaccount:" + ns + ":default"
		// The node serves two ports at its address, as every node does:
		// the kubelet's, and the API server's (the kubernetes Service's
		// endpoint). Both take the pod's connection and refuse the tenant.
		apiPort := apiServerPort(t)
		served := map[string]bool{strconv.Itoa(kubeletPort): true, apiPort: true}
		refusesTenant(t, plain, proc, strconv.Itoa(kubeletPort), "/pods", token.Status.Token, tenantUser, http.StatusUnauthorized)
		if _, err := core.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes", localcluster.NodeName, "proxy", "pods").DoRaw(ctx); err != nil {
			t.Fatalf("neighbour: the API server's GET of the kubelet's /pods: %v", err)
		}
		t.Log("neighbour: the kubelet serves the API server its /pods")
		refusesTenant(t, plain, proc, apiPort, "/api/v1/nodes", token.Status.Token, tenantUser, http.StatusForbidden)
		// Neighbour: what RBAC grants every identity, the pod reads.
		version := "https://" + net.JoinHostPort(nodeAddress, apiPort) + "/version"
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, version, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token.Status.Token)
		resp, err := podClient(proc).Do(req)
		if err != nil {
			t.Fatalf("neighbour: GET %s from the pod: %v", version, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("neighbour: GET %s from the pod with %s's token: %s", version, tenantUser, resp.Status)
		}
		t.Logf("neighbour: GET %s from the pod with %s's token: %s", version, tenantUser, resp.Status)
		// Every other port the node listens on is bound to its loopback,
		// which is not the pod's: refused at the node's address.
		for _, port := range nodeListeners(t, nodePID) {
			if !served[port] {
				blocked(t, plain, net.JoinHostPort(nodeAddress, port), "a port the node listens on")
			}
		}
		// Nothing outside the node's namespace has a route from the pod.
		for _, addr := range machineAddresses(t) {
			unreachable(t, plain, net.JoinHostPort(addr, apiPort), "the machine's address "+addr)
		}
	})
}

// tenantPod is netcheckPod, pulled never (the image is the node's own),
// as edit changes it.
func tenantPod(ns, name string, edit func(*corev1.PodSpec)) *corev1.Pod {
	pod := netcheckPod(ns, name)
	pod.Spec.Containers[0].ImagePullPolicy = corev1.PullNever
	if edit != nil {
		edit(&pod.Spec)
	}
	return pod
}

// runReady creates pod as c and returns it once Ready on the node.
func runReady(t *testing.T, c kubernetes.Interface, pod *corev1.Pod) *corev1.Pod {
	t.Helper()
	if _, err := c.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod %s/%s: %v", pod.Namespace, pod.Name, err)
	}
	var got *corev1.Pod
	testenv.Eventually(t, 2*time.Minute, func() (err error) {
		if got, err = core.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{}); err != nil {
			return err
		}
		for _, c := range got.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && got.Status.PodIP != "" {
				return nil
			}
		}
		return fmt.Errorf("pod %s/%s is %s, not Ready yet", pod.Namespace, pod.Name, got.Status.Phase)
	})
	return got
}

// refused wants pod's create as c refused by admission with each of want
// in the message, and the same pod as a Deployment's template (which Pod
// Security only warns of) refused to its ReplicaSet the same way; then no
// pod of either exists, and the node holds no container of them.
func refused(t *testing.T, c kubernetes.Interface, pod *corev1.Pod, want ...string) {
	t.Helper()
	ns, name := pod.Namespace, pod.Name
	_, err := c.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	switch {
	case err == nil:
		t.Errorf("pod %s/%s admitted", ns, name)
	case !apierrors.IsForbidden(err):
		t.Errorf("pod %s/%s: %v, want refused by admission (Forbidden)", ns, name, err)
	default:
		wantMessage(t, "pod "+name, err.Error(), want)
	}

	deployment := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: pod.Labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: pod.Labels}, Spec: pod.Spec},
		},
	}
	if _, err := c.AppsV1().Deployments(ns).Create(ctx, deployment, metav1.CreateOptions{}); err != nil {
		t.Fatalf("deployment %s/%s: %v", ns, name, err)
	}
	selector := metav1.FormatLabelSelector(deployment.Spec.Selector)
	testenv.Eventually(t, time.Minute, func() error {
		sets, err := core.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return err
		}
		for _, rs := range sets.Items {
			for _, cond := range rs.Status.Conditions {
				if cond.Type == appsv1.ReplicaSetReplicaFailure && cond.Status == corev1.ConditionTrue {
					wantMessage(t, "deployment "+name+"'s ReplicaSet "+rs.Name, cond.Message, want)
					return nil
				}
			}
		}
		return fmt.Errorf("no ReplicaSet of deployment %s/%s reports a refused pod yet", ns, name)
	})

	pods, err := core.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		t.Errorf("pod %s/%s exists (%s)", ns, p.Name, p.Status.Phase)
	}
	if ids := nodeContainers(t, ns, name); len(ids) > 0 {
		t.Errorf("the node holds containers of pods named %s*: %v", name, ids)
	}
	if err := core.AppsV1().Deployments(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Error(err)
	}
}

func wantMessage(t *testing.T, what, message string, want []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(message, w) {
			t.Errorf("%s refused with %q, which does not name %q", what, message, w)
			return
		}
	}
	t.Logf("%s refused: %s", what, message)
}

// nodeContainers lists the IDs of the containers, sandboxes included, that
// containerd on the node holds for pods of ns whose name starts with
// prefix.
func nodeContainers(t *testing.T, ns, prefix string) []string {
	t.Helper()
	socket := filepath.Join(env.Dir, "node", "containerd", "containerd.sock")
	filter := fmt.Sprintf(`labels."io.kubernetes.pod.namespace"==%s,labels."io.kubernetes.pod.name"~="^%s"`, ns, prefix)
	out, err := exec.Command("ctr", "--address", socket, "--namespace", "k8s.io", "containers", "list", "--quiet", filter).CombinedOutput()
	if err != nil {
		t.Fatalf("ctr containers list %s: %v: %s", filter, err, out)
	}
	return strings.Fields(string(out))
}

// containerProcess returns the machine's PID of pod's container, found by
// the container's ID in the process's cgroups.
func containerProcess(t *testing.T, pod *corev1.Pod) int {
	t.Helper()
	if len(pod.Status.ContainerStatuses) == 0 {
		t.Fatalf("pod %s/%s has no container status", pod.Namespace, pod.Name)
	}
	_, id, ok := strings.Cut(pod.Status.ContainerStatuses[0].ContainerID, "://")
	if !ok {
		t.Fatalf("pod %s/%s container ID %q", pod.Namespace, pod.Name, pod.Status.ContainerStatuses[0].ContainerID)
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cgroups, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cgroup"))
		if err == nil && strings.Contains(string(cgroups), id) {
			return pid
		}
	}
	t.Fatalf("no process in the cgroup of container %s of pod %s/%s", id, pod.Namespace, pod.Name)
	return 0
}

// nodeInit returns the machine's PID of the node's init: PID 1 of the
// node's PID namespace, whose other namespaces are the node's.
func nodeInit(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ns, err := os.Readlink(filepath.Join("/proc", e.Name(), "ns", "pid")); err != nil || ns != env.Node.PIDNamespace {
			continue
		}
		if nspid := strings.Fields(procStatus(t, pid)["NSpid"]); len(nspid) > 0 && nspid[len(nspid)-1] == "1" {
			return pid
		}
	}
	t.Fatalf("no PID 1 in the node's PID namespace %s", env.Node.PIDNamespace)
	return 0
}

// procStatus is /proc/PID/status by field.
func procStatus(t *testing.T, pid int) map[string]string {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			fields[k] = strings.TrimSpace(v)
		}
	}
	return fields
}

// notShared fails t if the processes pid and other are in the same
// namespace of kind (net, pid, ipc).
func notShared(t *testing.T, pid, other int, kind string) {
	t.Helper()
	mine, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/%s", pid, kind))
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/%s", other, kind))
	if err != nil {
		t.Fatal(err)
	}
	if mine == theirs {
		t.Errorf("neighbour (process %d) shares %s with process %d", pid, mine, other)
		return
	}
	t.Logf("neighbour: %s, process %d: %s", mine, other, theirs)
}

// capabilities fails t unless the process's capability set field is want.
func capabilities(t *testing.T, pid int, field, want string) {
	t.Helper()
	if got := procStatus(t, pid)[field]; got != want {
		t.Errorf("process %d %s = %s, want %s", pid, field, got, want)
		return
	}
	t.Logf("process %d: %s %s", pid, field, want)
}

// refusesTenant: pod's connection to port on the node's address is
// accepted (its plain HTTP gets the TLS server's complaint), and over TLS
// the server answers path with anonymous without credentials, and with 403
// naming user to user's token.
func refusesTenant(t *testing.T, pod *corev1.Pod, pid int, port, path, token, user string, anonymous int) {
	t.Helper()
	addr := net.JoinHostPort(nodeAddress, port)
	r := dial(t, pod, addr)
	if r.Reached || !strings.Contains(r.Body, "HTTPS") {
		t.Errorf("%s/%s -> %s over plain HTTP: reached=%t failure=%q body=%q error=%q, want the TLS server's answer", pod.Namespace, pod.Name, addr, r.Reached, r.Failure, r.Body, r.Error)
	} else {
		t.Logf("connected: %s/%s -> %s over plain HTTP: %q", pod.Namespace, pod.Name, addr, strings.TrimSpace(r.Body))
	}
	client := podClient(pid)
	for _, c := range []struct {
		credential, token string
		status            int
		names             string
	}{
		{"no credentials", "", anonymous, ""},
		{"the token of " + user, token, http.StatusForbidden, user},
	} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("GET https://%s%s from the pod with %s: %v", addr, path, c.credential, err)
			continue
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.names) {
			t.Errorf("GET https://%s%s from the pod with %s: %s %q, want %d naming %q", addr, path, c.credential, resp.Status, body, c.status, c.names)
			continue
		}
		t.Logf("GET https://%s%s from the pod with %s: %s %s", addr, path, c.credential, resp.Status, strings.Join(strings.Fields(string(body)), " "))
	}
}

// podClient sends HTTPS requests from the pod of process pid, which does
// not know the node's certificates: what it could read is the question.
func podClient(pid int) *http.Client {
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DialContext:       podDialer(pid),
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the attacker's view
		DisableKeepAlives: true,
	}}
}

// podDialer dials from the network namespace of the process pid, so the
// connection leaves from the pod's address through its interface.
func podDialer(pid int) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		type dialed struct {
			conn net.Conn
			err  error
		}
		done := make(chan dialed, 1)
		go func() {
			// A socket belongs to the namespace of the thread that made it;
			// the thread stays locked, so it ends with this goroutine.
			runtime.LockOSThread()
			ns, err := os.Open(fmt.Sprintf("/proc/%d/ns/net", pid))
			if err != nil {
				done <- dialed{err: err}
				return
			}
			defer ns.Close()
			if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
				done <- dialed{err: fmt.Errorf("enter the pod's network namespace: %w", err)}
				return
			}
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			done <- dialed{conn, err}
		}()
		r := <-done
		return r.conn, r.err
	}
}

// nodeListeners are the TCP ports the node's network namespace listens on,
// read from its init's /proc/PID/net/tcp and tcp6.
func nodeListeners(t *testing.T, nodePID int) []string {
	t.Helper()
	seen := map[string]bool{}
	var ports []string
	for _, table := range []string{"tcp", "tcp6"} {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", nodePID, table))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			// State 0A is LISTEN; the local address is HEXADDR:HEXPORT.
			if len(f) < 4 || f[3] != "0A" {
				continue
			}
			_, hexPort, _ := strings.Cut(f[1], ":")
			port, err := strconv.ParseInt(hexPort, 16, 32)
			if err != nil {
				t.Fatal(err)
			}
			if p := strconv.Itoa(int(port)); !seen[p] {
				seen[p] = true
				ports = append(ports, p)
			}
		}
	}
	t.Logf("the node listens on TCP ports %v", ports)
	return ports
}

// machineAddresses are the machine's own non-loopback IPv4 addresses,
// outside the node's namespace.
func machineAddresses(t *testing.T) []string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range addrs {
		if ip, ok := a.(*net.IPNet); ok && ip.IP.To4() != nil && !ip.IP.IsLoopback() {
			out = append(out, ip.IP.String())
		}
	}
	if len(out) == 0 {
		t.Fatal("the machine has no address outside loopback to try")
	}
	return out
}

func apiServerPort(t *testing.T) string {
	t.Helper()
	u, err := url.Parse(env.Config.Host)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// unreachable fails t unless from's connection to addr fails for want of a
// route: the address does not exist where the pod is.
func unreachable(t *testing.T, from *corev1.Pod, addr, what string) {
	t.Helper()
	r := dial(t, from, addr)
	if r.Reached || r.Failure != "error" || !(strings.Contains(r.Error, "no route to host") || strings.Contains(r.Error, "network is unreachable")) {
		t.Errorf("%s/%s -> %s (%s): reached=%t failure=%q %s%s, want no route", from.Namespace, from.Name, what, addr, r.Reached, r.Failure, r.Error, r.Body)
		return
	}
	t.Logf("unreachable: %s/%s -> %s (%s): %s", from.Namespace, from.Name, what, addr, r.Error)
}
