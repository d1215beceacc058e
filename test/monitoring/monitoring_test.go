// Package monitoring_test holds config/monitoring, the Grafana dashboard
// and the alerts the chart ships, to what landlord-controller exports: every
// expression parses as PromQL, and every metric, label matcher and
// grouping label it names is on /metrics of a running controller.
package monitoring_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql/parser"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/testenv"
)

var (
	ctx = context.Background()
	env *localcluster.Env
	k8s client.Client
	bin string
)

func TestMain(m *testing.M) {
	os.Exit(testenv.RunMainWithController(m, localcluster.Options{}, func(e *localcluster.Env, b string) (err error) {
		env, bin = e, b
		k8s, err = client.New(env.Config, client.Options{Scheme: manager.Scheme()})
		return err
	}))
}

// TestEveryExpressionNamesExportedMetrics runs landlord-controller with its
// webhooks, gives it two tenants (one with a source and a quota per
// namespace, one with a tenant-wide quota) and a denial of one tenant's
// write in the other's namespace, then checks each expression of the
// dashboard and the alerts against its /metrics.
func TestEveryExpressionNamesExportedMetrics(t *testing.T) {
	exprs := expressions(t)
	if len(exprs) < 20 {
		t.Fatalf("found %d expressions in config/monitoring, want the dashboard's and the alerts'", len(exprs))
	}
	controller, err := env.StartController(ctx, localcluster.ControllerOptions{Bin: bin})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = controller.Stop() })

	watched := tenant("watched", v1alpha1.QuotaScopeNamespace)
	watched.Spec.Sources = []v1alpha1.Source{{Name: "apps", Git: &v1alpha1.GitSource{URL: "https://git.example.com/watched/apps"}}}
	for _, tn := range []*v1alpha1.Tenant{watched, tenant("nosy", v1alpha1.QuotaScopeTenant)} {
		if err := k8s.Create(ctx, tn); err != nil {
			t.Fatal(err)
		}
	}
	deniedAcrossTenants(t)

	url := "http://" + controller.Metrics + "/metrics"
	testenv.Eventually(t, time.Minute, func() error {
		families, err := scrape(url)
		if err != nil {
			return err
		}
		var problems []string
		for _, e := range exprs {
			problems = append(problems, check(e, families)...)
		}
		if len(problems) > 0 {
			return fmt.Errorf("%d problems:\n%s", len(problems), strings.Join(problems, "\n"))
		}
		return nil
	})
	t.Logf("%d expressions, each metric and label they name exported", len(exprs))
}

// expression is one PromQL expression and where it was found.
type expression struct {
	where, expr string
}

// grafanaVariables stand for what Grafana substitutes before Prometheus
// sees an expression.
var grafanaVariables = strings.NewReplacer(
	"$__rate_interval", "5m", "$__interval", "1m", "$__range", "6h", `"$tenant"`, `".*"`,
)

// labelValues is Grafana's query of a variable's values, not PromQL.
var labelValues = regexp.MustCompile(`^label_values\((.+),\s*([a-zA-Z_]\w*)\)$`)

// expressions are those of config/monitoring as kustomize builds it: the
// dashboard's targets and variable queries, and the alerts' rules.
func expressions(t *testing.T) []expression {
	t.Helper()
	objects, err := config.Build(filesys.MakeFsOnDisk(), "../../config/monitoring")
	if err != nil {
		t.Fatal(err)
	}
	var out []expression
	for _, u := range objects {
		switch u.GetKind() {
		case "ConfigMap":
			data, _, _ := unstructured.NestedString(u.Object, "data", "landlord.json")
			out = append(out, dashboardExpressions(t, data)...)
		case "PrometheusRule":
			groups, _, _ := unstructured.NestedSlice(u.Object, "spec", "groups")
			for _, g := range groups {
				rules, _, _ := unstructured.NestedSlice(g.(map[string]any), "rules")
				for _, r := range rules {
					rule := r.(map[string]any)
					out = append(out, expression{where: "alert " + fmt.Sprint(rule["alert"]), expr: fmt.Sprint(rule["expr"])})
				}
			}
		default:
			t.Fatalf("config/monitoring has a %s this test does not read", u.GetKind())
		}
	}
	return out
}

type dashboard struct {
	Panels     []panel `json:"panels"`
	Templating struct {
		List []struct {
			Name  string `json:"name"`
			Type  string `json:"type"`
			Query any    `json:"query"`
		} `json:"list"`
	} `json:"templating"`
}

