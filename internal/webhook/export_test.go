package webhook

import (
	"time"

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
