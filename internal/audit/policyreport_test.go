package audit_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fluxcd/pkg/ssa/utils"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/audit"
	"github.com/landlord-dev/landlord/internal/cli"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// TestAuditPolicyReports installs the Policy Working Group's CRDs, as
// published, into the API server, which then judges `landlord audit -o
// policyreport` (dry-run create, strict field validation: an unknown or
// mistyped field fails); --write-reports puts them in the cluster, owned
// by the field manager landlord, one per tenant namespace with the
// tenant's checks.
func TestAuditPolicyReports(t *testing.T) {
	installReportCRDs(t)
	ochre := &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "ochre"}, Spec: v1alpha1.TenantSpec{
		Namespaces: []v1alpha1.TenantNamespace{{Name: "ochre-apps"}, {Name: "ochre-web"}},
	}}
	if err := k8s.Create(ctx, ochre); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, ochre) })
	run := func(args ...string) (stdout, stderr string) {
		var out, errOut bytes.Buffer
		cli.Execute(append([]string{"audit", "--kubeconfig", env.KubeconfigPath}, args...), &out, &errOut)
		return out.String(), errOut.String()
	}
	var checks []audit.Check
	testenv.Eventually(t, time.Minute, func() error {
		out, errOut := run("--tenant", "ochre", "-o", "json")
		checks = nil
		if err := json.Unmarshal([]byte(out), &checks); err != nil {
			return fmt.Errorf("%v: %s", err, errOut)
		}
		if c := checks[0]; c.Kind != "ready" || c.Result != audit.Pass {
			return fmt.Errorf("ochre not ready: %+v", c)
		}
		return nil
	})
	var tenantChecks, clusterChecks int
	for _, c := range checks {
		if c.Tenant == "ochre" {
			tenantChecks++
		} else {
			clusterChecks++
		}
	}

	out, errOut := run("--tenant", "ochre", "-o", "policyreport")
	reports, err := utils.ReadObjects(strings.NewReader(out))
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var names []string
	for _, r := range reports {
		names = append(names, r.GetKind()+" "+client.ObjectKeyFromObject(r).String())
		if err := k8s.Create(ctx, r.DeepCopy(), client.DryRunAll, client.FieldValidation("Strict")); err != nil {
			t.Errorf("the API server refuses %s %s: %v", r.GetKind(), client.ObjectKeyFromObject(r), err)
		}
		results, _, _ := unstructured.NestedSlice(r.Object, "results")
		want := tenantChecks
		if r.GetKind() == "ClusterPolicyReport" {
			want = clusterChecks
		}
		if len(results) != want {
			t.Errorf("%s %s: %d results, want %d", r.GetKind(), r.GetNamespace(), len(results), want)
		}
		summary, _, _ := unstructured.NestedMap(r.Object, "summary")
		if total := summary["pass"].(int64) + summary["fail"].(int64) + summary["skip"].(int64); total != int64(len(results)) {
			t.Errorf("%s %s: summary %v counts %d results of %d", r.GetKind(), r.GetNamespace(), summary, total, len(results))
		}
	}
	want := []string{"PolicyReport ochre-apps/landlord-audit", "PolicyReport ochre-web/landlord-audit", "ClusterPolicyReport /landlord-audit"}
	if !slices.Equal(names, want) {
		t.Errorf("reports %q, want %q", names, want)
	}

	// The schema is the judge: a result the CRD does not allow is refused.
	bad := reports[0].DeepCopy()
	results, _, _ := unstructured.NestedSlice(bad.Object, "results")
	results[0].(map[string]any)["result"] = "PASS"
	_ = unstructured.SetNestedSlice(bad.Object, results, "results")
	if err := k8s.Create(ctx, bad, client.DryRunAll, client.FieldValidation("Strict")); err == nil || !strings.Contains(err.Error(), "results[0].result") {
		t.Errorf("a result PASS: %v, want results[0].result refused", err)
	}

	_, errOut = run("--tenant", "ochre", "--write-reports")
	for _, name := range want {
		if !strings.Contains(errOut, strings.ToLower(name)+" written") {
			t.Errorf("--write-reports did not report %s written:\n%s", name, errOut)
		}
	}
	live := &unstructured.Unstructured{}
	live.SetAPIVersion(audit.ReportAPIVersion)
	live.SetKind("PolicyReport")
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "ochre-web", Name: audit.ReportName}, live); err != nil {
		t.Fatal(err)
	}
	if results, _, _ := unstructured.NestedSlice(live.Object, "results"); len(results) != tenantChecks {
		t.Errorf("written report holds %d results, want %d", len(results), tenantChecks)
	}
	if m := live.GetManagedFields(); len(m) != 1 || m[0].Manager != audit.ReportSource || m[0].Operation != metav1.ManagedFieldsOperationApply {
		t.Errorf("managed fields %+v, want one Apply by %s", m, audit.ReportSource)
	}

	// A full audit deletes Landlord's report where no tenant is any more,
	// and leaves the tenants' own.
	stale := reports[0].DeepCopy()
	stale.SetNamespace(metav1.NamespaceDefault)
	if err := k8s.Create(ctx, stale); err != nil {
		t.Fatal(err)
	}
	_, errOut = run("--write-reports")
	if !strings.Contains(errOut, "policyreport default/landlord-audit deleted") {
		t.Errorf("a full audit did not report the stale report deleted:\n%s", errOut)
	}
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(stale), stale); !apierrors.IsNotFound(err) {
		t.Errorf("stale report: %v, want NotFound", err)
	}
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(live), live); err != nil {
		t.Errorf("ochre's report after a full audit: %v", err)
	}
}

// installReportCRDs applies the vendored CRDs and waits for them.
func installReportCRDs(t *testing.T) {
	t.Helper()
	var crds []client.Object
	for _, name := range []string{"wgpolicyk8s.io_policyreports.yaml", "wgpolicyk8s.io_clusterpolicyreports.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "policyreport", name))
		if err != nil {
			t.Fatal(err)
		}
		objects, err := utils.ReadObjects(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objects {
			crds = append(crds, o)
		}
	}
	if _, err := install.Apply(ctx, k8s, io.Discard, crds...); err != nil {
		t.Fatal(err)
	}
}
