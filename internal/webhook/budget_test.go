package webhook_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/webhook"
)

// TestOneRequestBoundedWork: a RoleBinding whose subjects name thousands
// of namespaces the guard does not hold (each a read past its cache) is
// refused at once, naming the limit, instead of keeping the guard reading
// after the API server gave up; its neighbour, a binding of the tenant's
// own accounts and a few namespaces that do not exist, is admitted.
func TestOneRequestBoundedWork(t *testing.T) {
	reconciler := tenantNamespace(t, "budget")
	binding := func(name string, namespaces int) *rbacv1.RoleBinding {
		rb := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: "budget-apps", Name: name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: v1alpha1.DefaultRole},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "worker", Namespace: "budget-apps"}},
		}
		for i := range namespaces {
			rb.Subjects = append(rb.Subjects, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "x", Namespace: fmt.Sprintf("budget-missing-%d", i)})
		}
		return rb
	}
	start := time.Now()
	err := reconciler.Create(ctx, binding("huge", 4000), client.DryRunAll)
	took := time.Since(start)
	t.Logf("4,000 subjects: %v after %s", err, took)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("at most %d", webhook.MaxLiveReads)) {
		t.Errorf("a binding naming 4,000 namespaces: err = %v, want a refusal naming the limit of %d", err, webhook.MaxLiveReads)
	}
	// Within the budget, the missing namespaces are judged one by one (LL011).
	err = reconciler.Create(ctx, binding("few", 3), client.DryRunAll)
	if err == nil || !strings.Contains(err.Error(), "LL011") || strings.Contains(err.Error(), "at most") {
		t.Errorf("a binding naming 3 missing namespaces: err = %v, want LL011 for each, judged", err)
	}
	if err := reconciler.Create(ctx, binding("own", 0), client.DryRunAll); err != nil {
		t.Errorf("a binding of the tenant's own account: %v", err)
	}
}
