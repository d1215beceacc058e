package localcluster

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
	"k8s.io/utils/ptr"

	"github.com/landlord-dev/landlord/internal/nodeimage"
	issuer "github.com/landlord-dev/landlord/internal/pki"
)

// NodeName is the name of the environment's one node.
const NodeName = "landlord-node"

const (
	pauseImage = nodeimage.Pause
	cniBinDir  = "/usr/lib/cni"
	// nodeStartTimeout covers building the images and the node becoming Ready.
	nodeStartTimeout = 3 * time.Minute
	// enforcer is the NetworkPolicy enforcer's service account in kube-system.
	enforcer = "kube-network-policies"
)

// Component names of the node's processes, which are also their log files'.
const (
	NodeNamespaces = "node-namespaces"
	Containerd     = "containerd"
	Kubelet        = "kubelet"
	KubeProxy      = "kube-proxy"
	Scheduler      = "kube-scheduler"
	Enforcer       = "kube-network-policies"
)

// hostTools are the Debian packages' programs the node runs, by package.
var hostTools = map[string][]string{
	"containerd":                  {"containerd", "containerd-shim-runc-v2", "ctr"},
	"runc":                        {"runc"},
	"containernetworking-plugins": {cniBinDir + "/bridge", cniBinDir + "/host-local", cniBinDir + "/loopback", cniBinDir + "/portmap"},
	"iptables":                    {"iptables", "iptables-restore", "iptables-legacy"},
	"util-linux":                  {"unshare", "nsenter"},
	"iproute2":                    {"ip"},
	"procps":                      {"sysctl"},
}

// nodeBinaries are the paths of what make node-tools builds.
type nodeBinaries struct {
	kubelet, kubeProxy, scheduler, enforcer string
}

func findNodeBinaries(dir string) (nodeBinaries, error) {
	var b nodeBinaries
	dir, err := binDir(dir)
	if err != nil {
		return b, err
	}
	errs := []error{lookUp(dir, "make node-tools", map[string]*string{
		"kubelet": &b.kubelet, "kube-proxy": &b.kubeProxy, "kube-scheduler": &b.scheduler, "kube-network-policies": &b.enforcer,
	})}
	var missing []string
	for pkg, tools := range hostTools {
		for _, tool := range tools {
			if _, err := exec.LookPath(tool); err != nil {
				missing = append(missing, pkg)
				break
			}
		}
	}
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("the node needs Debian packages %s: apt-get install %s", strings.Join(missing, ", "), strings.Join(missing, " ")))
	}
	if os.Geteuid() != 0 {
		errs = append(errs, errors.New("the node needs root: it creates namespaces, cgroups and a bridge"))
	}
	return b, errors.Join(errs...)
}

// Node is the environment's one node: containerd and runc, kubelet, CNI's
// bridge, kube-proxy and kube-network-policies in a network, mount and PID
// namespace of their own, the API server reached through a relay on the
// namespace's loopback. Its pods' addresses exist only in that namespace;
// Dial reaches them from there.
type Node struct {
	// Name is the Node object's name.
	Name string
	// CgroupRoot is the cgroup, in every hierarchy, that holds the pods.
	CgroupRoot string
	// PIDNamespace identifies the node's PID namespace (its inode), in which
	// every process of the node runs.
	PIDNamespace string
	dir          string
	netns        *os.File
	listeners    []net.Listener
	relays       sync.WaitGroup
}

// egressSocket is where the node serves the API server's egress; the API
// server is told before the node exists.
func egressSocket(envDir string) string { return filepath.Join(envDir, "node-egress.sock") }

// nodeAPIServerArgs let the API server reach the kubelet (logs, exec)
// through the node's namespace, as the node's admin.
func nodeAPIServerArgs(envDir string, certs *pki) []string {
	return []string{
		"--egress-selector-config-file=" + filepath.Join(envDir, "egress-selector.yaml"),
		"--kubelet-client-certificate=" + certs.path("admin.crt"),
		"--kubelet-client-key=" + certs.path("admin.key"),
		"--kubelet-preferred-address-types=InternalIP",
	}
}

