// Package incluster runs Landlord as Pods on the local environment's node,
// installed from its own chart and from config/default with the image
// make image builds, its webhooks called by the API server through their
// Service: two replicas, one killed, admission answering throughout.
// `make test-node` runs it; it needs what test/node needs.
package incluster

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/charts"
	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/testenv"
)

// moduleRoot is the landlord module, whence make image builds.
const moduleRoot = "../.."

// repository names the controller's image; nothing serves it, so a pod
// that does not find the imported image cannot pull another.
const repository = "landlord.test/landlord-controller"

// The environment the tests share, set up once by TestMain.
var (
	ctx  = context.Background()
	env  *localcluster.Env
	k8s  client.Client
	core kubernetes.Interface
	// tag is the imported image's, the chart's appVersion.
	tag string
)

func TestMain(m *testing.M) {
	// LANDLORD_INCLUSTER_TEST_DIR keeps the environment's logs there; the
	// workload controllers turn the Deployment into pods.
	os.Exit(testenv.RunMainWith(m, localcluster.Options{Node: true, Workloads: true, Dir: os.Getenv("LANDLORD_INCLUSTER_TEST_DIR")}, func(e *localcluster.Env) error {
		env = e
		var err error
		if k8s, err = client.New(e.Config, client.Options{Scheme: manager.Scheme()}); err != nil {
			return err
		}
		if core, err = kubernetes.NewForConfig(e.Config); err != nil {
			return err
		}
		if err := importController(e); err != nil {
			return err
		}
		return fluxCRDs()
	}))
}

// importController builds the controller's image as make image does, for
// the node's architecture alone, and imports it into the node's containerd.
func importController(e *localcluster.Env) error {
	chart, err := charts.Chart()
	if err != nil {
		return err
	}
	tag = chart.AppVersion
	out := filepath.Join(e.Dir, "image")
	cmd := exec.CommandContext(ctx, "go", "run", "./hack/image",
		"-repository", repository, "-version", tag, "-platforms", "linux/"+runtime.GOARCH, "-out", out)
	cmd.Dir = moduleRoot
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("hack/image: %w\n%s", err, output)
	}
	// The docker-archive of one platform: ctr imports it under its tag.
	archive := filepath.Join(out, "landlord-controller-linux-"+runtime.GOARCH+".tar")
	if err := e.Node.ImportImage(ctx, archive); err != nil {
		return fmt.Errorf("import %s: %w", archive, err)
	}
	return nil
}

// fluxCRDs installs Flux's CRDs, which the controller watches: neither
// Landlord install carries them, since a cluster has Flux first.
func fluxCRDs() error {
	crds, err := config.CRDs()
	if err != nil {
		return err
	}
	var flux []client.Object
	for _, crd := range crds {
		if strings.HasSuffix(crd.Spec.Group, "toolkit.fluxcd.io") {
			crd.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
			flux = append(flux, crd)
		}
	}
	if len(flux) == 0 {
		return fmt.Errorf("no Flux CRD among config's %d", len(crds))
	}
	_, err = install.Apply(ctx, k8s, io.Discard, flux...)
	return err
}