type panel struct {
	Title   string  `json:"title"`
	Panels  []panel `json:"panels"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}

func dashboardExpressions(t *testing.T, data string) []expression {
	t.Helper()
	var d dashboard
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		t.Fatalf("landlord.json: %v", err)
	}
	var out []expression
	var walk func([]panel)
	walk = func(panels []panel) {
		for _, p := range panels {
			for i, target := range p.Targets {
				out = append(out, expression{where: fmt.Sprintf("panel %q target %d", p.Title, i), expr: target.Expr})
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		query, _ := v.Query.(map[string]any)
		match := labelValues.FindStringSubmatch(fmt.Sprint(query["query"]))
		if match == nil {
			t.Fatalf("variable %s: query %v, want label_values(selector, label)", v.Name, v.Query)
		}
		// The label must be the selector's too: grouping by it checks that.
		out = append(out, expression{where: "variable " + v.Name, expr: fmt.Sprintf("count by (%s) (%s)", match[2], match[1])})
	}
	return out
}

// check parses e and lists what it names that families lack: a metric, a
// label a matcher reads, or a label an aggregation keeps.
func check(e expression, families map[string]*dto.MetricFamily) []string {
	text := grafanaVariables.Replace(e.expr)
	if strings.Contains(text, "$") {
		return []string{fmt.Sprintf("%s: a Grafana variable this test does not know: %s", e.where, e.expr)}
	}
	root, err := parser.ParseExpr(text)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", e.where, err)}
	}
	var problems []string
	parser.Inspect(root, func(node parser.Node, _ []parser.Node) error {
		switch n := node.(type) {
		case *parser.VectorSelector:
			labels, ok := labelsOf(n.Name, families)
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: %s is not exported", e.where, n.Name))
				return nil
			}
			for _, m := range n.LabelMatchers {
				if m.Name != model.MetricNameLabel && !labels[m.Name] {
					problems = append(problems, fmt.Sprintf("%s: %s has no label %s", e.where, n.Name, m.Name))
				}
			}
		case *parser.AggregateExpr:
			if n.Without {
				return nil
			}
			labels := map[string]bool{}
			parser.Inspect(n.Expr, func(inner parser.Node, _ []parser.Node) error {
				if vs, ok := inner.(*parser.VectorSelector); ok {
					l, _ := labelsOf(vs.Name, families)
					for name := range l {
						labels[name] = true
					}
				}
				return nil
			})
			for _, name := range n.Grouping {
				if !labels[name] {
					problems = append(problems, fmt.Sprintf("%s: %s by %s, a label none of its series has", e.where, n.Op, name))
				}
			}
		}
		return nil
	})
	return problems
}

// labelsOf is the label names of the series called name: a family's own,
// or a histogram's _bucket (with le), _sum or _count.
func labelsOf(name string, families map[string]*dto.MetricFamily) (map[string]bool, bool) {
	family, ok := families[name]
	suffix := ""
	if !ok {
		for _, s := range []string{"_bucket", "_sum", "_count"} {
			if base, found := strings.CutSuffix(name, s); found && families[base].GetType() == dto.MetricType_HISTOGRAM {
				family, suffix, ok = families[base], s, true
			}
		}
	}
	if !ok || len(family.GetMetric()) == 0 {
		return nil, false
	}
	labels := map[string]bool{}
	for _, m := range family.GetMetric() {
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = true
		}
	}
	if suffix == "_bucket" {
		labels["le"] = true
	}
	return labels, true
}

func scrape(url string) (map[string]*dto.MetricFamily, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("%s: %d %s", url, resp.StatusCode, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(resp.Body)
}

func tenant(name string, scope v1alpha1.QuotaScope) *v1alpha1.Tenant {
	return &v1alpha1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.TenantSpec{
			Namespaces: []v1alpha1.TenantNamespace{{Name: name + "-apps"}, {Name: name + "-jobs"}},
			Quota:      &v1alpha1.Quota{Scope: scope, Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("10")}},
		},
	}
}

// deniedAcrossTenants has nosy's reconciler, which a platform mistake made
// cluster-admin, write in watched-apps: the webhook refuses it (the API
// server's policy leaves writers holding a wildcard grant to it) and counts
// the denial.
func deniedAcrossTenants(t *testing.T) {
	t.Helper()
	reconciler := "system:serviceaccount:nosy-apps:nosy"
	testenv.Eventually(t, time.Minute, func() error {
		return k8s.Get(ctx, client.ObjectKey{Namespace: "watched-apps", Name: "watched"}, &corev1.ServiceAccount{})
	})
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "nosy-mistake"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "nosy-apps", Name: "nosy"}},
	}
	if err := k8s.Create(ctx, binding); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, binding) })
	nosy, err := client.New(env.ConfigFor(reconciler, "system:serviceaccounts", "system:authenticated"), client.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, func() error {
		err := nosy.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "watched-apps", Name: "planted"}})
		if err == nil {
			return fmt.Errorf("nosy wrote in watched-apps")
		}
		// The webhook answers NotFound for a namespace not the writer's
		// tenant's; only its denials are Landlord's metrics.
		if !strings.Contains(err.Error(), "admission webhook") && !apierrors.IsNotFound(err) {
			return fmt.Errorf("refused, but not by the webhook: %w", err)
		}
		return nil
	})
}
