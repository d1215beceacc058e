package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// installPollInterval is how often --wait reads the installed objects.
const installPollInterval = time.Second

// readiness is one object's state as --wait reports it.
type readiness struct {
	name  string
	state string
	ready bool
}

// readyChecks are the kinds --wait waits on, with what ready means for each.
var readyChecks = map[string]func(*unstructured.Unstructured) (state string, ready bool){
	"CustomResourceDefinition":       crdReady,
	"Deployment":                     deploymentReady,
	"ValidatingWebhookConfiguration": webhooksReady,
	"MutatingWebhookConfiguration":   webhooksReady,
}

// waitInstalled polls the objects --wait covers until all are ready,
// printing a line whenever one's state changes, and fails after timeout
// naming those that are not ready.
func waitInstalled(ctx context.Context, c client.Client, out io.Writer, objects []*unstructured.Unstructured, timeout time.Duration) error {
	var watched []*unstructured.Unstructured
	for _, obj := range objects {
		if readyChecks[obj.GetKind()] != nil {
			watched = append(watched, obj)
		}
	}
	fmt.Fprintf(out, "waiting up to %s for %d objects to be ready\n", timeout, len(watched))
	// Reads use the caller's context: cut off by the timeout, a read would
	// fail with a client error instead of the timeout's message.
	reads := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	seen := map[string]string{}
	var last []readiness
	err := wait.PollUntilContextCancel(ctx, installPollInterval, true, func(context.Context) (bool, error) {
		states, err := readinessOf(reads, c, watched)
		if err != nil {
			return false, err
		}
		last = states
		done := true
		for _, r := range states {
			if seen[r.name] != r.state {
				fmt.Fprintf(out, "  %s: %s\n", r.name, r.state)
				seen[r.name] = r.state
			}
			done = done && r.ready
		}
		return done, nil
	})
	switch {
	case err == nil:
		fmt.Fprintln(out, "Landlord is ready")
		return nil
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		var pending []string
		for _, r := range last {
			if !r.ready {
				pending = append(pending, fmt.Sprintf("%s (%s)", r.name, r.state))
			}
		}
		if len(pending) == 0 {
			pending = append(pending, "the first reading of the objects")
		}
		return fmt.Errorf("not ready after --timeout %s: %s", timeout, strings.Join(pending, ", "))
	}
	return err
}

func readinessOf(ctx context.Context, c client.Client, objects []*unstructured.Unstructured) ([]readiness, error) {
	states := make([]readiness, 0, len(objects))
	for _, obj := range objects {
		r := readiness{name: objectName(obj), state: "not found"}
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(obj.GroupVersionKind())
		err := c.Get(ctx, client.ObjectKeyFromObject(obj), live)
		switch {
		case err == nil:
			r.state, r.ready = readyChecks[obj.GetKind()](live)
		case !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("reading %s: %w", r.name, err)
		}
		states = append(states, r)
	}
	return states, nil
}

func crdReady(crd *unstructured.Unstructured) (string, bool) {
	conditions, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conditions {
		cond, _ := c.(map[string]any)
		if cond["type"] == "Established" && cond["status"] == "True" {
			return "established", true
		}
	}
	return "not established yet", false
}

// deploymentReady counts a Deployment ready once its controller saw the
// latest spec and every replica is updated and available.
func deploymentReady(d *unstructured.Unstructured) (string, bool) {
	want, found, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
	if !found {
		want = 1
	}
	observed, _, _ := unstructured.NestedInt64(d.Object, "status", "observedGeneration")
	updated, _, _ := unstructured.NestedInt64(d.Object, "status", "updatedReplicas")
	available, _, _ := unstructured.NestedInt64(d.Object, "status", "availableReplicas")
	state := fmt.Sprintf("available %d/%d", available, want)
	if observed < d.GetGeneration() {
		return state + ", rollout not observed yet", false
	}
	return state, updated == want && available == want
}

// webhooksReady needs a CA bundle on every webhook: the controller writes
// it once it serves with its certificate.
func webhooksReady(config *unstructured.Unstructured) (string, bool) {
	webhooks, _, _ := unstructured.NestedSlice(config.Object, "webhooks")
	missing := 0
	for _, w := range webhooks {
		bundle, _, _ := unstructured.NestedString(w.(map[string]any), "clientConfig", "caBundle")
		if bundle == "" {
			missing++
		}
	}
	if missing > 0 {
		return fmt.Sprintf("no caBundle yet on %d of %d webhooks", missing, len(webhooks)), false
	}
	return "caBundle set", true
}
