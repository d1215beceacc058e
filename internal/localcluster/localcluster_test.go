package localcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// env is the control plane the package's tests share.
var env *Env

// TestMain starts the cluster itself: testenv.RunMain, which every other
// package uses, imports this one.
func TestMain(m *testing.M) {
	e, err := Start(context.Background(), Options{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "localcluster: %v\n", err)
		os.Exit(1)
	}
	env = e
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "localcluster: stop: %v\n", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

func clientFor(t *testing.T, cfg *rest.Config) kubernetes.Interface {
	t.Helper()
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// newNamespace creates a namespace with a unique name, deleted after the test.
func newNamespace(t *testing.T, client kubernetes.Interface) string {
	t.Helper()
	ns, err := client.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "test-"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		_ = client.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	return ns.Name
}

func TestAdminCreatesNamespace(t *testing.T) {
	newNamespace(t, clientFor(t, env.Config))
}

func TestRBACIsEnforced(t *testing.T) {
	admin := clientFor(t, env.Config)
	ns := newNamespace(t, admin)
	alice := clientFor(t, env.ConfigFor("alice", "team-a"))

	_, err := alice.CoreV1().ConfigMaps(ns).List(t.Context(), metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("list config maps without a binding: got %v, want Forbidden", err)
	}

	// The neighbour: a binding to the aggregated view role lets her read.
	if _, err := admin.RbacV1().RoleBindings(ns).Create(t.Context(), &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "team-a-view"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "team-a"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create role binding: %v", err)
	}
	// The authorizer learns of the binding from its informer, a moment on.
	var listErr error
	if err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		_, listErr = alice.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		return listErr == nil, nil
	}); err != nil {
		t.Fatalf("list config maps with a view binding: %v", listErr)
	}
	if _, err := alice.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "x"},
	}, metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("create config map with a view binding: got %v, want Forbidden", err)
	}
}

func TestAggregatedRolesHaveRules(t *testing.T) {
	admin := clientFor(t, env.Config)
	for _, name := range []string{"admin", "edit", "view"} {
		role, err := admin.RbacV1().ClusterRoles().Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get ClusterRole %s: %v", name, err)
		}
		if len(role.Rules) == 0 {
			t.Errorf("ClusterRole %s has no rules", name)
		}
	}
}

func TestTokenRequest(t *testing.T) {
	admin := clientFor(t, env.Config)
	ns := newNamespace(t, admin)
	if _, err := admin.CoreV1().ServiceAccounts(ns).Create(t.Context(), &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Name: "reconciler"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create service account: %v", err)
	}
	token, err := admin.CoreV1().ServiceAccounts(ns).CreateToken(t.Context(), "reconciler", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("request token: %v", err)
	}

	// The token authenticates as the service account.
	cfg := rest.AnonymousClientConfig(env.Config)
	cfg.BearerToken = token.Status.Token
	review, err := clientFor(t, cfg).AuthenticationV1().SelfSubjectReviews().Create(t.Context(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("review token: %v", err)
	}
	if got, want := review.Status.UserInfo.Username, "system:serviceaccount:"+ns+":reconciler"; got != want {
		t.Fatalf("token user: got %q, want %q", got, want)
	}
}

func TestNamespaceDeletionFinishes(t *testing.T) {
	// Parallel: the namespace controller waits 5s before it looks at a deletion.
	t.Parallel()
	admin := clientFor(t, env.Config)
	ns := newNamespace(t, admin)
	if _, err := admin.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "content"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create config map: %v", err)
	}
	if err := admin.CoreV1().Namespaces().Delete(t.Context(), ns, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete namespace: %v", err)
	}
	if err := wait.PollUntilContextTimeout(t.Context(), pollInterval, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := admin.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	}); err != nil {
		t.Fatalf("namespace %s still there: %v", ns, err)
	}
}

func TestMissingBinary(t *testing.T) {
	t.Setenv(BinDirEnv, t.TempDir())
	_, err := Start(t.Context(), Options{})
	if err == nil || !strings.Contains(err.Error(), "make tools") {
		t.Fatalf("got %v, want an error that says to run make tools", err)
	}
}

// startTimed starts an environment of its own and logs how long that took.
func startTimed(t *testing.T, opts Options) *Env {
	t.Helper()
	begin := time.Now()
	e, err := Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("control plane ready in %v", time.Since(begin).Round(time.Millisecond))
	return e
}

func TestStopLeavesNoProcess(t *testing.T) {
	t.Parallel()
	e := startTimed(t, Options{})
	procs := e.procs
	if err := e.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		// The pid is also the process group id.
		if err := syscall.Kill(-p.pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("%s (pid %d) after Stop: got %v, want ESRCH", p.name, p.pid, err)
		}
	}
	if _, err := os.Stat(e.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary directory after Stop: got %v, want it removed", err)
	}
}

func TestPersistentDirSurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := startTimed(t, Options{Dir: dir})
	ns := newNamespace(t, clientFor(t, first.Config))
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kubeconfig", "pki/ca.crt", "kube-apiserver.log"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s after Stop: %v", name, err)
		}
	}

	second := startTimed(t, Options{Dir: dir})
	t.Cleanup(func() {
		if err := second.Stop(); err != nil {
			t.Error(err)
		}
	})
	if _, err := clientFor(t, second.Config).CoreV1().Namespaces().Get(t.Context(), ns, metav1.GetOptions{}); err != nil {
		t.Fatalf("namespace of the first run: %v", err)
	}
}

func TestSweepRemovesOrphanedTempDirs(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	orphan, err := os.MkdirTemp("", tempDirPattern)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(orphan, ownerFile), []byte(strconv.Itoa(dead.Process.Pid)), 0o600); err != nil {
		t.Fatal(err)
	}
	sweepTempDirs()
	if _, err := os.Stat(orphan); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("directory of a dead owner: got %v, want it removed", err)
	}
	if _, err := os.Stat(env.Dir); err != nil {
		t.Errorf("directory of the running environment: %v", err)
	}
}
