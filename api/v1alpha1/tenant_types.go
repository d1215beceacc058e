package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TenantSpec is what the platform admin grants one tenant.
// +kubebuilder:validation:XValidation:rule="size(self.namespaces) > 0 || has(self.selfService)",fieldPath=".namespaces",reason=FieldValueRequired,message="spec.namespaces must list at least one namespace unless spec.selfService is set"
// +kubebuilder:validation:XValidation:rule="!has(self.sources) || size(self.sources) == 0 || size(self.namespaces) > 0",fieldPath=".namespaces",reason=FieldValueRequired,message="spec.namespaces must list at least one namespace when spec.sources is set: the first one holds the Flux objects"
// +kubebuilder:validation:XValidation:rule="!has(self.sources) || self.sources.all(s, !has(s.targetNamespace) || self.namespaces.exists(n, n.name == s.targetNamespace) || (has(self.selfService) && s.targetNamespace.startsWith(self.selfService.prefix)))",fieldPath=".sources",message="spec.sources[].targetNamespace must be a namespace of this tenant: one of spec.namespaces[].name, or starting with spec.selfService.prefix"
// +kubebuilder:validation:XValidation:rule="!has(self.sources) || self.sources.all(s, !has(s.dependsOn) || s.dependsOn.all(d, d != s.name && self.sources.exists(o, o.name == d && has(o.git) == has(s.git))))",fieldPath=".sources",message="spec.sources[].dependsOn must name another source of this tenant of the same kind, git or template: the two kinds live in different namespaces"
type TenantSpec struct {
	// Namespaces assigned to the tenant by the platform. The first one holds
	// the tenant's Flux objects.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:default={}
	Namespaces []TenantNamespace `json:"namespaces"`

	// SelfService lets the tenant create its own namespaces within limits.
	// +optional
	SelfService *SelfService `json:"selfService,omitempty"`

	// NamespaceMetadata names the label and annotation keys the tenant may
	// add, change or remove on its namespaces, beyond those Kubernetes,
	// kubectl and Flux write; every other key is the platform's.
	// +optional
	NamespaceMetadata *NamespaceMetadata `json:"namespaceMetadata,omitempty"`

	// Owners are the humans and groups bound to the tenant role in every
	// tenant namespace.
	// +kubebuilder:validation:MaxItems=50
	// +optional
	Owners []Owner `json:"owners,omitempty"`

	// ServiceAccountName is the reconciler identity Flux impersonates in the
	// tenant's namespaces. Defaults to the tenant's name.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// Role is the ClusterRole bound to the reconciler and the owners in each
	// tenant namespace.
	// +kubebuilder:default=landlord-tenant
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:XValidation:rule="!(self in ['cluster-admin', 'system:masters'])",message="spec.role must not be cluster-admin: that role is not namespace-bound in effect"
	// +optional
	Role string `json:"role,omitempty"`

	// ExtraClusterRoles are platform-approved cluster-wide grants, bound with
	// a ClusterRoleBinding to the reconciler.
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:XValidation:rule="self.all(r, !(r in ['cluster-admin', 'admin', 'edit']))",message="spec.extraClusterRoles must not grant cluster-admin, admin or edit cluster-wide"
	// +optional
	ExtraClusterRoles []string `json:"extraClusterRoles,omitempty"`

	// Sources are the Git repositories Flux syncs for the tenant.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=20
	// +optional
	Sources []Source `json:"sources,omitempty"`

	// AllowedSources are URL patterns ('*' matches within a path segment, a
	// trailing '/*' any path below) that the tenant's own sources must match.
	// Empty allows any URL; a pattern is never empty and holds no space, so
	// that no entry passes for none.
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=512
	// +kubebuilder:validation:items:Pattern=`^[^\s]+$`
	// +optional
	AllowedSources []string `json:"allowedSources,omitempty"`

	// Variables are substituted by Flux into the tenant's manifests
	// (postBuild.substituteFrom), beside TENANT_NAME and TENANT_NAMESPACE.
	// +kubebuilder:validation:MaxProperties=100
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^[_a-zA-Z][_a-zA-Z0-9]*$'))",message="spec.variables keys must be shell-style names: letters, digits and '_', not starting with a digit"
	// +kubebuilder:validation:XValidation:rule="!('TENANT_NAME' in self) && !('TENANT_NAMESPACE' in self)",reason=FieldValueForbidden,message="spec.variables must not set TENANT_NAME or TENANT_NAMESPACE: Landlord sets them to the tenant's name and the namespace applied into"
	// +optional
	Variables map[string]string `json:"variables,omitempty"`

	// Quota caps the resources of each tenant namespace.
	// +optional
	Quota *Quota `json:"quota,omitempty"`

	// LimitRange sets container defaults and bounds in each tenant namespace.
	// +optional
	LimitRange *LimitRange `json:"limitRange,omitempty"`

	// Network isolates the tenant's namespaces from other tenants.
	// +kubebuilder:default={isolation: Tenant}
	// +optional
	Network Network `json:"network,omitempty"`

	// Scheduling bounds the priority of the tenant's pods and the nodes they
	// may select and tolerate.
	// +optional
	Scheduling *Scheduling `json:"scheduling,omitempty"`

	// Images bounds where the tenant's containers pull their images from;
	// absent, any image serves.
	// +optional
	Images *Images `json:"images,omitempty"`

	// Storage bounds the volumes the tenant's claims may provision.
	// +optional
	Storage *Storage `json:"storage,omitempty"`

	// Ingress bounds the classes and hostnames of the tenant's Ingresses,
	// and the hostnames of its Gateway API routes and listeners.
	// +optional
	Ingress *Ingress `json:"ingress,omitempty"`

	// Gateways bounds what the tenant's Gateway API routes attach to, and
	// the Gateways it may run itself.
	// +optional
	Gateways *Gateways `json:"gateways,omitempty"`

	// PodSecurity is the Pod Security Admission level enforced in each tenant
	// namespace.
	// +kubebuilder:default=restricted
	// +optional
	PodSecurity PodSecurityLevel `json:"podSecurity,omitempty"`

	// DeletionPolicy says what happens to the tenant's namespaces when they
	// leave the spec or the Tenant is deleted.
	// +kubebuilder:default=Delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// RequireResources makes every container of the tenant's workloads set
	// cpu and memory requests and limits.
	// +optional
	RequireResources bool `json:"requireResources,omitempty"`

	// AllowWorkloadIdentity lets the tenant's Flux objects use a cloud
	// provider's workload identity or another service account for fetching
	// and decryption; off, only static credentials of the namespace serve.
	// +optional
	AllowWorkloadIdentity bool `json:"allowWorkloadIdentity,omitempty"`

	// Suspend stops Flux syncing the tenant's sources; the guard rails stay.
	// +optional
	Suspend bool `json:"suspend,omitempty"`

	// Notifications send the events of the tenant's Flux objects to the
	// tenant's own channel, through a notification-controller Provider and
	// Alert in the tenant's first namespace.
	// +optional
	Notifications *Notifications `json:"notifications,omitempty"`

	// ClusterResources are the cluster-scoped objects the platform approved
	// for the tenant to write from its repositories, by kind and name;
	// every other cluster-scoped write stays refused.
	// +kubebuilder:validation:MaxItems=20
	// +optional
	ClusterResources []ClusterResource `json:"clusterResources,omitempty"`
}