// Dial connects to addr (a pod's or a Service's) from inside the node's
// network namespace, as root on the node: a NetworkPolicy lets the node
// reach its pods, as kubelet's probes do.
func (n *Node) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return dialIn(ctx, n.netns, network, addr)
}

// ImportImage imports the image archive at path (docker-archive or OCI)
// into the node's containerd, where pods find it without a registry.
func (n *Node) ImportImage(ctx context.Context, path string) error {
	return ctr(ctx, n.dir, "images", "import", path)
}

// HTTPClient sends requests from inside the node's network namespace.
func (n *Node) HTTPClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DialContext: n.Dial, DisableKeepAlives: true}}
}

// startNode runs the node against the API server on apiPort.
func (e *Env) startNode(ctx context.Context, bin nodeBinaries, certs *pki, apiPort int) error {
	n := &Node{Name: NodeName, dir: filepath.Join(e.Dir, "node")}
	e.Node = n
	e.cleanups = append(e.cleanups, n.cleanup)
	// Nothing of a previous run is worth keeping: pods are recreated.
	if err := os.RemoveAll(n.dir); err != nil {
		return fmt.Errorf("clear node directory: %w", err)
	}
	for _, sub := range []string{"serviceaccount", "cni/net.d", "images", "pki"} {
		if err := os.MkdirAll(filepath.Join(n.dir, sub), 0o700); err != nil {
			return err
		}
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	pause := filepath.Join(n.dir, "pause")
	if err := nodeimage.Compile(ctx, root, pauseImage, pause); err != nil {
		return err
	}
	var images []string
	for _, ref := range nodeimage.References() {
		out := filepath.Join(n.dir, "images", strings.NewReplacer("/", "_", ":", "_").Replace(ref)+".tar")
		if err := nodeimage.Build(ctx, root, ref, out); err != nil {
			return err
		}
		images = append(images, out)
	}

	client, err := kubernetes.NewForConfig(e.Config)
	if err != nil {
		return err
	}
	server := "https://127.0.0.1:" + strconv.Itoa(apiPort)
	kubeconfigs, err := n.identities(certs, server)
	if err != nil {
		return err
	}
	if err := n.grant(ctx, client, certs); err != nil {
		return err
	}
	if err := n.makeCgroups(); err != nil {
		return err
	}
	for name, content := range map[string]string{
		"containerd.toml":                containerdConfig(n.dir),
		"cni/net.d/10-landlord.conflist": cniConfig(n.dir),
		"kubelet.yaml":                   kubeletConfig(n.dir, certs.path("ca.crt"), n.CgroupRoot),
		"kube-proxy.yaml":                kubeProxyConfig(kubeconfigs[KubeProxy]),
	} {
		if err := os.WriteFile(filepath.Join(n.dir, name), []byte(content), 0o600); err != nil {
			return err
		}
	}

	holder, err := e.run(NodeNamespaces, "unshare", []string{
		"--pid", "--fork", "--kill-child", "--mount-proc", "--net", "--mount", "--propagation", "private",
		"sh", "-c", holderScript(n.dir, pause),
	})
	if err != nil {
		return err
	}
	var initPID int
	if err := e.waitFor(ctx, holder, "the node's namespaces", func(context.Context) error {
		if _, err := os.Stat(filepath.Join(n.dir, "namespaces-ready")); err != nil {
			return err
		}
		initPID, err = childOf(holder.id())
		return err
	}); err != nil {
		return err
	}
	if n.netns, err = os.Open(fmt.Sprintf("/proc/%d/ns/net", initPID)); err != nil {
		return fmt.Errorf("open the node's network namespace: %w", err)
	}
	if n.PIDNamespace, err = os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", initPID)); err != nil {
		return err
	}
	if err := n.serveAPI(apiPort, egressSocket(e.Dir)); err != nil {
		return err
	}
	if err := kubernetesEndpoints(ctx, client, apiPort); err != nil {
		return err
	}
	inNode := func(name, path string, args []string, env ...string) (*process, error) {
		return e.run(name, "nsenter", append([]string{
			"--target", strconv.Itoa(initPID), "--net", "--mount", "--pid", "--", path,
		}, args...), env...)
	}

	containerd, err := inNode(Containerd, "containerd", []string{"--config", filepath.Join(n.dir, "containerd.toml")})
	if err != nil {
		return err
	}
	if err := e.waitFor(ctx, containerd, "containerd", func(ctx context.Context) error {
		return ctr(ctx, n.dir, "version")
	}); err != nil {
		return err
	}
	for _, image := range images {
		if err := ctr(ctx, n.dir, "images", "import", image); err != nil {
			return err
		}
	}

	schedulerPort, err := FreePorts(1)
	if err != nil {
		return err
	}
	if _, err := e.run(Scheduler, bin.scheduler, []string{
		"--kubeconfig=" + kubeconfigs[Scheduler],
		"--authentication-kubeconfig=" + kubeconfigs[Scheduler],
		"--authorization-kubeconfig=" + kubeconfigs[Scheduler],
		// The API server has no front-proxy CA, so looking it up only logs errors.
		"--authentication-skip-lookup",
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(schedulerPort[0]),
		"--leader-elect=false",
	}); err != nil {
		return err
	}
	kubelet, err := inNode(Kubelet, bin.kubelet, []string{
		"--config=" + filepath.Join(n.dir, "kubelet.yaml"),
		"--kubeconfig=" + kubeconfigs[Kubelet],
		"--root-dir=" + filepath.Join(n.dir, "kubelet"),
		"--hostname-override=" + NodeName,
		"--node-ip=" + nodeIP,
	})
	if err != nil {
		return err
	}
	if _, err := inNode(KubeProxy, bin.kubeProxy, []string{"--config=" + filepath.Join(n.dir, "kube-proxy.yaml")}); err != nil {
		return err
	}
	// It runs as in a pod: in-cluster configuration, its service account's token.
	if _, err := inNode(Enforcer, bin.enforcer, []string{
		"--hostname-override=" + NodeName,
		"--disable-nri", // containerd 1.6 has no NRI
		"--netfilter-bug-1766-fix=false",
		"--metrics-bind-address=127.0.0.1:9080",
		"--nfqueue-id=" + strconv.Itoa(enforcerQueue),
	}, "KUBERNETES_SERVICE_HOST=127.0.0.1", "KUBERNETES_SERVICE_PORT="+strconv.Itoa(apiPort)); err != nil {
		return err
	}
	if err := e.waitFor(ctx, kubelet, "node "+NodeName+" Ready", nodeReady(client)); err != nil {
		return err
	}
	local := n.HTTPClient(2 * time.Second)
	for _, url := range []string{"http://127.0.0.1:10256/healthz", "http://127.0.0.1:9080/metrics"} {
		if err := e.waitFor(ctx, kubelet, url+" in the node", func(ctx context.Context) error {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return err
			}
			resp, err := local.Do(req)
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("%s: %s", url, resp.Status)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// ctr runs containerd's client in namespace k8s.io, where the kubelet's
// images live.
func ctr(ctx context.Context, dir string, args ...string) error {
	cmd := exec.CommandContext(ctx, "ctr", append([]string{"--address", containerdSocket(dir), "--namespace", "k8s.io"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ctr %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// childOf returns the one child of pid: unshare's, the node's init.
func childOf(pid int) (int, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return 0, err
	}
	fields := strings.Fields(string(data))
	if len(fields) != 1 {
		return 0, fmt.Errorf("unshare (pid %d) has children %v, want one", pid, fields)
	}
	return strconv.Atoi(fields[0])
}

// serveAPI relays the node's 127.0.0.1:apiPort, for its components, and
// nodeIP:apiPort, for pods through the kubernetes Service, to the API
// server's, and serves the API server's egress into the node on socket.
func (n *Node) serveAPI(apiPort int, socket string) error {
	addr := "127.0.0.1:" + strconv.Itoa(apiPort)
	for _, host := range []string{"127.0.0.1", nodeIP} {
		var inside net.Listener
		if err := inNetns(n.netns, func() (err error) {
			inside, err = net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(apiPort)))
			return err
		}); err != nil {
			return fmt.Errorf("listen on the node's %s:%d: %w", host, apiPort, err)
		}
		n.listeners = append(n.listeners, inside)
		relay(inside, func() (net.Conn, error) { return net.Dial("tcp", addr) }, &n.relays)
	}
	_ = os.Remove(socket)
	egress, err := net.Listen("unix", socket)
	if err != nil {
		return fmt.Errorf("listen for the API server's egress: %w", err)
	}
	n.listeners = append(n.listeners, egress)
	serveConnect(egress, n.netns, &n.relays)
	return nil
}

// kubernetesEndpoints points the kubernetes Service at the node's relay to
// the API server: the API server advertises loopback, which a pod cannot
// reach, and so reconciles no endpoints itself (--endpoint-reconciler-type=none).
func kubernetesEndpoints(ctx context.Context, client kubernetes.Interface, apiPort int) error {
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: "kubernetes", Labels: map[string]string{
			discoveryv1.LabelServiceName: "kubernetes",
			discoveryv1.LabelManagedBy:   "landlord-testenv",
		}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{nodeIP}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To(int32(apiPort)), Protocol: ptr.To(corev1.ProtocolTCP)}},
	}
	slices := client.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault)
	// A kept directory's slice names the last run's port.
	if err := slices.Delete(ctx, slice.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("endpoints of the kubernetes Service: %w", err)
	}
	_, err := slices.Create(ctx, slice, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("endpoints of the kubernetes Service: %w", err)
	}
	return nil
}

