package node

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/internal/localcluster"
)

// TestNodeRunsPods: the node is Ready on containerd, and a pod of the test
// image runs and answers on its own address.
func TestNodeRunsPods(t *testing.T) {
	node, err := core.CoreV1().Nodes().Get(ctx, localcluster.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("node %s: kubelet %s, %s, %s", node.Name, node.Status.NodeInfo.KubeletVersion, node.Status.NodeInfo.ContainerRuntimeVersion, node.Status.NodeInfo.OSImage)
	ns := createNamespace(t, "node-smoke")
	pod := startPod(t, ns, "server")
	resp, err := env.Node.HTTPClient(0).Get("http://" + podAddr(pod) + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("pod answered %s", resp.Status)
	}
	t.Logf("pod %s/%s Running at %s on %s", ns, pod.Name, pod.Status.PodIP, pod.Spec.NodeName)
}

func createNamespace(t *testing.T, name string) string {
	t.Helper()
	if _, err := core.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return name
}
