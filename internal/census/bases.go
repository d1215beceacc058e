package census

import "k8s.io/apimachinery/pkg/runtime/schema"

// Frames that make a place the base objects do not have.
const (
	ephemeralVolume = `{"volumes":[{"name":"scratch","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}}}]}`
	requiredNode    = `{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/os","operator":"In","values":["linux"]}]}]}}}}`
	preferredNode   = `{"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{"matchExpressions":[{"key":"kubernetes.io/os","operator":"In","values":["linux"]}]}}]}}}`
	podTerm         = `{"topologyKey":"kubernetes.io/hostname","labelSelector":{"matchLabels":{"app":"census"}}}`
)

func affinityFrame(kind, when string) string {
	if when == "preferred" {
		return `{"affinity":{"` + kind + `":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":` + podTerm + `}]}}}`
	}
	return `{"affinity":{"` + kind + `":{"requiredDuringSchedulingIgnoredDuringExecution":[` + podTerm + `]}}}`
}

// handlerFrame makes a probe or lifecycle hook of the given action.
func handlerFrame(handler, action string) string {
	port := `{"port":8080}`
	inner := `{"` + action + `":` + port + `}`
	if handler == "postStart" || handler == "preStop" {
		return `{"lifecycle":{"` + handler + `":` + inner + `}}`
	}
	return `{"` + handler + `":` + inner + `}`
}

func handlerAt(handler, action string) string {
	if handler == "postStart" || handler == "preStop" {
		return "lifecycle." + handler + "." + action
	}
	return handler + "." + action
}

// embeddings are where the shapes other than an object's own metadata
// sit. A kind that grows a pod template, or a shape a new place, fails
// TestEmbeddingsAgree until it is listed here.
var embeddings = func() []Embedding {
	out := []Embedding{
		{Shape: PodSpec, In: on(gkPod), At: "spec"},
		{Shape: ClaimSpec, In: on(gkClaim), At: "spec"},
		{Shape: ClaimSpec, In: on(gkStatefulSet), At: "spec.volumeClaimTemplates[0].spec"},
		{Shape: ClaimSpec, In: On{Shape: PodSpec}, At: "volumes[0].ephemeral.volumeClaimTemplate.spec", Frame: ephemeralVolume},
		{Shape: TemplateMeta, In: on(gkStatefulSet), At: "spec.volumeClaimTemplates[0].metadata"},
		{Shape: TemplateMeta, In: on(gkCronJob), At: "spec.jobTemplate.metadata"},
		{Shape: TemplateMeta, In: On{Shape: PodSpec}, At: "volumes[0].ephemeral.volumeClaimTemplate.metadata", Frame: ephemeralVolume},
		{Shape: PodTemplate, In: on(gkCronJob), At: "spec.jobTemplate.spec.template"},
		{Shape: PodSpec, In: On{Shape: PodTemplate}, At: "spec"},
		{Shape: TemplateMeta, In: On{Shape: PodTemplate}, At: "metadata"},
		{Shape: Container, In: On{Shape: PodSpec}, At: "containers[0]"},
		{Shape: Container, In: On{Shape: PodSpec}, At: "initContainers[0]", Frame: `{"initContainers":[{"name":"init","image":"$CONTAINERIMAGE:1","imagePullPolicy":"Always"}]}`},
		{Shape: Container, In: On{Shape: PodSpec}, At: "ephemeralContainers[0]", Frame: `{"ephemeralContainers":[{"name":"debug","image":"$CONTAINERIMAGE:1","imagePullPolicy":"Always"}]}`},
		{Shape: NodeSelectorTerm, In: On{Shape: PodSpec}, At: "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]", Frame: requiredNode},
		{Shape: NodeSelectorTerm, In: On{Shape: PodSpec}, At: "affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference", Frame: preferredNode},
	}
	// Every kind with a pod template holds it at spec.template.
	for _, gk := range []schema.GroupKind{gkReplicationController, gkDeployment, gkStatefulSet, gkDaemonSet, gkReplicaSet, gkJob} {
		out = append(out, Embedding{Shape: PodTemplate, In: on(gk), At: "spec.template"})
	}
	for _, kind := range []string{"podAffinity", "podAntiAffinity"} {
		out = append(out,
			Embedding{Shape: PodAffinityTerm, In: On{Shape: PodSpec}, At: "affinity." + kind + ".requiredDuringSchedulingIgnoredDuringExecution[0]", Frame: affinityFrame(kind, "required")},
			Embedding{Shape: PodAffinityTerm, In: On{Shape: PodSpec}, At: "affinity." + kind + ".preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm", Frame: affinityFrame(kind, "preferred")})
	}
	for _, handler := range []string{"livenessProbe", "readinessProbe", "startupProbe", "postStart", "preStop"} {
		out = append(out,
			Embedding{Shape: HTTPGet, In: On{Shape: Container}, At: handlerAt(handler, "httpGet"), Frame: handlerFrame(handler, "httpGet")},
			Embedding{Shape: TCPSocket, In: On{Shape: Container}, At: handlerAt(handler, "tcpSocket"), Frame: handlerFrame(handler, "tcpSocket")})
		if handler != "postStart" && handler != "preStop" {
			out = append(out, Embedding{Shape: GRPC, In: On{Shape: Container}, At: handlerAt(handler, "grpc"), Frame: handlerFrame(handler, "grpc")})
		}
	}
	return out
}()