// Notifications is the tenant's own channel for its Flux events.
// +kubebuilder:validation:XValidation:rule="has(self.secretRef) || has(self.address)",fieldPath=".address",reason=FieldValueRequired,message="spec.notifications needs an address or a secretRef whose Secret holds one"
type Notifications struct {
	// Type is the notification-controller Provider type: slack, msteams,
	// discord, generic, alertmanager, ... as its Provider API lists them.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z][-a-z0-9]*$`
	Type string `json:"type"`

	// Channel is the Provider's channel, where its type has one.
	// +kubebuilder:validation:MaxLength=2048
	// +optional
	Channel string `json:"channel,omitempty"`

	// Address is the Provider's address, when it is not secret.
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^(http|https)://.*$`
	// +optional
	Address string `json:"address,omitempty"`

	// SecretRef names the Secret with the Provider's address and token,
	// which the tenant supplies in its first namespace.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +optional
	SecretRef string `json:"secretRef,omitempty"`

	// EventSeverity is the lowest severity sent: info sends every event,
	// error only failures.
	// +kubebuilder:validation:Enum=info;error
	// +kubebuilder:default=info
	// +optional
	EventSeverity string `json:"eventSeverity,omitempty"`
}

// ClusterResource is one kind of cluster-scoped object the platform
// approved for the tenant, at the names listed.
// +kubebuilder:validation:XValidation:rule="!(self.apiGroup in ['rbac.authorization.k8s.io', 'admissionregistration.k8s.io', 'apiregistration.k8s.io', 'certificates.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'landlord.dev', 'node.k8s.io', 'flowcontrol.apiserver.k8s.io']) && !(size(self.apiGroup) == 0 && self.kind in ['Namespace', 'Node', 'PersistentVolume'])",fieldPath=".kind",reason=FieldValueForbidden,message="spec.clusterResources must not approve RBAC, admission, API registration, certificate, Landlord, RuntimeClass, API priority and fairness, Namespace, Node or PersistentVolume kinds: each hands a tenant the cluster, another tenant's data, or how other tenants' pods and requests run"
type ClusterResource struct {
	// APIGroup of the kind, "" for the core group.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	APIGroup string `json:"apiGroup"`

	// Kind of the objects, as in their manifests: StorageClass,
	// CustomResourceDefinition, PriorityClass, ...
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Z][A-Za-z0-9]*$`
	Kind string `json:"kind"`

	// Names the tenant may create, change and delete objects of the kind at.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	Names []string `json:"names"`
}

// TenantNamespace is one namespace assigned by the platform.
type TenantNamespace struct {
	// Name of the namespace.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:XValidation:rule="!(self in ['default', 'kube-system', 'kube-public', 'kube-node-lease', 'flux-system', 'landlord-system', 'landlord-templates'])",reason=FieldValueForbidden,message="spec.namespaces[].name must not be a platform namespace: default, kube-system, kube-public, kube-node-lease, flux-system, landlord-system, or landlord-templates, which holds the template sources of every tenant"
	Name string `json:"name"`
}

// SelfService bounds the namespaces a tenant may create itself.
type SelfService struct {
	// Prefix every self-service namespace name must start with.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=40
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*)?$`
	Prefix string `json:"prefix"`

	// MaxNamespaces is how many self-service namespaces may exist at once.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	MaxNamespaces int32 `json:"maxNamespaces"`
}

