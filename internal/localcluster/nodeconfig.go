package localcluster

import (
	"fmt"
	"path/filepath"
	"strings"
)

// The node's network, which exists only inside its own network namespace:
// the pod bridge is the node's one interface besides loopback, and its
// address the node's.
const (
	podCIDR     = "10.244.0.0/24"
	nodeIP      = "10.244.0.1"
	clusterCIDR = "10.244.0.0/16"
)

// holderScript prepares the node's namespaces as their init, then becomes
// pause, which reaps the orphans (containerd's shims) until it is stopped.
// /run is the node's own, so containerd's network namespace mounts, the
// iptables lock and the enforcer's service-account files live and die there.
func holderScript(dir, pause string) string {
	return strings.Join([]string{
		"set -e",
		"mount -t tmpfs -o mode=0755 tmpfs /run",
		"mkdir -p /run/netns /run/secrets/kubernetes.io/serviceaccount",
		"mount --bind " + filepath.Join(dir, "serviceaccount") + " /run/secrets/kubernetes.io/serviceaccount",
		"ip link set lo up",
		"ip link add cni0 type bridge",
		"ip addr add " + nodeIP + "/24 dev cni0",
		"ip link set cni0 up",
		// The namespace has no default route: Service addresses need one to
		// leave the node's own sockets before kube-proxy rewrites them.
		"ip route add " + serviceCIDR + " dev cni0",
		// Policies and Services act on bridged pod traffic only through these.
		"sysctl -qw net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1",
		enforcerHook(),
		"touch " + filepath.Join(dir, "namespaces-ready"),
		"exec " + pause,
	}, "\n")
}

// enforcerQueue is the NFQUEUE kube-network-policies judges packets from.
const enforcerQueue = 100

// enforcerHook sends the first packet of every connection to or from a pod
// to kube-network-policies, which accepts or drops it by the
// NetworkPolicies. The enforcer installs this hook itself with nftables'
// queue expression, which this machine kind's kernel lacks ("No such file
// or directory"); the kernel's x_tables NFQUEUE target does the same job,
// through iptables-legacy. As the enforcer's own rules do, it lets through
// established flows and what root sends from the node (kubelet's probes),
// and fails closed: with no enforcer reading the queue, nothing new passes.
func enforcerHook() string {
	rule := "iptables-legacy -w -t mangle -A LANDLORD-POLICY "
	return strings.Join([]string{
		"iptables-legacy -w -t mangle -N LANDLORD-POLICY",
		"iptables-legacy -w -t mangle -A POSTROUTING -j LANDLORD-POLICY",
		rule + "-m conntrack --ctstate ESTABLISHED,RELATED -j RETURN",
		rule + "-m owner --uid-owner 0 -j RETURN",
		rule + "-s " + podCIDR + fmt.Sprintf(" -j NFQUEUE --queue-num %d", enforcerQueue),
		rule + "-d " + podCIDR + fmt.Sprintf(" -j NFQUEUE --queue-num %d", enforcerQueue),
	}, "\n")
}

func containerdConfig(dir string) string {
	return fmt.Sprintf(`version = 2
root = %[1]q
state = %[2]q
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = %[3]q

[ttrpc]
  address = %[4]q

[plugins."io.containerd.internal.v1.opt"]
  path = %[5]q

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %[6]q
  stream_server_address = "127.0.0.1"
  # Lowering a process's oom_score_adj is refused here, even to root.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = %[7]q
    conf_dir = %[8]q
`, filepath.Join(dir, "containerd", "root"), filepath.Join(dir, "containerd", "state"),
		containerdSocket(dir), filepath.Join(dir, "containerd", "ttrpc.sock"), filepath.Join(dir, "containerd", "opt"),
		pauseImage, cniBinDir, filepath.Join(dir, "cni", "net.d"))
}

func containerdSocket(dir string) string { return filepath.Join(dir, "containerd", "containerd.sock") }

// cniConfig puts pods on the bridge with addresses from podCIDR.
func cniConfig(dir string) string {
	return fmt.Sprintf(`{
  "cniVersion": "1.0.0",
  "name": "landlord",
  "plugins": [
    {"type": "bridge", "bridge": "cni0", "isGateway": true, "isDefaultGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": %q, "gateway": %q}]], "dataDir": %q}},
    {"type": "portmap", "capabilities": {"portMappings": true}},
    {"type": "loopback"}
  ]
}
`, podCIDR, nodeIP, filepath.Join(dir, "cni", "ipam"))
}

func kubeletConfig(dir, caFile, cgroupRoot string) string {
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# This machine kind mounts cgroup v1; kubelet 1.35+ refuses it unless told.
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /%[1]s
containerRuntimeEndpoint: unix://%[2]s
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: %[3]q}
authorization: {mode: Webhook}
healthzBindAddress: 127.0.0.1
readOnlyPort: 0
resolvConf: ""
failSwapOn: false
podLogsDir: %[4]q
# The disk and memory are the machine's, shared: evict for nothing short of exhaustion.
evictionHard: {memory.available: "1Mi", nodefs.available: "1%%", imagefs.available: "1%%", nodefs.inodesFree: "1%%"}
imageGCHighThresholdPercent: 100
`, cgroupRoot, containerdSocket(dir), caFile, filepath.Join(dir, "pod-logs"))
}

func kubeProxyConfig(kubeconfig string) string {
	return fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: %q}
hostnameOverride: %s
mode: iptables
clusterCIDR: %s
detectLocalMode: ClusterCIDR
bindAddress: 127.0.0.1
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
# nf_conntrack_max is the machine's, not the namespace's: leave it.
conntrack: {maxPerCore: 0, min: 0}
`, kubeconfig, NodeName, clusterCIDR)
}

// egressConfig sends the API server's traffic to the cluster (logs, exec,
// Services' webhooks) through the node's CONNECT proxy on socket.
func egressConfig(socket string) string {
	return fmt.Sprintf(`apiVersion: apiserver.k8s.io/v1beta1
kind: EgressSelectorConfiguration
egressSelections:
- name: cluster
  connection:
    proxyProtocol: HTTPConnect
    transport:
      uds: {udsName: %q}
`, socket)
}
