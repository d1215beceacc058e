package cli_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/manager"
)

// TestOwnersSeeTheirTenant: a tenant's owner gets, lists and reads the
// namespaces of its own Tenant through the CLI, and of no other; the
// other tenant's owner is refused the first's.
func TestOwnersSeeTheirTenant(t *testing.T) {
	t.Parallel()
	startLandlord(t)
	for _, name := range []string{"seen", "unseen"} {
		if _, stderr, err := landlordLive("tenant", "create", name, "--namespace", name+"-apps", "--owner", "User:"+name+"-lead", "--wait", "--timeout", "3m"); err != nil {
			t.Fatalf("tenant create %s: %v\n%s", name, err, stderr)
		}
		t.Cleanup(func() { _, _, _ = landlordLive("tenant", "delete", name) })
	}
	as := func(user string, args ...string) (string, error) {
		stdout, stderr, err := landlordLive(append([]string{"--as", user, "--as-group", "system:authenticated"}, args...)...)
		if err != nil {
			return stderr, err
		}
		return stdout, nil
	}

	out, err := as("seen-lead", "tenant", "list")
	if err != nil {
		t.Fatalf("tenant list as the owner: %v\n%s", err, out)
	}
	if row := tableRow(t, out, "seen"); row[1] != "seen-apps" {
		t.Errorf("owner's list row = %v, want seen with seen-apps", row)
	}
	if strings.Contains(out, "unseen") {
		t.Errorf("the owner's list shows another tenant:\n%s", out)
	}
	if out, err := as("seen-lead", "tenant", "get", "seen"); err != nil || !strings.Contains(out, "seen-apps") {
		t.Errorf("tenant get of its own tenant: err=%v\n%s", err, out)
	}
	for _, who := range []struct{ user, tenant string }{{"seen-lead", "unseen"}, {"unseen-lead", "seen"}} {
		if _, err := as(who.user, "tenant", "get", who.tenant); err == nil || !strings.Contains(err.Error(), "forbidden") {
			t.Errorf("%s getting tenant %s: err = %v, want forbidden", who.user, who.tenant, err)
		}
	}

	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "seen-lead", Groups: []string{"system:authenticated"}}
	owner, err := client.New(cfg, client.Options{Scheme: manager.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	if err := owner.Get(ctx, client.ObjectKey{Name: "seen-apps"}, &corev1.Namespace{}); err != nil {
		t.Errorf("owner reading its namespace: %v", err)
	}
	if err := owner.Get(ctx, client.ObjectKey{Name: "unseen-apps"}, &corev1.Namespace{}); !apierrors.IsForbidden(err) {
		t.Errorf("owner reading another tenant's namespace: err = %v, want forbidden", err)
	}
	if err := owner.List(ctx, &corev1.NamespaceList{}); !apierrors.IsForbidden(err) {
		t.Errorf("owner listing every namespace: err = %v, want forbidden", err)
	}
}
