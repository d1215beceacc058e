package webhook

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// Decisions a webhook answers with, as the decision label.
const (
	decisionAllowed = "allowed"
	decisionDenied  = "denied"
	decisionErrored = "errored"
)

// admissionDuration is how long each webhook took to answer, by what it
// answered: controller-runtime's own histogram knows the path, not the
// decision, and a slow denial is not a slow admission.
var admissionDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
	Name:    "landlord_admission_duration_seconds",
	Help:    "Time the admission webhooks took to answer, by webhook (validate, mutate) and decision (allowed, denied, errored).",
	Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
}, []string{"webhook", "decision"})

func init() {
	metrics.Registry.MustRegister(admissionDuration)
}

// timed observes the time next takes to answer.
type timed struct {
	webhook string
	next    admission.Handler
}

var _ admission.Handler = timed{}

func (t timed) Handle(ctx context.Context, req admission.Request) admission.Response {
	start := time.Now()
	resp := t.next.Handle(ctx, req)
	admissionDuration.WithLabelValues(t.webhook, decision(resp)).Observe(time.Since(start).Seconds())
	return resp
}

// decision tells a denial, which carries a reason (Forbidden, NotFound or
// a rule id), from an error, which carries none.
func decision(resp admission.Response) string {
	switch {
	case resp.Allowed:
		return decisionAllowed
	case resp.Result != nil && resp.Result.Reason != "":
		return decisionDenied
	}
	return decisionErrored
}
