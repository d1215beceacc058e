package ha_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/internal/webhook"
)

// TestEveryReplicaServesAlike asks each of three replicas directly, not
// only the leader: each presents the same certificate, which the webhook
// configuration's CA bundle trusts, and each judges a tenant's Ingress
// alike, whose hostname check reads a cache of its own; only the leader
// reconciles.
func TestEveryReplicaServesAlike(t *testing.T) {
	r := startReplicas(t, 3)
	createReady(t, tenant("alike"))
	leader, err := r.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}

	config := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: webhook.ConfigurationName}, config); err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(config.Webhooks[0].ClientConfig.CABundle) {
		t.Fatal("the webhook configuration holds no CA bundle")
	}
	var served []byte
	for i, c := range r.Controllers {
		addr := r.Service.Backends()[i]
		client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"}}}
		allowed := review(t, client, addr, ingress("alike-apps", "alike.example.com"))
		denied := review(t, client, addr, ingress("alike-apps", "elsewhere.example.com"))
		if !allowed.Allowed || denied.Allowed {
			t.Errorf("%s: an Ingress for the tenant's hostname allowed %t (%s), for another allowed %t, want true and false",
				c.Name, allowed.Allowed, allowed.Result.Message, denied.Allowed)
		}
		leaf := peerCertificate(t, addr, roots)
		if served == nil {
			served = leaf
		} else if !bytes.Equal(served, leaf) {
			t.Errorf("%s serves another certificate than %s", c.Name, r.Controllers[0].Name)
		}

		series, err := c.ReadMetrics(ctx)
		if err != nil {
			t.Fatal(err)
		}
		reconciles := 0.0
		for name, v := range series {
			if strings.HasPrefix(name, `controller_runtime_reconcile_total{controller="tenant"`) {
				reconciles += v
			}
		}
		if (c == leader) != (reconciles > 0) {
			t.Errorf("%s (leading: %t) reconciled %v times; want only the leader to reconcile", c.Name, c == leader, reconciles)
		}
	}
}

// review posts an AdmissionReview of the owner creating obj to the
// replica's webhook at addr and returns its answer.
func review(t *testing.T, c *http.Client, addr string, obj *networkingv1.Ingress) *admissionv1.AdmissionResponse {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(&admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:       types.UID("review-" + obj.Spec.Rules[0].Host),
			Kind:      metav1.GroupVersionKind{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress"},
			Resource:  metav1.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"},
			Namespace: obj.Namespace, Name: obj.Name,
			Operation: admissionv1.Create,
			UserInfo:  authenticationv1.UserInfo{Username: "alike-lead", Groups: []string{"system:authenticated"}},
			Object:    runtime.RawExtension{Raw: raw},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Post("https://"+addr+webhook.ValidatePath, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := &admissionv1.AdmissionReview{}
	if err := json.Unmarshal(answer, out); err != nil || out.Response == nil {
		t.Fatalf("%s: %s: %v", addr, answer, err)
	}
	if out.Response.Result == nil {
		out.Response.Result = &metav1.Status{}
	}
	return out.Response
}

// peerCertificate is the leaf certificate addr presents, verified with roots.
func peerCertificate(t *testing.T, addr string, roots *x509.CertPool) []byte {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"})
	if err != nil {
		t.Fatalf("%s: %v", addr, err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].Raw
}

// ingress serves host in ns.
func ingress(ns, host string) *networkingv1.Ingress {
	prefix := networkingv1.PathTypePrefix
	return &networkingv1.Ingress{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("web-%s", strings.ReplaceAll(host, ".", "-"))},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
			Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &prefix, Backend: networkingv1.IngressBackend{
				Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}},
			}}},
		}}}}},
	}
}
