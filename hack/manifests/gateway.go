package main

import (
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// gatewayAPI is the Gateway API module go.mod pins; its standard channel's
// CRDs of the kinds Landlord judges are copied into config/gateway/crd, for
// lint's schemas and the local control plane.
const gatewayAPI = "sigs.k8s.io/gateway-api"

// gatewayKinds are the CRDs copied, by plural: the routes, what they
// attach to, and the grants between namespaces.
var gatewayKinds = []string{"gatewayclasses", "gateways", "listenersets", "httproutes", "grpcroutes", "tlsroutes", "tcproutes", "udproutes", "referencegrants"}

func writeGatewayCRDs() {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", gatewayAPI).Output()
	if err != nil {
		log.Fatalf("go list -m %s: %v", gatewayAPI, err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "config", "crd", "standard")
	if err := os.RemoveAll("config/gateway/crd"); err != nil {
		log.Fatal(err)
	}
	for _, plural := range gatewayKinds {
		name := "gateway.networking.k8s.io_" + plural + ".yaml"
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			log.Fatal(err)
		}
		writeFile(filepath.Join("config/gateway/crd", name), "# Copied by `make generate` from "+gatewayAPI+"'s config/crd/standard; do not edit.\n"+string(data))
	}
}
