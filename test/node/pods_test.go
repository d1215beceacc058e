package node

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/landlord-dev/landlord/internal/nodeimage"
	"github.com/landlord-dev/landlord/internal/testenv"
)

const netcheckPort = 8080

// startPod runs the netcheck image in ns as the restricted Pod Security
// level admits it, and returns the pod once Running with an address.
func startPod(t *testing.T, ns, name string) *corev1.Pod {
	t.Helper()
	return runPod(t, core, ns, name)
}

// runPod is startPod through c.
func runPod(t *testing.T, c kubernetes.Interface, ns, name string) *corev1.Pod {
	t.Helper()
	created, err := c.CoreV1().Pods(ns).Create(ctx, netcheckPod(ns, name), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create pod %s/%s: %v", ns, name, err)
	}
	testenv.Eventually(t, 2*time.Minute, func() error {
		got, err := c.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		created = got
		for _, c := range got.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && got.Status.PodIP != "" {
				return nil
			}
		}
		return fmt.Errorf("pod %s/%s is %s, not Ready yet", ns, name, got.Status.Phase)
	})
	return created
}

// netcheckPod serves netcheck as the restricted Pod Security level admits.
func netcheckPod(ns, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{
			AutomountServiceAccountToken:  ptr.To(false),
			TerminationGracePeriodSeconds: ptr.To(int64(1)),
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot:   ptr.To(true),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Containers: []corev1.Container{{
				Name:  "netcheck",
				Image: nodeimage.Netcheck,
				Ports: []corev1.ContainerPort{{ContainerPort: netcheckPort}},
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: ptr.To(false),
					Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
				ReadinessProbe: &corev1.Probe{
					ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(netcheckPort)}},
					PeriodSeconds: 1,
				},
			}},
		},
	}
}

// exposeService puts a ClusterIP Service named like pod in front of it and
// returns its address, once its endpoint is ready.
func exposeService(t *testing.T, pod *corev1.Pod) string {
	t.Helper()
	svc, err := core.CoreV1().Services(pod.Namespace).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": pod.Name},
			Ports:    []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(netcheckPort)}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create service %s/%s: %v", pod.Namespace, pod.Name, err)
	}
	addr := net.JoinHostPort(svc.Spec.ClusterIP, "80")
	// The node reaches every Service once kube-proxy has its rules.
	client := env.Node.HTTPClient(2 * time.Second)
	testenv.Eventually(t, time.Minute, func() error {
		resp, err := client.Get("http://" + addr + "/")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	})
	return addr
}

// result is what netcheck's /dial answers.
type result struct {
	Reached bool   `json:"reached"`
	Failure string `json:"failure"`
	Body    string `json:"body"`
	Error   string `json:"error"`
}

// dial asks from's netcheck to fetch http://addr/: the connection is the
// pod's, judged by the policies of both ends.
func dial(t *testing.T, from *corev1.Pod, addr string) result {
	t.Helper()
	client := env.Node.HTTPClient(10 * time.Second)
	u := fmt.Sprintf("http://%s/dial?addr=%s", net.JoinHostPort(from.Status.PodIP, fmt.Sprint(netcheckPort)), url.QueryEscape(addr))
	resp, err := client.Get(u)
	if err != nil {
		t.Fatalf("ask %s/%s to dial %s: %v", from.Namespace, from.Name, addr, err)
	}
	defer resp.Body.Close()
	var r result
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("decode %s's answer: %v", from.Name, err)
	}
	return r
}

func podAddr(p *corev1.Pod) string {
	return net.JoinHostPort(p.Status.PodIP, fmt.Sprint(netcheckPort))
}

// reaches fails t unless from reaches addr, and answers as want.
func reaches(t *testing.T, from *corev1.Pod, addr, what string) {
	t.Helper()
	r := dial(t, from, addr)
	if !r.Reached {
		t.Errorf("%s/%s does not reach %s (%s): %s", from.Namespace, from.Name, what, addr, r.Error)
		return
	}
	t.Logf("reached: %s/%s -> %s (%s): %q", from.Namespace, from.Name, what, addr, r.Body)
}

// blocked fails t unless from's connection to addr is refused or gets no
// answer within netcheck's bound; any other failure (no route) is no proof.
func blocked(t *testing.T, from *corev1.Pod, addr, what string) {
	t.Helper()
	start := time.Now()
	r := dial(t, from, addr)
	if r.Reached {
		t.Errorf("%s/%s reaches %s (%s): %q", from.Namespace, from.Name, what, addr, r.Body)
		return
	}
	if r.Failure != "timeout" && r.Failure != "refused" {
		t.Errorf("%s/%s -> %s (%s) failed, but not as a policy drops: %s", from.Namespace, from.Name, what, addr, r.Error)
		return
	}
	t.Logf("blocked (%s): %s/%s -> %s (%s) after %s", r.Failure, from.Namespace, from.Name, what, addr, time.Since(start).Round(time.Millisecond))
}
