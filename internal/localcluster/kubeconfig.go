package localcluster

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes a kubeconfig whose only context is user on server.
func writeKubeconfig(path, server string, caPEM []byte, user *clientcmdapi.AuthInfo) error {
	const name = "landlord-testenv"
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos[name] = user
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	cfg.CurrentContext = name
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	return nil
}

// adminConfig is the rest.Config of the system:masters client, with client-side
// throttling raised so tests are not slowed by it.
func adminConfig(server string, p *pki) *rest.Config {
	return &rest.Config{
		Host:  server,
		QPS:   200,
		Burst: 400,
		TLSClientConfig: rest.TLSClientConfig{
			CAData:   p.caPEM,
			CertData: p.adminCert,
			KeyData:  p.adminKey,
		},
	}
}