// NamespaceMetadata lists key patterns: '*' matches any run of characters,
// so "example.com/*" allows every key of that prefix. Landlord's own and
// the pod-security labels stay the platform's whatever the patterns say.
type NamespaceMetadata struct {
	// AllowedLabels are the label keys the tenant may write.
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=317
	// +kubebuilder:validation:items:Pattern=`^[-A-Za-z0-9_./*]+$`
	// +optional
	AllowedLabels []string `json:"allowedLabels,omitempty"`

	// AllowedAnnotations are the annotation keys the tenant may write.
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=317
	// +kubebuilder:validation:items:Pattern=`^[-A-Za-z0-9_./*]+$`
	// +optional
	AllowedAnnotations []string `json:"allowedAnnotations,omitempty"`
}

// Owner is a subject bound to the tenant role.
// +kubebuilder:validation:XValidation:rule="(self.kind == 'ServiceAccount') == has(self.namespace)",message="spec.owners[].namespace is required for kind ServiceAccount and not allowed otherwise"
// +kubebuilder:validation:XValidation:rule="self.kind != 'Group' || !(self.name in ['system:authenticated', 'system:unauthenticated', 'system:serviceaccounts'])",fieldPath=".name",reason=FieldValueForbidden,message="spec.owners[].name must not be system:authenticated, system:unauthenticated or system:serviceaccounts: every user, or every service account, would own the tenant"
type Owner struct {
	// Kind of the subject.
	// +kubebuilder:validation:Enum=User;Group;ServiceAccount
	Kind string `json:"kind"`

	// Name of the subject.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Name string `json:"name"`

	// Namespace of a ServiceAccount subject.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// Source is one repository Flux syncs into the tenant's namespaces.
// +kubebuilder:validation:XValidation:rule="has(self.git) != has(self.template)",message="spec.sources[] must set exactly one of git or template"
type Source struct {
	// Name of the GitRepository and Kustomization made for this source.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// Git is the tenant's own repository; it must match allowedSources.
	// +optional
	Git *GitSource `json:"git,omitempty"`

	// Template is a platform-owned repository stamped for this tenant with
	// its variables; allowedSources does not apply to it.
	// +optional
	Template *GitSource `json:"template,omitempty"`

	// Path to the directory in the repository to build.
	// +kubebuilder:default="./"
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="!self.contains('..')",message="spec.sources[].path must not contain '..'"
	// +optional
	Path string `json:"path,omitempty"`

	// Interval between syncs.
	// +kubebuilder:default="5m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern="^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$"
	// +optional
	Interval *metav1.Duration `json:"interval,omitempty"`

	// Prune deletes objects removed from the repository.
	// +kubebuilder:default=true
	// +optional
	Prune *bool `json:"prune,omitempty"`

	// Timeout for building, applying and health-checking.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern="^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$"
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// Decryption of SOPS-encrypted manifests.
	// +optional
	Decryption *Decryption `json:"decryption,omitempty"`

	// TargetNamespace overrides the namespace of every object of this
	// source; it must be a namespace of this tenant.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	TargetNamespace string `json:"targetNamespace,omitempty"`

	// DependsOn names sources of this tenant, of the same kind, that must
	// be Ready first.
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:items:MaxLength=63
	// +optional
	DependsOn []string `json:"dependsOn,omitempty"`
}

// GitSource points at a Git repository.
type GitSource struct {
	// URL of the repository.
	// +kubebuilder:validation:Pattern="^(http|https|ssh)://.*$"
	URL string `json:"url"`

	// Ref to check out; the remote's default branch when empty.
	// +optional
	Ref *GitRef `json:"ref,omitempty"`

	// SecretRef names a Secret in the tenant's first namespace holding the
	// Git credentials.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	SecretRef string `json:"secretRef,omitempty"`
}

// GitRef selects one revision of a repository.
// +kubebuilder:validation:XValidation:rule="[has(self.branch), has(self.tag), has(self.semver), has(self.commit)].filter(x, x).size() <= 1",message="spec.sources[].git.ref must set at most one of branch, tag, semver or commit"
type GitRef struct {
	// +optional
	Branch string `json:"branch,omitempty"`
	// +optional
	Tag string `json:"tag,omitempty"`
	// +optional
	SemVer string `json:"semver,omitempty"`
	// +kubebuilder:validation:Pattern=`^[0-9a-f]{7,64}$`
	// +optional
	Commit string `json:"commit,omitempty"`
}

// Decryption configures how Flux decrypts a source's secrets.
// +kubebuilder:validation:XValidation:rule="has(self.secretRef) && size(self.secretRef) > 0",fieldPath=".secretRef",reason=FieldValueRequired,message="spec.sources[].decryption.secretRef is required: without keys of its own, kustomize-controller would decrypt with its own (LL005)"
type Decryption struct {
	// Provider of the decryption; optional so that Go clients get the
	// default.
	// +kubebuilder:validation:Enum=sops
	// +kubebuilder:default=sops
	// +optional
	Provider string `json:"provider,omitempty"`

	// SecretRef names a Secret in the tenant's first namespace holding the
	// decryption keys.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	SecretRef string `json:"secretRef,omitempty"`
}

// Quota is the ResourceQuota of the tenant's namespaces.
type Quota struct {
	// Hard limits, as in a ResourceQuota.
	Hard corev1.ResourceList `json:"hard"`

	// Scope Namespace gives each tenant namespace the whole of hard;
	// Tenant holds the sum over all of them, self-service ones included,
	// to hard: each namespace's ResourceQuota is what it uses plus an
	// equal share of what the tenant has left, resized as use changes.
	// +kubebuilder:validation:Enum=Namespace;Tenant
	// +kubebuilder:default=Namespace
	// +optional
	Scope QuotaScope `json:"scope,omitempty"`
}

// QuotaScope is what a Quota's hard limits hold: each namespace, or the
// tenant's namespaces together.
type QuotaScope string

const (
	QuotaScopeNamespace QuotaScope = "Namespace"
	QuotaScopeTenant    QuotaScope = "Tenant"
)

// TenantWide reports a quota held by the sum over the tenant's namespaces.
func (q *Quota) TenantWide() bool {
	return q != nil && q.Scope == QuotaScopeTenant
}

// LimitRange is the LimitRange of each tenant namespace.
type LimitRange struct {
	// Limits, as in a LimitRange.
	// +kubebuilder:validation:MinItems=1
	Limits []corev1.LimitRangeItem `json:"limits"`
}

// Network is the tenant's network isolation.
type Network struct {
	// Isolation Tenant denies ingress from namespaces of other tenants and
	// allows it from the tenant's own; None renders no NetworkPolicy.
	// +kubebuilder:validation:Enum=Tenant;None
	// +kubebuilder:default=Tenant
	// +optional
	Isolation NetworkIsolation `json:"isolation,omitempty"`

	// AllowFrom lists namespaces, such as an ingress controller's, from which
	// ingress is allowed too.
	// +kubebuilder:validation:MaxItems=50
	// +optional
	AllowFrom []string `json:"allowFrom,omitempty"`

	// AllowServiceTypes are the Service types beyond ClusterIP the tenant
	// may create. ExternalName is off by default: through an Ingress it
	// proxies to any name, another tenant's Services included.
	// +kubebuilder:validation:items:Enum=NodePort;LoadBalancer;ExternalName
	// +kubebuilder:validation:MaxItems=3
	// +optional
	AllowServiceTypes []corev1.ServiceType `json:"allowServiceTypes,omitempty"`
}

// Scheduling lists what the tenant's pods may choose beyond the safe
// defaults; the cluster's defaults always serve.
type Scheduling struct {
	// PriorityClasses pods may name in priorityClassName, beside the
	// cluster's globalDefault class, which pods naming none receive.
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +optional
	PriorityClasses []string `json:"priorityClasses,omitempty"`

	// NodeLabels are the node labels pods may select nodes by, in a
	// nodeSelector or node affinity, beside kubernetes.io/os,
	// kubernetes.io/arch, topology.kubernetes.io/zone and
	// topology.kubernetes.io/region, which any pod may name.
	// +listType=map
	// +listMapKey=key
	// +kubebuilder:validation:MaxItems=20
	// +optional
	NodeLabels []NodeLabel `json:"nodeLabels,omitempty"`

	// Tolerations are the taints pods may tolerate, beside the node
	// conditions (node.kubernetes.io/not-ready, unreachable,
	// memory-pressure, disk-pressure, pid-pressure, network-unavailable,
	// unschedulable) that Kubernetes' own controllers tolerate for pods.
	// +kubebuilder:validation:MaxItems=20
	// +optional
	Tolerations []AllowedToleration `json:"tolerations,omitempty"`
}

// NodeLabel is a node label key pods may select on.
type NodeLabel struct {
	// Key of the node label.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`
	Key string `json:"key"`

	// Values pods may ask for; empty allows any value.
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
	// +optional
	Values []string `json:"values,omitempty"`
}

// AllowedToleration is a taint pods may tolerate.
type AllowedToleration struct {
	// Key of the taint; a toleration of every key is never allowed.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`
	Key string `json:"key"`

	// Value of the taint; empty allows any value, and operator Exists.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
	// +optional
	Value string `json:"value,omitempty"`

	// Effect of the taint; empty allows any effect, and a toleration of
	// every effect.
	// +kubebuilder:validation:Enum=NoSchedule;PreferNoSchedule;NoExecute
	// +optional
	Effect corev1.TaintEffect `json:"effect,omitempty"`
}

// Images lists the registries and repositories the tenant's containers may
// pull from.
type Images struct {
	// Allowed are image name prefixes: a registry ("registry.example.com",
	// "docker.io"), or a registry and a repository path below it
	// ("registry.example.com/team", "docker.io/library"); a registry is a
	// name with a dot or a port, or localhost. An image is
	// allowed when its full name (Docker Hub's short names expanded, nginx
	// as docker.io/library/nginx) is a prefix or continues one with "/";
	// "registry.example.com/team" allows neither
	// "registry.example.com/team-b/app" nor
	// "registry.example.com.evil.io/team/app". Empty allows no image.
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MaxLength=255
	// +kubebuilder:validation:items:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+(:[0-9]+)?|[a-z0-9]([-a-z0-9]*[a-z0-9])?:[0-9]+|localhost)(/[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*)*$`
	// +optional
	Allowed []string `json:"allowed,omitempty"`

	// PullAlways requires imagePullPolicy Always on every container, so
	// that a node never starts, from its cache, an image another tenant
	// pulled with credentials this tenant lacks.
	// +optional
	PullAlways bool `json:"pullAlways,omitempty"`
}

// Storage lists the StorageClasses the tenant's claims may name.
type Storage struct {
	// Classes claims may name in storageClassName, beside the cluster's
	// default StorageClass, which claims naming none receive.
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +optional
	Classes []string `json:"classes,omitempty"`
}

// Gateways lists the platform's Gateways the tenant's routes may attach
// to, and the GatewayClasses of the Gateways it may run in its own
// namespaces, to which its routes attach too. Their hostnames are those
// of spec.ingress.hostnames, held against every other tenant's Ingresses,
// routes and listeners.
type Gateways struct {
	// Allowed are the platform's Gateways, as namespace/name, that the
	// tenant's HTTPRoutes, GRPCRoutes, TLSRoutes, TCPRoutes, UDPRoutes and
	// ListenerSets may name as a parent. Empty allows none.
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:items:MaxLength=317
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	// +optional
	Allowed []string `json:"allowed,omitempty"`

	// Classes are the GatewayClasses of the Gateways the tenant may create
	// in its namespaces. Empty allows none: Gateways are the platform's.
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	// +optional
	Classes []string `json:"classes,omitempty"`
}

// Ingress lists the IngressClasses and hostnames the tenant's Ingresses
// may use. A hostname another tenant's Ingress holds is refused whatever
// the lists say.
type Ingress struct {
	// Classes Ingresses may name, beside the cluster's default
	// IngressClass, which Ingresses naming none receive.
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	// +optional
	Classes []string `json:"classes,omitempty"`

	// Hostnames Ingresses may serve, in rules and TLS, and Gateway API
	// routes and listeners may claim: a name, or "*.example.com" for every
	// name below example.com (and that wildcard host itself). Empty allows
	// no hostname, so no Ingress.
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:items:Pattern=`^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +optional
	Hostnames []string `json:"hostnames,omitempty"`
}

// NetworkIsolation is a level of network isolation.
type NetworkIsolation string

const (
	NetworkIsolationTenant NetworkIsolation = "Tenant"
	NetworkIsolationNone   NetworkIsolation = "None"
)

// PodSecurityLevel is a Pod Security Standards level.
// +kubebuilder:validation:Enum=privileged;baseline;restricted
type PodSecurityLevel string

const (
	PodSecurityPrivileged PodSecurityLevel = "privileged"
	PodSecurityBaseline   PodSecurityLevel = "baseline"
	PodSecurityRestricted PodSecurityLevel = "restricted"
)

// DeletionPolicy is what happens to a tenant's namespaces on removal.
// +kubebuilder:validation:Enum=Delete;Retain
type DeletionPolicy string

const (
	// DeletionPolicyDelete deletes what Landlord created, Flux objects first.
	DeletionPolicyDelete DeletionPolicy = "Delete"
	// DeletionPolicyRetain releases namespaces and their content unmanaged.
	DeletionPolicyRetain DeletionPolicy = "Retain"
)

// TenantStatus is what Landlord observed of a tenant.
type TenantStatus struct {
	// ObservedGeneration is the last generation reconciled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Ready, Reconciling, Stalled.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Namespaces of the tenant and where each came from.
	// +optional
	Namespaces []NamespaceStatus `json:"namespaces,omitempty"`

	// Sources reports the sync of each source.
	// +optional
	Sources []SourceStatus `json:"sources,omitempty"`

	// Quota is the tenant's use against its hard limits, summed over its
	// namespaces, when spec.quota.scope is Tenant.
	// +optional
	Quota *QuotaStatus `json:"quota,omitempty"`
}

// QuotaStatus is a tenant-wide quota: its limits and their use.
type QuotaStatus struct {
	Hard corev1.ResourceList `json:"hard,omitempty"`
	Used corev1.ResourceList `json:"used,omitempty"`
}

// NamespaceOrigin tells who created a tenant namespace.
// +kubebuilder:validation:Enum=Platform;SelfService
type NamespaceOrigin string

const (
	NamespaceOriginPlatform    NamespaceOrigin = "Platform"
	NamespaceOriginSelfService NamespaceOrigin = "SelfService"
)

// NamespaceStatus is one tenant namespace as observed.
type NamespaceStatus struct {
	Name   string          `json:"name"`
	Origin NamespaceOrigin `json:"origin"`
	// Ready is false while the namespace cannot be provisioned.
	Ready bool `json:"ready"`
	// Message says why a namespace is not ready.
	// +optional
	Message string `json:"message,omitempty"`
}

// SourceStatus is the sync of one source, folded from Flux.
type SourceStatus struct {
	Name string `json:"name"`
	// Revision last applied by the Kustomization.
	// +optional
	Revision string `json:"revision,omitempty"`
	Ready    bool   `json:"ready"`
	// +optional
	Message string `json:"message,omitempty"`
}

// Tenant is one team sharing the cluster: its namespaces, identity, guard
// rails and the Git repositories Flux syncs for it.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=tnt
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Namespaces",type=string,JSONPath=`.status.namespaces[*].name`
// +kubebuilder:printcolumn:name="Revision",type=string,JSONPath=`.status.sources[*].revision`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 63 && self.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="metadata.name must be a DNS label (lowercase letters, digits and '-', at most 63 characters)"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.owners) || self.spec.owners.all(o, o.kind != 'ServiceAccount' || o.name != (has(self.spec.serviceAccountName) ? self.spec.serviceAccountName : self.metadata.name) || self.spec.namespaces.exists(n, n.name == o.namespace))",fieldPath=".spec.owners",reason=FieldValueForbidden,message="spec.owners[]: a ServiceAccount named like the tenant's reconciler must be in one of spec.namespaces: elsewhere the API server's policy would take its namespace for the tenant's"
type Tenant struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TenantSpec   `json:"spec,omitempty"`
	Status TenantStatus `json:"status,omitempty"`
}

// TenantList is a list of Tenants.
// +kubebuilder:object:root=true
type TenantList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Tenant `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Tenant{}, &TenantList{})
}