func on(gk schema.GroupKind) On { return On{Kind: gk} }

// The kinds the table names.
var (
	gkKustomization         = schema.GroupKind{Group: "kustomize.toolkit.fluxcd.io", Kind: "Kustomization"}
	gkGitRepository         = schema.GroupKind{Group: "source.toolkit.fluxcd.io", Kind: "GitRepository"}
	gkHelmRelease           = schema.GroupKind{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease"}
	gkOCIRepository         = schema.GroupKind{Group: "source.toolkit.fluxcd.io", Kind: "OCIRepository"}
	gkHelmRepository        = schema.GroupKind{Group: "source.toolkit.fluxcd.io", Kind: "HelmRepository"}
	gkHelmChart             = schema.GroupKind{Group: "source.toolkit.fluxcd.io", Kind: "HelmChart"}
	gkBucket                = schema.GroupKind{Group: "source.toolkit.fluxcd.io", Kind: "Bucket"}
	gkExternalArtifact      = schema.GroupKind{Group: "source.toolkit.fluxcd.io", Kind: "ExternalArtifact"}
	gkReceiver              = schema.GroupKind{Group: "notification.toolkit.fluxcd.io", Kind: "Receiver"}
	gkImageRepository       = schema.GroupKind{Group: "image.toolkit.fluxcd.io", Kind: "ImageRepository"}
	gkImagePolicy           = schema.GroupKind{Group: "image.toolkit.fluxcd.io", Kind: "ImagePolicy"}
	gkImageUpdate           = schema.GroupKind{Group: "image.toolkit.fluxcd.io", Kind: "ImageUpdateAutomation"}
	gkServiceAccount        = schema.GroupKind{Kind: "ServiceAccount"}
	gkRoleBinding           = schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}
	gkResourceQuota         = schema.GroupKind{Kind: "ResourceQuota"}
	gkLimitRange            = schema.GroupKind{Kind: "LimitRange"}
	gkNetworkPolicy         = schema.GroupKind{Group: "networking.k8s.io", Kind: "NetworkPolicy"}
	gkConfigMap             = schema.GroupKind{Kind: "ConfigMap"}
	gkSecret                = schema.GroupKind{Kind: "Secret"}
	gkAlert                 = schema.GroupKind{Group: "notification.toolkit.fluxcd.io", Kind: "Alert"}
	gkProvider              = schema.GroupKind{Group: "notification.toolkit.fluxcd.io", Kind: "Provider"}
	gkNamespace             = schema.GroupKind{Kind: "Namespace"}
	gkPod                   = schema.GroupKind{Kind: "Pod"}
	gkReplicationController = schema.GroupKind{Kind: "ReplicationController"}
	gkService               = schema.GroupKind{Kind: "Service"}
	gkClaim                 = schema.GroupKind{Kind: "PersistentVolumeClaim"}
	gkDeployment            = schema.GroupKind{Group: "apps", Kind: "Deployment"}
	gkStatefulSet           = schema.GroupKind{Group: "apps", Kind: "StatefulSet"}
	gkDaemonSet             = schema.GroupKind{Group: "apps", Kind: "DaemonSet"}
	gkReplicaSet            = schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}
	gkJob                   = schema.GroupKind{Group: "batch", Kind: "Job"}
	gkCronJob               = schema.GroupKind{Group: "batch", Kind: "CronJob"}
	gkIngress               = schema.GroupKind{Group: "networking.k8s.io", Kind: "Ingress"}
	gkPDB                   = schema.GroupKind{Group: "policy", Kind: "PodDisruptionBudget"}
	gkRole                  = schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "Role"}
	gkStorageClass          = schema.GroupKind{Group: "storage.k8s.io", Kind: "StorageClass"}
	gkIngressClass          = schema.GroupKind{Group: "networking.k8s.io", Kind: "IngressClass"}
	gkPriorityClass         = schema.GroupKind{Group: "scheduling.k8s.io", Kind: "PriorityClass"}
	gkCRD                   = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}
	gkHPA                   = schema.GroupKind{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}
	gkLease                 = schema.GroupKind{Group: "coordination.k8s.io", Kind: "Lease"}
	gkLSAR                  = schema.GroupKind{Group: "authorization.k8s.io", Kind: "LocalSubjectAccessReview"}
	gkGateway               = schema.GroupKind{Group: "gateway.networking.k8s.io", Kind: "Gateway"}
	gkListenerSet           = schema.GroupKind{Group: "gateway.networking.k8s.io", Kind: "ListenerSet"}
	gkHTTPRoute             = schema.GroupKind{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"}
	gkGRPCRoute             = schema.GroupKind{Group: "gateway.networking.k8s.io", Kind: "GRPCRoute"}
	gkTLSRoute              = schema.GroupKind{Group: "gateway.networking.k8s.io", Kind: "TLSRoute"}
	gkTCPRoute              = schema.GroupKind{Group: "gateway.networking.k8s.io", Kind: "TCPRoute"}
	gkUDPRoute              = schema.GroupKind{Group: "gateway.networking.k8s.io", Kind: "UDPRoute"}
	gkReferenceGrant        = schema.GroupKind{Group: "gateway.networking.k8s.io", Kind: "ReferenceGrant"}
)

