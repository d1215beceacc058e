// Package e2e runs Landlord end to end with real Flux: a control plane, the
// Flux controllers locked down for multi-tenancy, Landlord with its
// admission webhooks, a Git server and a Helm chart repository, all local.
// Fleet and tenant repositories are made with the landlord CLI and pushed to
// the Git server; each scenario asserts what Flux and Landlord made of them.
//
// Run it with `make tools flux-tools` done, as `go test ./test/e2e/`.
package e2e
