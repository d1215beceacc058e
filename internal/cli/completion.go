package cli

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// completionTimeout keeps an unreachable cluster from hanging the shell.
const completionTimeout = 5 * time.Second

// completeTenantNames completes a command's one argument with the names of
// the tenants in the cluster the --kubeconfig and --context flags select.
func completeTenantNames(kube kubeFlags) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		c, err := kube.client()
		if err != nil {
			cobra.CompErrorln(err.Error())
			return nil, cobra.ShellCompDirectiveError
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), completionTimeout)
		defer cancel()
		list := &v1alpha1.TenantList{}
		if err := c.List(ctx, list); err != nil {
			cobra.CompErrorln(tenantError(err, "").Error())
			return nil, cobra.ShellCompDirectiveError
		}
		var names []cobra.Completion
		for _, t := range list.Items {
			if strings.HasPrefix(t.Name, toComplete) {
				names = append(names, t.Name)
			}
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}
