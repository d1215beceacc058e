//go:build !linux

package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"
)

// runDevUp needs Linux: the local control plane's node runs in network
// namespaces, and its processes die with landlord through Pdeathsig.
func runDevUp(context.Context, *cobra.Command, devUpOptions) error {
	return errors.New("landlord dev up runs on Linux only: on another system run it in a Linux VM or container, or install Landlord into a cluster (landlord install)")
}