// identities issues the client certificates of the node's components and
// writes their kubeconfigs, by component.
func (n *Node) identities(certs *pki, server string) (map[string]string, error) {
	ca, err := loadCA(certs)
	if err != nil {
		return nil, err
	}
	notBefore := time.Now().Add(-time.Minute)
	kubeconfigs := map[string]string{}
	for component, cfg := range map[string]certutil.Config{
		Kubelet:   {CommonName: "system:node:" + NodeName, Organization: []string{"system:nodes"}},
		KubeProxy: {CommonName: "system:kube-proxy"},
		Scheduler: {CommonName: "system:kube-scheduler"},
	} {
		cfg.NotBefore = notBefore
		cfg.Usages = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
		leaf, err := ca.Issue(cfg, notBefore.Add(certValidity))
		if err != nil {
			return nil, err
		}
		certPEM, keyPEM, err := leaf.PEM()
		if err != nil {
			return nil, err
		}
		path := filepath.Join(n.dir, "pki", component+".kubeconfig")
		if err := writeKubeconfig(path, server, certs.caPEM, &clientcmdapi.AuthInfo{ClientCertificateData: certPEM, ClientKeyData: keyPEM}); err != nil {
			return nil, err
		}
		kubeconfigs[component] = path
	}
	return kubeconfigs, nil
}

