// Command landlord is the platform admin's tool for multi-tenant Flux.
package main

import (
	"os"

	"github.com/landlord-dev/landlord/internal/cli"
)

func main() {
	os.Exit(cli.Execute(os.Args[1:], os.Stdout, os.Stderr))
}
