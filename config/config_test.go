package config_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/config"
	"github.com/landlord-dev/landlord/internal/install"
	"github.com/landlord-dev/landlord/internal/localcluster"
	"github.com/landlord-dev/landlord/internal/manager"
	"github.com/landlord-dev/landlord/internal/testenv"
)

var k8s client.Client

func TestMain(m *testing.M) {
	os.Exit(testenv.RunMain(m, func(env *localcluster.Env) (err error) {
		k8s, err = client.New(env.Config, client.Options{Scheme: manager.Scheme()})
		return err
	}))
}

// TestDefaultInstallApplies builds config/default with kustomize and applies
// it to a real apiserver: every object must be valid and admitted.
func TestDefaultInstallApplies(t *testing.T) {
	objects := build(t, "default")
	kinds := map[string]int{}
	for _, obj := range objects {
		kinds[obj.GetKind()]++
	}
	for kind, want := range map[string]int{
		"CustomResourceDefinition": 2, "ConfigMap": 1, "ClusterRole": 5, "ClusterRoleBinding": 1, "Role": 2,
		"RoleBinding": 2, "ServiceAccount": 1, "Namespace": 1, "Deployment": 1,
		"Service": 1, "ValidatingWebhookConfiguration": 1, "MutatingWebhookConfiguration": 1,
	} {
		if kinds[kind] != want {
			t.Errorf("%d %s objects, want %d", kinds[kind], kind, want)
		}
	}
	toApply := make([]client.Object, 0, len(objects))
	for _, obj := range objects {
		toApply = append(toApply, obj)
	}
	if _, err := install.Apply(context.Background(), k8s, io.Discard, toApply...); err != nil {
		t.Fatal(err)
	}
}

// TestFluxCRDsMatchTheEmbeddedOnes keeps config/flux/kustomization.yaml and
// the embedded CRDs in step.
func TestFluxCRDsMatchTheEmbeddedOnes(t *testing.T) {
	built := map[string]bool{}
	for _, obj := range build(t, "flux") {
		built[obj.GetName()] = true
	}
	crds, err := config.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, crd := range crds {
		if crd.Spec.Group == v1alpha1.GroupVersion.Group || crd.Spec.Group == "gateway.networking.k8s.io" {
			continue // Landlord's own, from crd/bases, and the Gateway API's
		}
		if !built[crd.Name] {
			t.Errorf("config/flux/kustomization.yaml lacks %s", crd.Name)
		}
		delete(built, crd.Name)
	}
	if len(built) > 0 {
		t.Errorf("config/flux lists CRDs that are not generated: %v", built)
	}
}

// TestInstallIsConfigDefault keeps the embedded tree, which the landlord
// binary installs from, the same as config/default on disk.
func TestInstallIsConfigDefault(t *testing.T) {
	embedded, err := config.Install()
	if err != nil {
		t.Fatal(err)
	}
	onDisk := build(t, "default")
	if len(embedded) != len(onDisk) {
		t.Fatalf("the embedded install has %d objects, config/default %d", len(embedded), len(onDisk))
	}
	for i := range onDisk {
		a, errA := json.Marshal(embedded[i].Object)
		b, errB := json.Marshal(onDisk[i].Object)
		if err := errors.Join(errA, errB); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("object %d: embedded %s %s, config/default has %s %s or a different spec",
				i, embedded[i].GetKind(), embedded[i].GetName(), onDisk[i].GetKind(), onDisk[i].GetName())
		}
	}
}

func build(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	objects, err := config.Build(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return objects
}