func loadCA(certs *pki) (*issuer.KeyPair, error) {
	parsed, err := certutil.CertsFromFile(certs.path("ca.crt"))
	if err != nil {
		return nil, err
	}
	key, err := keyutil.PrivateKeyFromFile(certs.path("ca.key"))
	if err != nil {
		return nil, err
	}
	ecKey, ok := key.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("ca.key is a %T, want ECDSA", key)
	}
	return &issuer.KeyPair{Cert: parsed[0], Key: ecKey}, nil
}

// grant binds the kubelet's group to Kubernetes' node role (the API server
// runs RBAC alone, no Node authorizer), and gives the enforcer read access
// to what it enforces and a token, where it reads in-cluster configuration.
func (n *Node) grant(ctx context.Context, client kubernetes.Interface, certs *pki) error {
	objects := []struct {
		create func() error
	}{
		{func() error {
			_, err := client.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "landlord-testenv:nodes"},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:node"},
				Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "system:nodes"}},
			}, metav1.CreateOptions{})
			return err
		}},
		{func() error {
			_, err := client.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
				ObjectMeta: metav1.ObjectMeta{Name: enforcer},
				Rules: []rbacv1.PolicyRule{
					{APIGroups: []string{""}, Resources: []string{"pods", "namespaces", "nodes"}, Verbs: []string{"get", "list", "watch"}},
					{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"networkpolicies"}, Verbs: []string{"get", "list", "watch"}},
				},
			}, metav1.CreateOptions{})
			return err
		}},
		{func() error {
			_, err := client.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: enforcer},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: enforcer},
				Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: metav1.NamespaceSystem, Name: enforcer}},
			}, metav1.CreateOptions{})
			return err
		}},
		{func() error {
			_, err := client.CoreV1().ServiceAccounts(metav1.NamespaceSystem).Create(ctx, &corev1.ServiceAccount{
				ObjectMeta: metav1.ObjectMeta{Name: enforcer},
			}, metav1.CreateOptions{})
			return err
		}},
	}
	for _, o := range objects {
		if err := o.create(); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("node RBAC: %w", err)
		}
	}
	token, err := client.CoreV1().ServiceAccounts(metav1.NamespaceSystem).CreateToken(ctx, enforcer, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(7 * 24 * 3600))},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("token for %s: %w", enforcer, err)
	}
	sa := filepath.Join(n.dir, "serviceaccount")
	for name, data := range map[string][]byte{
		"token": []byte(token.Status.Token), "ca.crt": certs.caPEM, "namespace": []byte(metav1.NamespaceSystem),
	} {
		if err := os.WriteFile(filepath.Join(sa, name), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// makeCgroups creates the node's cgroup root in every hierarchy, which
// kubelet requires and cleanup removes.
func (n *Node) makeCgroups() error {
	suffix := make([]byte, 4)
	if _, err := rand.Read(suffix); err != nil {
		return err
	}
	n.CgroupRoot = "landlord-node-" + hex.EncodeToString(suffix)
	hierarchies, err := cgroupHierarchies()
	if err != nil {
		return err
	}
	for _, h := range hierarchies {
		if err := os.Mkdir(filepath.Join(h, n.CgroupRoot), 0o755); err != nil {
			return fmt.Errorf("create the node's cgroup: %w", err)
		}
	}
	return nil
}

// cgroupHierarchies are the mount points of the cgroup file systems.
func cgroupHierarchies() ([]string, error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	var mounts []string
	for _, line := range strings.Split(string(data), "\n") {
		// Fields after " - " are the file system type, source and options.
		before, after, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		fsType := strings.Fields(after)[0]
		if fsType == "cgroup" || fsType == "cgroup2" {
			mounts = append(mounts, strings.Fields(before)[4])
		}
	}
	return mounts, nil
}

// cleanup runs once every process has been stopped: the namespaces are gone
// with their init, and with them every mount, interface and rule; what is
// left is the relays and the cgroups, which outlive their processes.
func (n *Node) cleanup() error {
	var errs []error
	for _, l := range n.listeners {
		errs = append(errs, l.Close())
	}
	n.relays.Wait()
	if n.netns != nil {
		errs = append(errs, n.netns.Close())
	}
	if n.CgroupRoot != "" {
		errs = append(errs, removeCgroups(n.CgroupRoot))
	}
	return errors.Join(errs...)
}

// removeCgroups removes root's tree from every hierarchy, deepest first,
// retrying while the last processes of the node's PID namespace exit.
func removeCgroups(root string) error {
	hierarchies, err := cgroupHierarchies()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(stopGrace)
	for {
		var left []string
		for _, h := range hierarchies {
			var dirs []string
			_ = filepath.WalkDir(filepath.Join(h, root), func(path string, d os.DirEntry, err error) error {
				if err == nil && d.IsDir() {
					dirs = append(dirs, path)
				}
				return nil
			})
			for i := len(dirs) - 1; i >= 0; i-- {
				if err := os.Remove(dirs[i]); err != nil && !errors.Is(err, os.ErrNotExist) {
					left = append(left, dirs[i])
				}
			}
		}
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroups still in use: %v", left)
		}
		time.Sleep(pollInterval)
	}
}

func nodeReady(client kubernetes.Interface) func(context.Context) error {
	return func(ctx context.Context) error {
		node, err := client.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("node %s not Ready", NodeName)
	}
}
