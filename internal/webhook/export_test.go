package webhook

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// DenialCount reads landlord_admission_denials_total{tenant,rule}.
func DenialCount(tenant, rule string) float64 {
	m := &dto.Metric{}
	if err := denials.WithLabelValues(tenant, rule).Write(m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}

// TargetedCount reads landlord_admission_denials_targeting_total{tenant,rule}.
func TargetedCount(tenant, rule string) float64 {
	m := &dto.Metric{}
	if err := targeted.WithLabelValues(tenant, rule).Write(m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}

// NearExpiry issues certificates for opts with a sixth of their hour left.
func NearExpiry(opts Options) (map[string][]byte, error) {
	opts.setDefaults()
	hosts, err := opts.hosts()
	if err != nil {
		return nil, err
	}
	return issue(time.Now().Add(-50*time.Minute), time.Hour, hosts, nil)
}

// Answered counts the answers of one webhook ("validate" or "mutate").
func Answered(webhook string) uint64 {
	var n uint64
	for _, d := range []string{decisionAllowed, decisionDenied, decisionErrored} {
		m := &dto.Metric{}
		if err := admissionDuration.WithLabelValues(webhook, d).(prometheus.Histogram).Write(m); err != nil {
			panic(err)
		}
		n += m.GetHistogram().GetSampleCount()
	}
	return n
}
