// Package v1alpha1 holds the landlord.dev/v1alpha1 API: the Tenant.
// +kubebuilder:object:generate=true
// +groupName=landlord.dev
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of the Tenant API.
	GroupVersion = schema.GroupVersion{Group: "landlord.dev", Version: "v1alpha1"}

	// SchemeBuilder registers the Tenant types with a runtime.Scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the Tenant types to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