// routeKinds are the Gateway API's routes: every one attaches to parents,
// named ones claim hostnames.
var (
	routeKinds = []schema.GroupKind{gkHTTPRoute, gkGRPCRoute, gkTLSRoute, gkTCPRoute, gkUDPRoute}
	namedKinds = []schema.GroupKind{gkHTTPRoute, gkGRPCRoute, gkTLSRoute}
)

// podSpec is the base pod spec, restricted as Pod Security's strictest
// level wants it.
const podSpec = `{"containers":[{"name":"app","image":"$CONTAINERIMAGE:1","imagePullPolicy":"Always","securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]},"runAsNonRoot":true,"runAsUser":1000,"seccompProfile":{"type":"RuntimeDefault"}}}]}`

// template is a pod template of the base pod spec, labelled for the
// selectors.
const template = `{"metadata":{"labels":{"app":"census"}},"spec":` + podSpec + `}`

const jobTemplate = `{"metadata":{"labels":{"app":"census"}},"spec":{"restartPolicy":"Never","containers":[{"name":"app","image":"$CONTAINERIMAGE:1","imagePullPolicy":"Always","securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]},"runAsNonRoot":true,"runAsUser":1000,"seccompProfile":{"type":"RuntimeDefault"}}}]}}`

const claimTemplateSpec = `{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}`

