package localcluster

import (
	"fmt"
	"path/filepath"
	"strings"
)

// ports of one run of the environment.
type ports struct {
	etcdClient, etcdPeer, apiserver, controllerManager int
}

func etcdArgs(dir string, p ports, persistent bool) []string {
	client := fmt.Sprintf("http://127.0.0.1:%d", p.etcdClient)
	peer := fmt.Sprintf("http://127.0.0.1:%d", p.etcdPeer)
	args := []string{
		"--name=landlord",
		"--data-dir=" + filepath.Join(dir, "etcd"),
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=landlord=" + peer,
		// A single member on loopback: elect itself in milliseconds, not a second.
		"--heartbeat-interval=10",
		"--election-timeout=100",
	}
	if !persistent {
		// A throw-away store needs no durability, and fsync dominates its latency.
		args = append(args, "--unsafe-no-fsync")
	}
	return args
}

func apiserverArgs(dir string, p ports, certs *pki) []string {
	return []string{
		// Every write, by user, so tests can count who sent what.
		"--audit-policy-file=" + filepath.Join(dir, auditPolicyFile),
		"--audit-log-path=" + filepath.Join(dir, AuditLogFile),
		"--audit-log-format=json",
		// Never rotated: a count from a mark reads one file (1 TiB in MB).
		"--audit-log-maxsize=1048576",
		fmt.Sprintf("--etcd-servers=http://127.0.0.1:%d", p.etcdClient),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		// Endpoints may not be loopback addresses, and no pod needs the kubernetes Service.
		"--endpoint-reconciler-type=none",
		fmt.Sprintf("--secure-port=%d", p.apiserver),
		"--tls-cert-file=" + certs.path("apiserver.crt"),
		"--tls-private-key-file=" + certs.path("apiserver.key"),
		"--client-ca-file=" + certs.path("ca.crt"),
		"--authorization-mode=RBAC",
		// As kubeadm, kind and managed clusters run: Pod Security Admission,
		// not the server, is what refuses a tenant's privileged pod.
		"--allow-privileged=true",
		"--service-cluster-ip-range=" + serviceCIDR,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + certs.path("service-account.pub"),
		"--service-account-signing-key-file=" + certs.path("service-account.key"),
		// Served, a claim's data source may name another namespace: the
		// clusters that turn this alpha gate on are the ones LL020 guards.
		"--feature-gates=CrossNamespaceVolumeDataSource=true",
	}
}

func controllerManagerArgs(dir string, p ports, certs *pki, kubeconfig string, workloads, node bool) []string {
	// The controllers that work without nodes; workload controllers only
	// when asked, since no pod would ever run.
	controllers := []string{
		"namespace-controller",
		"garbage-collector-controller",
		"clusterrole-aggregation-controller",
		"serviceaccount-controller",
		"serviceaccount-token-controller",
		"root-ca-certificate-publisher-controller",
		"resourcequota-controller",
		"certificatesigningrequest-signing-controller",
		"certificatesigningrequest-approving-controller",
		"certificatesigningrequest-cleaner-controller",
		"validatingadmissionpolicy-status-controller",
	}
	if workloads {
		controllers = append(controllers, "deployment-controller", "replicaset-controller", "job-controller", "cronjob-controller")
	}
	if node {
		// kube-proxy routes Services to the EndpointSlices the first writes;
		// the second lifts the not-ready taint a kubelet registers with.
		controllers = append(controllers, "endpointslice-controller", "node-lifecycle-controller")
	}
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		// The API server has no front-proxy CA, so looking it up only logs errors.
		"--authentication-skip-lookup",
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", p.controllerManager),
		"--cert-dir=" + filepath.Join(dir, "kube-controller-manager"),
		"--leader-elect=false",
		"--use-service-account-credentials",
		"--controllers=" + strings.Join(controllers, ","),
		"--root-ca-file=" + certs.path("ca.crt"),
		"--service-account-private-key-file=" + certs.path("service-account.key"),
		"--cluster-signing-cert-file=" + certs.path("ca.crt"),
		"--cluster-signing-key-file=" + certs.path("ca.key"),
	}
}
