package localcluster

import (
	"context"
	"fmt"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

const pollInterval = 100 * time.Millisecond

// waitFor polls ready until it holds. It fails at once when a child exits,
// and on timeout quotes the log of owner, the child expected to make it hold.
func (e *Env) waitFor(ctx context.Context, owner *process, what string, ready func(context.Context) error) error {
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	for {
		checkCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := ready(checkCtx)
		cancel()
		if err == nil {
			return nil
		}
		for _, proc := range e.procs {
			select {
			case <-proc.exited():
				return fmt.Errorf("wait for %s: %w", what, proc.exitError())
			default:
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s: %w (last check: %v); end of %s:\n%s", what, ctx.Err(), err, owner.logPath, owner.tail())
		case <-ticker.C:
		}
	}
}

func etcdHealthy(url string) func(context.Context) error {
	return httpOK(url + "/health")
}

// httpOK holds once a GET of url answers 200.
func httpOK(url string) func(context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %s", url, resp.Status)
		}
		return nil
	}
}

func apiserverReady(client kubernetes.Interface) func(context.Context) error {
	return func(ctx context.Context) error {
		return client.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
	}
}

// adminRoleAggregated shows the controller manager runs its controllers:
// until clusterrole-aggregation-controller works, the admin role has no rules.
func adminRoleAggregated(client kubernetes.Interface) func(context.Context) error {
	return func(ctx context.Context) error {
		role, err := client.RbacV1().ClusterRoles().Get(ctx, "admin", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if len(role.Rules) == 0 {
			return fmt.Errorf("ClusterRole admin has no rules yet")
		}
		return nil
	}
}