// bases are a valid object of each judged kind that no rule refuses, as
// JSON without apiVersion and kind (Base adds them from the registry).
// Placeholders are Values'.
var bases = map[schema.GroupKind]string{
	gkKustomization:  `{"spec":{"interval":"10m","path":"./","prune":true,"sourceRef":{"kind":"GitRepository","name":"census"},"serviceAccountName":"$RECONCILER"}}`,
	gkGitRepository:  `{"spec":{"interval":"10m","url":"$GIT","ref":{"branch":"main"}}}`,
	gkHelmRelease:    `{"spec":{"interval":"10m","chart":{"spec":{"chart":"app","sourceRef":{"kind":"HelmRepository","name":"census"}}},"serviceAccountName":"$RECONCILER"}}`,
	gkOCIRepository:  `{"spec":{"interval":"10m","url":"$OCI","ref":{"tag":"latest"}}}`,
	gkHelmRepository: `{"spec":{"interval":"10m","type":"oci","url":"$OCI"}}`,
	gkHelmChart:      `{"spec":{"interval":"10m","chart":"app","sourceRef":{"kind":"HelmRepository","name":"census"}}}`,
	gkBucket:         `{"spec":{"interval":"10m","provider":"generic","endpoint":"$BUCKETENDPOINT","bucketName":"$BUCKETNAME"}}`,
	// Refused whole to tenants (LL027): its base is the attack.
	gkExternalArtifact:      `{"spec":{"sourceRef":{"apiVersion":"source.toolkit.fluxcd.io/v1","kind":"GitRepository","name":"census"}}}`,
	gkReceiver:              `{"spec":{"type":"generic","secretRef":{"name":"token"},"resources":[{"kind":"GitRepository","name":"census"}]}}`,
	gkImageRepository:       `{"spec":{"interval":"10m","image":"$IMAGE"}}`,
	gkImagePolicy:           `{"spec":{"imageRepositoryRef":{"name":"census"},"policy":{"semver":{"range":">=1.0.0"}}}}`,
	gkImageUpdate:           `{"spec":{"interval":"10m","sourceRef":{"kind":"GitRepository","name":"census"},"git":{"commit":{"author":{"name":"bot","email":"bot@example.com"}}},"update":{"strategy":"Setters"}}}`,
	gkServiceAccount:        `{}`,
	gkRoleBinding:           `{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},"subjects":[{"kind":"ServiceAccount","name":"app","namespace":"$NAMESPACE"}]}`,
	gkResourceQuota:         `{"spec":{"hard":{"pods":"10"}}}`,
	gkLimitRange:            `{"spec":{"limits":[{"type":"Container","default":{"cpu":"100m"}}]}}`,
	gkNetworkPolicy:         `{"spec":{"podSelector":{},"policyTypes":["Ingress"]}}`,
	gkConfigMap:             `{"data":{"key":"value"}}`,
	gkSecret:                `{"type":"Opaque","data":{"token":"c2VjcmV0"}}`,
	gkAlert:                 `{"spec":{"providerRef":{"name":"census"},"eventSources":[{"kind":"Kustomization","name":"census"}]}}`,
	gkProvider:              `{"spec":{"type":"generic","address":"$HOOK"}}`,
	gkNamespace:             `{"metadata":{"name":"$SELFSERVICE","labels":{"landlord.dev/tenant":"$TENANT"}}}`,
	gkPod:                   `{"spec":` + podSpec + `}`,
	gkReplicationController: `{"spec":{"replicas":1,"selector":{"app":"census"},"template":` + template + `}}`,
	gkService:               `{"spec":{"ports":[{"port":80}],"selector":{"app":"census"}}}`,
	gkClaim:                 `{"spec":` + claimTemplateSpec + `}`,
	gkDeployment:            `{"spec":{"selector":{"matchLabels":{"app":"census"}},"template":` + template + `}}`,
	gkStatefulSet:           `{"spec":{"serviceName":"census","selector":{"matchLabels":{"app":"census"}},"template":` + template + `,"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":` + claimTemplateSpec + `}]}}`,
	gkDaemonSet:             `{"spec":{"selector":{"matchLabels":{"app":"census"}},"template":` + template + `}}`,
	gkReplicaSet:            `{"spec":{"selector":{"matchLabels":{"app":"census"}},"template":` + template + `}}`,
	gkJob:                   `{"spec":{"template":` + jobTemplate + `}}`,
	gkCronJob:               `{"spec":{"schedule":"@hourly","jobTemplate":{"metadata":{"labels":{"app":"census"}},"spec":{"template":` + jobTemplate + `}}}}`,
	gkIngress:               `{"spec":{"rules":[{"host":"$HOST","http":{"paths":[{"path":"/","pathType":"Prefix","backend":{"service":{"name":"app","port":{"number":80}}}}]}}]}}`,
	gkPDB:                   `{"spec":{"maxUnavailable":1,"selector":{"matchLabels":{"app":"census"}}}}`,
	gkGateway:               `{"spec":{"gatewayClassName":"$GATEWAYCLASS","listeners":[{"name":"https","port":443,"protocol":"HTTPS","hostname":"$HOST"}]}}`,
	gkListenerSet:           `{"spec":{"parentRef":{"name":"edge"},"listeners":[{"name":"https","port":443,"protocol":"HTTPS","hostname":"$HOST"}]}}`,
	gkHTTPRoute:             `{"spec":{"parentRefs":[{"name":"edge"}],"hostnames":["$HOST"],"rules":[{"backendRefs":[{"name":"app","port":80}]}]}}`,
	gkGRPCRoute:             `{"spec":{"parentRefs":[{"name":"edge"}],"hostnames":["$HOST"],"rules":[{"backendRefs":[{"name":"app","port":80}]}]}}`,
	gkTLSRoute:              `{"spec":{"parentRefs":[{"name":"edge"}],"hostnames":["$HOST"],"rules":[{"backendRefs":[{"name":"app","port":443}]}]}}`,
	gkTCPRoute:              `{"spec":{"parentRefs":[{"name":"edge"}],"rules":[{"backendRefs":[{"name":"app","port":5432}]}]}}`,
	gkUDPRoute:              `{"spec":{"parentRefs":[{"name":"edge"}],"rules":[{"backendRefs":[{"name":"app","port":53}]}]}}`,
	gkRole:                  `{"rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["get"]}]}`,
	gkStorageClass:          `{"provisioner":"csi.example.com"}`,
	gkIngressClass:          `{"spec":{"controller":"example.com/ingress"}}`,
	gkPriorityClass:         `{"value":1000}`,
	gkCRD: `{"spec":{"group":"blue.example.com","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},` +
		`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`,
}
