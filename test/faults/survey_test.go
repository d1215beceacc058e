package faults_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
	"github.com/landlord-dev/landlord/internal/render/rendertest"
)

// survey is what the cluster holds against what the Tenants render.
type survey struct {
	tenants, objects int
	// unconverged are Tenants not settled: deleting, a generation not
	// observed, or not Ready with nothing refused.
	unconverged []string
	// orphans are objects labelled for a tenant that no longer renders
	// them; lost are rendered objects missing; drifted are present without
	// every rendered field.
	orphans, lost, drifted []string
	// duplicates are objects two Tenants render, or namespaces two Tenants'
	// statuses hold.
	duplicates []string
	// plantedTaken are namespaces Landlord did not create that are gone,
	// terminating or marked as Landlord's.
	plantedTaken []string
}

func (s survey) settled() bool {
	return len(s.unconverged)+len(s.orphans)+len(s.lost)+len(s.drifted)+len(s.duplicates)+len(s.plantedTaken) == 0
}

// take surveys the cluster; planted are the namespaces Landlord must never
// take, refused to whichever Tenant lists or is labelled on them.
func take(planted []string) (survey, error) {
	var s survey
	tenants := &v1alpha1.TenantList{}
	if err := k8s.List(ctx, tenants); err != nil {
		return s, err
	}
	s.tenants = len(tenants.Items)
	desired := map[string]string{} // key -> tenant
	rendered := map[string]*unstructured.Unstructured{}
	heldBy := map[string]string{}
	claimedBy, err := plantedClaims(planted, &s)
	if err != nil {
		return s, err
	}
	for i := range tenants.Items {
		t := &tenants.Items[i]
		refused := slices.DeleteFunc(slices.Clone(planted), func(ns string) bool {
			return !slices.Contains(t.NamespaceNames(), ns) && claimedBy[ns] != t.Name
		})
		if why := unsettled(t, len(refused) > 0); why != "" {
			s.unconverged = append(s.unconverged, t.Name+": "+why)
			continue
		}
		for _, ns := range t.Status.Namespaces {
			if other, held := heldBy[ns.Name]; held && ns.Ready {
				s.duplicates = append(s.duplicates, fmt.Sprintf("namespace %s held by %s and %s", ns.Name, other, t.Name))
			} else if ns.Ready {
				heldBy[ns.Name] = t.Name
			}
		}
		objects, err := render.Objects(t, render.Holdings{Refused: planted})
		if err != nil {
			return s, fmt.Errorf("rendering %s: %w", t.Name, err)
		}
		byKey, err := rendertest.ByKey(objects)
		if err != nil {
			return s, err
		}
		for key, u := range byKey {
			if other, twice := desired[key]; twice {
				s.duplicates = append(s.duplicates, fmt.Sprintf("%s rendered by %s and %s", key, other, t.Name))
			}
			desired[key] = t.Name
			rendered[key] = u
		}
	}
	live, err := rendertest.Live(ctx, k8s, client.HasLabels{v1alpha1.TenantLabel}, client.MatchingLabels{v1alpha1.ManagedByLabel: v1alpha1.ManagedByValue})
	if err != nil {
		return s, err
	}
	s.objects = len(live)
	for key, got := range live {
		want, ok := rendered[key]
		switch {
		case !ok:
			s.orphans = append(s.orphans, key+" for tenant "+got.GetLabels()[v1alpha1.TenantLabel])
		case rendertest.NotHolding(want, got) != "":
			s.drifted = append(s.drifted, key+": "+rendertest.NotHolding(want, got))
		}
	}
	for key := range rendered {
		if live[key] == nil {
			s.lost = append(s.lost, key+" of tenant "+desired[key])
		}
	}
	return s, nil
}

// unsettled says why t has not converged, "" if it has; a Tenant refused
// a planted namespace need not be Ready.
func unsettled(t *v1alpha1.Tenant, refused bool) string {
	ready := apimeta.FindStatusCondition(t.Status.Conditions, v1alpha1.ReadyCondition)
	switch {
	case !t.DeletionTimestamp.IsZero():
		return "deleting"
	case t.Status.ObservedGeneration != t.Generation:
		return fmt.Sprintf("generation %d observed, %d written", t.Status.ObservedGeneration, t.Generation)
	case !refused && (ready == nil || ready.Status != metav1.ConditionTrue):
		return fmt.Sprintf("not Ready: %v", ready)
	}
	return ""
}

// plantedClaims checks the planted namespaces are untouched, recording
// those that are not, and returns the tenant each is labelled for.
func plantedClaims(planted []string, s *survey) (map[string]string, error) {
	claimedBy := map[string]string{}
	for _, name := range planted {
		ns := &corev1.Namespace{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: name}, ns); err != nil {
			s.plantedTaken = append(s.plantedTaken, fmt.Sprintf("namespace %s: %v", name, err))
			continue
		}
		if !ns.DeletionTimestamp.IsZero() || ns.Labels[v1alpha1.ManagedByLabel] != "" {
			s.plantedTaken = append(s.plantedTaken, fmt.Sprintf("namespace %s taken: deleting %t, labels %v", name, !ns.DeletionTimestamp.IsZero(), ns.Labels))
		}
		claimedBy[name] = ns.Labels[v1alpha1.TenantLabel]
	}
	return claimedBy, nil
}

// converge surveys every second until the cluster settles or timeout
// passes, and returns the last survey.
func converge(t *testing.T, planted []string, timeout time.Duration) survey {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s, err := take(planted)
		if err == nil && s.settled() {
			return s
		}
		if time.Now().After(deadline) {
			if err != nil {
				t.Fatalf("surveying: %v", err)
			}
			return s
		}
		time.Sleep(time.Second)
	}
}
