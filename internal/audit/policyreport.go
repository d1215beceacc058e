package audit

import (
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// The Kubernetes Policy Working Group's report kinds, which policy
// dashboards (Policy Reporter, Kyverno's UI) read.
const (
	ReportAPIVersion = "wgpolicyk8s.io/v1alpha2"
	// ReportName names Landlord's report in each namespace, and its
	// cluster-wide one.
	ReportName = "landlord-audit"
	// ReportSource is the source of every result.
	ReportSource = "landlord"
)

// report is the part of the v1alpha2 PolicyReport and ClusterPolicyReport
// schema Landlord fills.
type report struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Summary           summary  `json:"summary"`
	Results           []result `json:"results,omitempty"`
}

type summary struct {
	Pass  int `json:"pass"`
	Fail  int `json:"fail"`
	Warn  int `json:"warn"`
	Error int `json:"error"`
	Skip  int `json:"skip"`
}

type result struct {
	Source     string                   `json:"source"`
	Policy     string                   `json:"policy"`
	Rule       string                   `json:"rule"`
	Category   string                   `json:"category"`
	Severity   string                   `json:"severity"`
	Timestamp  metav1.Timestamp         `json:"timestamp"`
	Result     string                   `json:"result"`
	Scored     bool                     `json:"scored"`
	Resources  []corev1.ObjectReference `json:"resources,omitempty"`
	Message    string                   `json:"message,omitempty"`
	Properties map[string]string        `json:"properties,omitempty"`
}

// policies are the report's policy, category and severity of each kind of
// check: an identity that reaches past its tenant is worse than a tenant
// not yet provisioned.
var policies = map[string]struct{ policy, category, severity string }{
	"ready":     {"landlord-tenant-ready", "Provisioning", "medium"},
	"access":    {"landlord-tenant-access", "Authorization", "high"},
	"escape":    {"landlord-tenant-escape", "Admission", "high"},
	"census":    {"landlord-tenant-census", "Admission", "high"},
	"holdings":  {"landlord-tenant-holdings", "Ownership", "medium"},
	"released":  {"landlord-released-namespace", "Release", "high"},
	"role":      {"landlord-tenant-role", "Authorization", "high"},
	"flux":      {"landlord-flux-lockdown", "Flux lockdown", "high"},
	"admission": {"landlord-admission-policies", "Admission", "high"},
}

// PolicyReports turns checks into a PolicyReport in each namespace of
// each tenant checked (namespaces names them), holding the tenant's checks,
// and in each released namespace checked, holding its own; and a
// ClusterPolicyReport of the checks of no tenant, if any. All are named
// ReportName and stamped now.
func PolicyReports(checks []Check, namespaces map[string][]string, now time.Time) ([]*unstructured.Unstructured, error) {
	stamp := metav1.Timestamp{Seconds: now.Unix(), Nanos: int32(now.Nanosecond())}
	byNamespace := map[string]*report{}
	cluster := newReport("ClusterPolicyReport", "")
	add := func(r *report, c Check) error {
		res, err := toResult(c, stamp)
		if err != nil {
			return err
		}
		r.Results = append(r.Results, res)
		return nil
	}
	for _, c := range checks {
		var targets []string
		switch {
		case c.Namespace != "":
			targets = []string{c.Namespace}
		case c.Tenant != "":
			targets = namespaces[c.Tenant]
		}
		if len(targets) == 0 {
			if err := add(cluster, c); err != nil {
				return nil, err
			}
			continue
		}
		for _, ns := range targets {
			if byNamespace[ns] == nil {
				byNamespace[ns] = newReport("PolicyReport", ns)
			}
			if err := add(byNamespace[ns], c); err != nil {
				return nil, err
			}
		}
	}
	var reports []*report
	for _, ns := range slices.Sorted(maps.Keys(byNamespace)) {
		reports = append(reports, byNamespace[ns])
	}
	if len(cluster.Results) > 0 {
		reports = append(reports, cluster)
	}
	out := make([]*unstructured.Unstructured, 0, len(reports))
	for _, r := range reports {
		r.Summary = summarize(r.Results)
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(r)
		if err != nil {
			return nil, fmt.Errorf("converting %s %s: %w", r.Kind, r.Namespace, err)
		}
		unstructured.RemoveNestedField(u, "metadata", "creationTimestamp")
		out = append(out, &unstructured.Unstructured{Object: u})
	}
	return out, nil
}

func newReport(kind, namespace string) *report {
	return &report{
		TypeMeta: metav1.TypeMeta{APIVersion: ReportAPIVersion, Kind: kind},
		ObjectMeta: metav1.ObjectMeta{
			Name: ReportName, Namespace: namespace,
			Labels: map[string]string{"app.kubernetes.io/managed-by": ReportSource},
		},
	}
}

func toResult(c Check, stamp metav1.Timestamp) (result, error) {
	p, ok := policies[c.Kind]
	if !ok {
		return result{}, fmt.Errorf("check %q: kind %q has no policy in the report", c.Name, c.Kind)
	}
	r := result{
		Source: ReportSource, Policy: p.policy, Rule: c.Name, Category: p.category, Severity: p.severity,
		Timestamp: stamp, Scored: true, Message: c.Detail,
	}
	switch c.Result {
	case Pass:
		r.Result = "pass"
	case Fail:
		r.Result = "fail"
	case Skip:
		r.Result = "skip"
	default:
		return result{}, fmt.Errorf("check %q: result %q, want PASS, FAIL or SKIP", c.Name, c.Result)
	}
	if c.Tenant != "" {
		r.Resources = append(r.Resources, corev1.ObjectReference{APIVersion: v1alpha1.GroupVersion.String(), Kind: "Tenant", Name: c.Tenant})
		r.Properties = map[string]string{"tenant": c.Tenant}
	}
	if c.Namespace != "" {
		r.Resources = append(r.Resources, corev1.ObjectReference{APIVersion: "v1", Kind: "Namespace", Name: c.Namespace})
	}
	return r, nil
}

func summarize(results []result) summary {
	var s summary
	for _, r := range results {
		switch r.Result {
		case "pass":
			s.Pass++
		case "fail":
			s.Fail++
		case "skip":
			s.Skip++
		}
	}
	return s
}
