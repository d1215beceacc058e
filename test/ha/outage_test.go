package ha_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// TestOutageHoldsTenantsNotTheCluster kills every replica: the webhook
// fails closed for the kinds it judges, while the API server's policies
// go on judging the rest, workloads included, and the cluster's own
// controllers go on in the tenant's namespace: a Deployment and a Job
// admitted before the outage get their ReplicaSet and Pods, and a deleted
// namespace empties and goes.
func TestOutageHoldsTenantsNotTheCluster(t *testing.T) {
	r := startReplicas(t, 2)
	createReady(t, tenant("out"))
	owner := impersonate(t, "out-lead")
	const ns = "out-apps"

	// Stopped, the workload controllers act only once Landlord is down.
	if err := env.StopComponent(localcluster.ControllerManager); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.StartComponent(ctx, localcluster.ControllerManager) })
	labels := map[string]string{"app": "web"}
	deployment := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: restrictedPod()},
		},
	}
	jobPod := restrictedPod()
	jobPod.RestartPolicy = corev1.RestartPolicyNever
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "once"},
		Spec:       batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: jobPod}},
	}
	for _, obj := range []client.Object{deployment, job} {
		if err := owner.Create(ctx, obj); err != nil {
			t.Fatalf("before the outage, %T: %v", obj, err)
		}
	}

	for _, c := range r.Controllers {
		if err := c.Kill(); err != nil {
			t.Fatal(err)
		}
	}
	if err := env.StartComponent(ctx, localcluster.ControllerManager); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, func() error {
		pods := &corev1.PodList{}
		if err := k8s.List(ctx, pods, client.InNamespace(ns)); err != nil {
			return err
		}
		fromDeployment, fromJob := 0, 0
		for _, pod := range pods.Items {
			switch {
			case pod.Labels["app"] == "web":
				fromDeployment++
			case pod.Labels["job-name"] == "once":
				fromJob++
			}
		}
		if fromDeployment != 2 || fromJob != 1 {
			return fmt.Errorf("during the outage, %d Pods of the Deployment (want 2) and %d of the Job (want 1)", fromDeployment, fromJob)
		}
		return nil
	})

	held := map[string]error{
		"create a Secret": owner.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: "held-"}}),
		"bind a role":     owner.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: "held-"}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}}),
	}
	for write, err := range held {
		if err == nil || !strings.Contains(err.Error(), "failed calling webhook") {
			t.Errorf("the tenant's owner, during the outage, %s: %v, want a failed webhook call", write, err)
		}
	}
	escape := deployment.DeepCopy()
	escape.ObjectMeta = metav1.ObjectMeta{Namespace: ns, Name: "escape"}
	escape.Spec.Template.Spec.ServiceAccountName = "out"
	judged := map[string]struct {
		err  error
		want string
	}{
		"scale the Deployment":                        {owner.Patch(ctx, deployment, client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"replicas":3}}`))), ""},
		"delete the Job":                              {owner.Delete(ctx, job), ""},
		"run a Deployment as the tenant's reconciler": {owner.Create(ctx, escape), "LL012"},
	}
	for write, got := range judged {
		if got.want == "" && got.err != nil || got.want != "" && (got.err == nil || !strings.Contains(got.err.Error(), got.want)) {
			t.Errorf("the tenant's owner, during the outage, %s: %v, want %q from the API server's policy", write, got.err, got.want)
		}
	}

	if err := k8s.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, func() error {
		err := k8s.Get(ctx, client.ObjectKey{Name: ns}, &corev1.Namespace{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("namespace %s still there during the outage: %v", ns, err)
	})
}

// restrictedPod passes the restricted Pod Security level and asks for
// what it uses.
func restrictedPod() corev1.PodSpec {
	resources := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")}
	return corev1.PodSpec{
		SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
		Containers: []corev1.Container{{
			Name: "web", Image: "registry.example.com/web:1",
			Resources: corev1.ResourceRequirements{Requests: resources, Limits: resources},
			SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr.To(false),
				Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			},
		}},
	}
}
