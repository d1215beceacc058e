// Command pause holds a pod's namespaces for the local node's sandboxes, as
// Kubernetes' pause image does: it waits for SIGTERM or SIGINT.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
}
