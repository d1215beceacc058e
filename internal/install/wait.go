package install

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/polling"
	"github.com/fluxcd/cli-utils/pkg/kstatus/polling/engine"
	"github.com/fluxcd/cli-utils/pkg/kstatus/polling/statusreaders"
	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"github.com/fluxcd/cli-utils/pkg/object"
	"github.com/fluxcd/pkg/ssa"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// waitInterval is how often Wait reads the installed objects.
const waitInterval = time.Second

// describers are the kinds Wait waits on, each with how its state is told.
var describers = map[string]func(*unstructured.Unstructured, *status.Result) (string, *status.Result){
	"CustomResourceDefinition":       describeCRD,
	"Deployment":                     describeDeployment,
	"ValidatingWebhookConfiguration": webhooksStatus,
	"MutatingWebhookConfiguration":   webhooksStatus,
}

// Wait waits with kstatus (ssa's WaitForSet) until the CRDs among objects
// are established, the Deployments rolled out and the webhook
// configurations carry a CA bundle, printing a line whenever one's state
// changes, and fails after timeout naming those that are not ready.
func Wait(ctx context.Context, c client.Client, out io.Writer, objects []*unstructured.Unstructured, timeout time.Duration) error {
	var set object.ObjMetadataSet
	for _, obj := range objects {
		if describers[obj.GetKind()] != nil {
			set = append(set, object.UnstructuredToObjMetadata(obj))
		}
	}
	fmt.Fprintf(out, "waiting up to %s for %d objects to be ready\n", timeout, len(set))
	p := &progress{out: out, last: map[object.ObjMetadata]reading{}}
	reader := statusreaders.NewGenericStatusReader(c.RESTMapper(), p.compute)
	m := manager(c, polling.Options{CustomStatusReaders: []engine.StatusReader{reader}})
	err := m.WaitForSetWithContext(ctx, set, ssa.WaitOptions{Interval: waitInterval, Timeout: timeout})
	switch {
	case err == nil:
		fmt.Fprintln(out, "Landlord is ready")
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	// The poller has stopped: its last readings stand.
	var pending []string
	for _, id := range set {
		r, read := p.last[id]
		if !read {
			// Never read (an error, or not found): ssa's error says why.
			return fmt.Errorf("waiting for Landlord: %w", err)
		}
		if r.status != status.CurrentStatus {
			pending = append(pending, fmt.Sprintf("%s (%s)", name(id), r.state))
		}
	}
	return fmt.Errorf("not ready after --timeout %s: %s", timeout, strings.Join(pending, ", "))
}

// reading is one object's state as Wait last read it.
type reading struct {
	state  string
	status status.Status
}

// progress is kstatus' status function for Wait: it prints each change.
type progress struct {
	out  io.Writer
	last map[object.ObjMetadata]reading
}

func (p *progress) compute(u *unstructured.Unstructured) (*status.Result, error) {
	res, err := status.Compute(u)
	if err != nil {
		return nil, err
	}
	describe := describers[u.GetKind()]
	if describe == nil {
		return res, nil
	}
	state, res := describe(u, res)
	id := object.UnstructuredToObjMetadata(u)
	if p.last[id].state != state {
		fmt.Fprintf(p.out, "  %s: %s\n", name(id), state)
	}
	p.last[id] = reading{state: state, status: res.Status}
	return res, nil
}

func describeCRD(_ *unstructured.Unstructured, res *status.Result) (string, *status.Result) {
	switch res.Status {
	case status.CurrentStatus:
		return "established", res
	case status.InProgressStatus:
		return "not established yet", res
	}
	return res.Message, res
}

// describeDeployment counts available replicas; kstatus' message adds what
// else a rollout waits for when the count does not show it.
func describeDeployment(d *unstructured.Unstructured, res *status.Result) (string, *status.Result) {
	want, found, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
	if !found {
		want = 1
	}
	available, _, _ := unstructured.NestedInt64(d.Object, "status", "availableReplicas")
	state := fmt.Sprintf("available %d/%d", available, want)
	if res.Status != status.CurrentStatus && available == want {
		state += ": " + res.Message
	}
	return state, res
}

// webhooksStatus needs a CA bundle on every webhook: the controller writes
// it once it serves with its certificate, and kstatus cannot know that.
func webhooksStatus(config *unstructured.Unstructured, _ *status.Result) (string, *status.Result) {
	webhooks, _, _ := unstructured.NestedSlice(config.Object, "webhooks")
	missing := 0
	for _, w := range webhooks {
		bundle, _, _ := unstructured.NestedString(w.(map[string]any), "clientConfig", "caBundle")
		if bundle == "" {
			missing++
		}
	}
	if missing > 0 {
		state := fmt.Sprintf("no caBundle yet on %d of %d webhooks", missing, len(webhooks))
		return state, &status.Result{Status: status.InProgressStatus, Message: state}
	}
	return "caBundle set", &status.Result{Status: status.CurrentStatus, Message: "caBundle set"}
}
