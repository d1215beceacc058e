package v1alpha1

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TenantResourceLabel names, on a stamped object, the TenantResource that
// declared it.
const TenantResourceLabel = "landlord.dev/tenant-resource"

// TenantResourceSpec is what the platform stamps into every namespace of
// the tenants it selects.
// +kubebuilder:validation:XValidation:rule="has(self.objects) || has(self.secrets)",message="spec must list objects or secrets to stamp"
type TenantResourceSpec struct {
	// TenantSelector selects Tenants by their labels; empty selects every
	// Tenant.
	// +optional
	TenantSelector metav1.LabelSelector `json:"tenantSelector,omitempty"`

	// Objects are stamped into each namespace of each selected tenant,
	// with ${TENANT_NAME}, ${TENANT_NAMESPACE} and the tenant's variables
	// substituted. Kinds a tenant namespace's guard watches: ConfigMap,
	// Secret, ServiceAccount, LimitRange, ResourceQuota and NetworkPolicy;
	// the namespace is Landlord's to set.
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:XValidation:rule="self.all(o, (o.apiVersion == 'v1' && o.kind in ['ConfigMap', 'Secret', 'ServiceAccount', 'LimitRange', 'ResourceQuota']) || (o.apiVersion == 'networking.k8s.io/v1' && o.kind == 'NetworkPolicy'))",message="spec.objects[] must be a v1 ConfigMap, Secret, ServiceAccount, LimitRange or ResourceQuota, or a networking.k8s.io/v1 NetworkPolicy"
	// +kubebuilder:validation:XValidation:rule="self.all(o, size(o.metadata.name) > 0 && !has(o.metadata.namespace) && !has(o.metadata.generateName))",message="spec.objects[].metadata must set a name and no namespace: each tenant namespace gets a copy"
	// +optional
	Objects []Manifest `json:"objects,omitempty"`

	// Secrets are copied from the controller's namespace into each
	// namespace of each selected tenant, image pull secrets among them;
	// tenants read the copies, never the source.
	// +kubebuilder:validation:MaxItems=20
	// +listType=map
	// +listMapKey=name
	// +optional
	Secrets []SecretCopy `json:"secrets,omitempty"`
}

// Manifest is one whole object, as in a YAML file. The schema names the
// fields the API server's rules read; Raw keeps all of it.
// +kubebuilder:pruning:PreserveUnknownFields
type Manifest struct {
	APIVersion string           `json:"apiVersion"`
	Kind       string           `json:"kind"`
	Metadata   ManifestMetadata `json:"metadata"`
	// Raw is the whole object as JSON.
	Raw []byte `json:"-"`
}

// ManifestMetadata is what Landlord reads of a Manifest's metadata.
// +kubebuilder:pruning:PreserveUnknownFields
type ManifestMetadata struct {
	Name string `json:"name"`
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// +optional
	GenerateName string `json:"generateName,omitempty"`
}

// MarshalJSON writes the whole object.
func (m Manifest) MarshalJSON() ([]byte, error) {
	if m.Raw == nil {
		return []byte("null"), nil
	}
	return m.Raw, nil
}

// UnmarshalJSON keeps the whole object and reads its identity.
func (m *Manifest) UnmarshalJSON(data []byte) error {
	var id struct {
		APIVersion string           `json:"apiVersion"`
		Kind       string           `json:"kind"`
		Metadata   ManifestMetadata `json:"metadata"`
	}
	if err := json.Unmarshal(data, &id); err != nil {
		return err
	}
	m.APIVersion, m.Kind, m.Metadata = id.APIVersion, id.Kind, id.Metadata
	m.Raw = append(m.Raw[:0], data...)
	return nil
}

// SecretCopy is one Secret of the controller's namespace copied into
// tenant namespaces.
type SecretCopy struct {
	// Name of the Secret in the controller's namespace.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`

	// As is the copies' name; the source's when empty.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +optional
	As string `json:"as,omitempty"`
}

// CopyName is the name of the copies in tenant namespaces.
func (s SecretCopy) CopyName() string {
	if s.As != "" {
		return s.As
	}
	return s.Name
}

// TenantResource declares platform objects kept in every namespace of the
// tenants it selects: drift corrected, protected from the tenants, pruned
// when the declaration changes, never written over a tenant's own object.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=tntres
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type TenantResource struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec TenantResourceSpec `json:"spec"`
}

// TenantResourceList is a list of TenantResources.
// +kubebuilder:object:root=true
type TenantResourceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []TenantResource `json:"items"`
}

func init() {
	SchemeBuilder.Register(&TenantResource{}, &TenantResourceList{})
}
