package cli_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

func TestTenantDeletePolicyDelete(t *testing.T) {
	t.Parallel()
	startLandlord(t)
	createReady(t, "del-a", "del-a-apps", "del-a-jobs")

	out, stderr, err := landlordLive("tenant", "delete", "del-a", "--wait", "--timeout", "3m")
	if err != nil {
		t.Fatalf("delete --wait: %v\nstderr:\n%s", err, stderr)
	}
	want := "tenant/del-a marked for deletion (deletionPolicy Delete: namespaces del-a-apps, del-a-jobs and their workloads are deleted)\n" +
		"tenant/del-a deleted with its namespaces\n"
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	if !strings.Contains(stderr, "waiting for tenant/del-a to be gone") || !strings.Contains(stderr, "namespaces left: ") {
		t.Errorf("no progress naming the namespaces left:\n%s", stderr)
	}
	if err := k8s.Get(ctx, client.ObjectKey{Name: "del-a"}, &v1alpha1.Tenant{}); !apierrors.IsNotFound(err) {
		t.Errorf("tenant del-a after delete --wait: %v, want NotFound", err)
	}
	for _, name := range []string{"del-a-apps", "del-a-jobs"} {
		if err := k8s.Get(ctx, client.ObjectKey{Name: name}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
			t.Errorf("namespace %s after delete --wait: %v, want NotFound", name, err)
		}
	}
}

func TestTenantDeletePolicyRetain(t *testing.T) {
	t.Parallel()
	startLandlord(t)
	createReady(t, "del-r", "del-r-apps")
	tenant := &v1alpha1.Tenant{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: "del-r"}, tenant); err != nil {
		t.Fatal(err)
	}
	// The CLI has no flag for the policy; a fleet repository would set it.
	patch := client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"deletionPolicy":"Retain"}}`))
	if err := k8s.Patch(ctx, tenant, patch); err != nil {
		t.Fatal(err)
	}

	out, stderr, err := landlordLive("tenant", "delete", "del-r", "--wait", "--timeout", "3m")
	if err != nil {
		t.Fatalf("delete --wait: %v\nstderr:\n%s", err, stderr)
	}
	want := "tenant/del-r marked for deletion (deletionPolicy Retain: namespaces del-r-apps and their workloads are kept, released from Landlord)\n" +
		"tenant/del-r deleted; namespaces kept: del-r-apps\n"
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	if err := k8s.Get(ctx, client.ObjectKey{Name: "del-r"}, &v1alpha1.Tenant{}); !apierrors.IsNotFound(err) {
		t.Errorf("tenant del-r after delete --wait: %v, want NotFound", err)
	}
	ns := &corev1.Namespace{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: "del-r-apps"}, ns); err != nil {
		t.Fatalf("namespace del-r-apps after delete --wait: %v, want it kept", err)
	}
	if !ns.DeletionTimestamp.IsZero() || ns.Labels[v1alpha1.TenantLabel] != "" {
		t.Errorf("namespace del-r-apps: deleting %v, labels %v; want it kept and released", !ns.DeletionTimestamp.IsZero(), ns.Labels)
	}
}

func TestTenantDeleteErrors(t *testing.T) {
	t.Parallel()
	startLandlord(t)
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"unknown tenant":       {[]string{"tenant", "delete", "nobody"}, "tenant nobody not found: 'landlord tenant list' shows the tenants"},
		"unknown with wait":    {[]string{"tenant", "delete", "nobody", "--wait"}, "tenant nobody not found: 'landlord tenant list' shows the tenants"},
		"timeout without wait": {[]string{"tenant", "delete", "nobody", "--timeout", "1m"}, "--timeout needs --wait"},
		"zero timeout":         {[]string{"tenant", "delete", "nobody", "--wait", "--timeout", "0s"}, "--timeout 0s: must be positive"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := landlordLive(tc.args...)
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v, want %s", err, tc.want)
			}
		})
	}
}
