package incluster

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/charts/chartrender"
	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/tenancy"
	"github.com/landlord-dev/landlord/internal/testenv"
	"github.com/landlord-dev/landlord/internal/webhook"
)

// Names of what an install creates and the controller writes.
const (
	deployment = "landlord-controller"
	container  = "manager"
	leaseName  = "landlord-controller.landlord.dev"
)

// controllerPods selects the controller's pods, as the Deployment does.
var controllerPods = client.MatchingLabels{"app.kubernetes.io/name": "landlord-controller"}

// installChart installs charts/landlord as helm template --include-crds
// renders it into landlord-system, two replicas of the imported image,
// after creating the namespace as helm install --create-namespace does.
func installChart(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	objects, err := renderChart(map[string]any{
		"replicas": 2,
		"image":    map[string]any{"repository": repository, "tag": tag, "pullPolicy": string(corev1.PullNever)},
	})
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenancy.ControllerNamespace}}
	if err := k8s.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	return applied(t, objects)
}

// renderChart renders the chart's CRDs and templates with values, as
// helm template --include-crds --namespace landlord-system does.
func renderChart(values map[string]any) ([]*unstructured.Unstructured, error) {
	return chartrender.Render(filepath.Join(moduleRoot, "charts", "landlord"), tenancy.ControllerNamespace, values)
}

// installKustomize installs config/default as landlord install does, with
// the Deployment's image set to the imported one as a kustomize images
// entry would.
func installKustomize(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	objects, err := config.Install()
	if err != nil {
		t.Fatal(err)
	}
	pinned := false
	for _, obj := range objects {
		if obj.GetKind() == "Deployment" && obj.GetName() == deployment {
			pinImage(t, obj)
			pinned = true
		}
	}
	if !pinned {
		t.Fatalf("config/default builds no Deployment %s", deployment)
	}
	return applied(t, objects)
}

// applied server-side applies objects as landlord install does and, when
// the test ends, deletes them but the CRDs and the Namespace.
func applied(t *testing.T, objects []*unstructured.Unstructured) []*unstructured.Unstructured {
	t.Helper()
	toApply := make([]client.Object, 0, len(objects))
	for _, obj := range objects {
		toApply = append(toApply, obj)
	}
	if _, err := install.Apply(ctx, k8s, logWriter{t}, toApply...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, obj := range objects {
			if obj.GetKind() == "CustomResourceDefinition" || obj.GetKind() == "Namespace" {
				continue
			}
			if err := k8s.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("delete %s %s: %v", obj.GetKind(), obj.GetName(), err)
			}
		}
		gone(t)
	})
	return objects
}

// pinImage points the controller's container at the imported image and
// forbids pulling, so that a missing import fails instead of pulling.
func pinImage(t *testing.T, d *unstructured.Unstructured) {
	t.Helper()
	containers, _, err := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range containers {
		if c := c.(map[string]any); c["name"] == container {
			c["image"] = repository + ":" + tag
			c["imagePullPolicy"] = string(corev1.PullNever)
		}
	}
	if err := unstructured.SetNestedSlice(d.Object, containers, "spec", "template", "spec", "containers"); err != nil {
		t.Fatal(err)
	}
}

// gone waits until the controller's pods are gone, then deletes what the
// controller itself wrote in its namespace, its lease and certificate, so
// that the next install starts as on a fresh cluster.
func gone(t *testing.T) {
	t.Helper()
	testenv.Eventually(t, 2*time.Minute, func() error {
		var pods corev1.PodList
		if err := k8s.List(ctx, &pods, client.InNamespace(tenancy.ControllerNamespace), controllerPods); err != nil {
			return err
		}
		if n := len(pods.Items); n > 0 {
			return fmt.Errorf("%d controller pods left", n)
		}
		return nil
	})
	var errs []error
	for _, obj := range []client.Object{
		&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: tenancy.ControllerNamespace, Name: leaseName}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: tenancy.ControllerNamespace, Name: webhook.SecretName}},
	} {
		if err := k8s.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		t.Error(err)
	}
}

// logWriter logs each write, such as an applied object's line, to t.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
