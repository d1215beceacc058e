package census

// Reasons many rows share.
const (
	local         = "names an object of the object's own namespace: the field has no namespace"
	localSecret   = "a Secret of the object's own namespace: the field has no namespace"
	asAccount     = "the controller acts as the object's service account (LL001), whose grants RBAC confines to the tenant's namespaces"
	appliedJudged = "put on the objects Flux applies as the object's service account (LL001), each judged by the guard as it is written (LL010 refuses Landlord's mark)"
	patchedJudged = "patches only what the build makes, which Flux applies as the object's service account (LL001) and the guard judges as it is written"
	notImpl       = "source-controller does not implement it (the CRD calls it provisional): it grants nothing"
	psaBaseline   = "Pod Security Admission refuses it at baseline and restricted, the level spec.podSecurity sets on each namespace (restricted by default; its labels are the platform's, LL009): only a tenant the platform made privileged may"
	psaRestricted = "Pod Security Admission refuses it at restricted, the default level of spec.podSecurity (its labels are the platform's, LL009); a baseline tenant's node mounts it"
	ownPod        = "the pod's own: it reaches nothing outside the pod"
	readOnly      = "tenants read it and never write it (the tenant role grants get, list and watch), and LL010 keeps Landlord's from any identity RBAC lets through"
	clusterRBAC   = "RBAC binds the tenant role in the tenant's namespaces only"
	unjudgedMark  = "Landlord makes no object of the kind, so its mark means nothing there; the guard is not called for it"
	clusterMark   = "Landlord makes no object of the kind, so its mark means nothing there; LL014 lets a tenant write only the objects spec.clusterResources approves"
	ownSelector   = "selects objects of the object's own namespace only"
)

func rule(o On, path, points, id, attack, neighbour string) Row {
	return placed(Row{On: o, Path: path, Points: points, Rule: id, Attack: attack, Neighbour: neighbour})
}

func safe(o On, path, points, why string) Row {
	return placed(Row{On: o, Path: path, Points: points, Safe: why})
}

func open(o On, path, points, hole string) Row {
	return placed(Row{On: o, Path: path, Points: points, Open: hole})
}

// whole marks a row's On so that the row holds for everything below its
// path.
func whole(o On) On {
	o.whole = true
	return o
}

// placed moves whole from the row's On to the row.
func placed(r Row) Row {
	r.Whole, r.On.whole = r.On.whole, false
	return r
}

var (
	meta     = On{Shape: ObjectMeta}
	tmeta    = On{Shape: TemplateMeta}
	podTmpl  = On{Shape: PodTemplate}
	pod      = On{Shape: PodSpec}
	ctr      = On{Shape: Container}
	claim    = On{Shape: ClaimSpec}
	nodeTerm = On{Shape: NodeSelectorTerm}
	podTerm_ = On{Shape: PodAffinityTerm}
)

// Rows is the census. Within an On, rows follow the schema's order; a
// row on a kind takes precedence over a shape's row at the same path.
var Rows = []Row{
	// Every object's metadata.
	safe(meta, "namespace", "the namespace the object is written in", "where the object is, not a reference: "+clusterRBAC+", and LL028 refuses a tenant identity's write of a judged kind in another tenant's namespace"),
	safe(meta, "generateName", "a prefix of the object's own name", "names the object itself, in its own namespace"),
	rule(meta, "labels", "Landlord's managed-by mark, which the controller, the guard and audit trust", "LL010",
		`{"labels":{"app.kubernetes.io/managed-by":"landlord"}}`, `{"labels":{"app.kubernetes.io/name":"census"}}`),
	open(meta, "annotations", "keys other components read from tenants' objects", "no rule judges annotation keys but those the rows on Pod, PodTemplateSpec, Ingress, Secret, Namespace and the approved classes name: a controller the platform runs may trust others, external-dns for one, where it runs, publishing DNS records for the names a Service's `external-dns.alpha.kubernetes.io/hostname` lists, which LL022 judges only in an Ingress's rules"),
	safe(meta, "finalizers", "controllers that must act before the object goes", "holds the tenant's own object, and with it the deletion of the tenant's own namespace, which the platform clears by removing the finalizer; namespaces' own finalizers are LL025's"),
	open(whole(meta), "ownerReferences", "an owner in the object's namespace or a cluster-scoped one, by UID", "the garbage collector deletes only the tenant's own object when its owner goes, but `blockOwnerDeletion` makes a foreground deletion of a cluster-scoped owner whose UID the tenant knows (its own Namespace or Tenant, which it may read) wait on an object the tenant holds with a finalizer; the OwnerReferencesPermissionEnforcement admission plugin, off by default, would ask for update on the owner's finalizers"),

	// Kinds Landlord and Flux judge: Flux first, as the registry lists them.
	rule(on(gkKustomization), "spec.serviceAccountName", "the identity kustomize-controller applies as", "LL001", `{"spec":{"serviceAccountName":null}}`, `{"spec":{"serviceAccountName":"deployer"}}`),
	rule(whole(on(gkKustomization)), "spec.sourceRef", "the source it applies, by kind, name and namespace", "LL002", `{"spec":{"sourceRef":{"namespace":"$FOREIGN"}}}`, `{"spec":{"sourceRef":{"namespace":"$NAMESPACE"}}}`),
	rule(whole(on(gkKustomization)), "spec.dependsOn", "Kustomizations it waits for, by name and namespace", "LL002", `{"spec":{"dependsOn":[{"name":"infra","namespace":"$FOREIGN"}]}}`, `{"spec":{"dependsOn":[{"name":"infra","namespace":"$NAMESPACE"}]}}`),
	rule(on(gkKustomization), "spec.targetNamespace", "the namespace everything it applies lands in", "LL003", `{"spec":{"targetNamespace":"$FOREIGN"}}`, `{"spec":{"targetNamespace":"$SIBLING"}}`),
	rule(whole(on(gkKustomization)), "spec.kubeConfig", "another cluster, and the credentials to it", "LL004", `{"spec":{"kubeConfig":{"secretRef":{"name":"remote"}}}}`, ""),
	rule(whole(on(gkKustomization)), "spec.decryption", "the keys SOPS decrypts with: without its own, kustomize-controller's", "LL005", `{"spec":{"decryption":{"provider":"sops"}}}`, `{"spec":{"decryption":{"provider":"sops","secretRef":{"name":"sops-keys"}}}}`),
	rule(on(gkKustomization), "spec.decryption.serviceAccountName", "an account whose cloud identity decrypts", "LL005", `{"spec":{"decryption":{"provider":"sops","serviceAccountName":"kms"}}}`, ""),
	safe(whole(on(gkKustomization)), "spec.healthChecks", "objects whose health it waits for, by name and namespace", asAccount+": another namespace's objects read as Forbidden"),
	safe(whole(on(gkKustomization)), "spec.commonMetadata", "labels and annotations of everything it applies", appliedJudged),
	safe(whole(on(gkKustomization)), "spec.images", "the images of what it applies", "no more than writing the image into the manifests: see Container `image`"),
	safe(whole(on(gkKustomization)), "spec.patches", "objects of the build to patch, by selector, name and namespace", patchedJudged),
	safe(whole(on(gkKustomization)), "spec.patchesJson6902", "objects of the build to patch, and paths in them", patchedJudged),
	safe(on(gkKustomization), "spec.path", "a directory of the source's artifact", "kustomize-controller joins it below the artifact's root, so no `..` leaves it"),
	safe(whole(on(gkKustomization)), "spec.postBuild.substituteFrom", "ConfigMaps and Secrets of variables", local),

	rule(on(gkGitRepository), "spec.url", "the repository source-controller clones", "LL008", `{"spec":{"url":"https://github.com/attacker/fleet"}}`, `{"spec":{"url":"$GIT"}}`),
	rule(on(gkGitRepository), "spec.recurseSubmodules", "the repositories `.gitmodules` names, which no field shows", "LL027", `{"spec":{"recurseSubmodules":true}}`, `{"spec":{"recurseSubmodules":false}}`),
	rule(on(gkGitRepository), "spec.provider", "a cloud identity source-controller fetches with", "LL005", `{"spec":{"provider":"azure"}}`, `{"spec":{"provider":"github"}}`),
	rule(on(gkGitRepository), "spec.serviceAccountName", "an account whose cloud identity fetches", "LL005", `{"spec":{"provider":"azure","serviceAccountName":"puller"}}`, ""),
	safe(on(gkGitRepository), "spec.secretRef", "credentials", localSecret),
	safe(on(gkGitRepository), "spec.proxySecretRef", "a proxy, named in a Secret", localSecret+"; the Secret's `address` is judged as it is written (Secret `data`)"),
	safe(whole(on(gkGitRepository)), "spec.verify", "keys to verify commits with", localSecret),
	safe(on(gkGitRepository), "spec.ref", "a branch, tag or commit", "of the repository spec.url names, which LL008 judges"),
	safe(whole(on(gkGitRepository)), "spec.include", "other GitRepositories and paths in their artifacts", "GitRepositories of its own namespace, each judged itself (the field has no namespace); paths are joined below the artifacts' roots"),
	safe(whole(on(gkGitRepository)), "spec.accessFrom", "namespaces allowed to use it", notImpl),

	rule(on(gkHelmRelease), "spec.serviceAccountName", "the identity helm-controller installs as", "LL001", `{"spec":{"serviceAccountName":null}}`, `{"spec":{"serviceAccountName":"deployer"}}`),
	rule(whole(on(gkHelmRelease)), "spec.chart.spec.sourceRef", "the chart's source, by kind, name and namespace", "LL002", `{"spec":{"chart":{"spec":{"sourceRef":{"namespace":"$FOREIGN"}}}}}`, `{"spec":{"chart":{"spec":{"sourceRef":{"namespace":"$NAMESPACE"}}}}}`),
	safe(whole(on(gkHelmRelease)), "spec.chart.spec.verify", "keys to verify the chart with", localSecret),
	safe(whole(on(gkHelmRelease)), "spec.chart.metadata", "labels and annotations of the HelmChart helm-controller writes", "on that HelmChart only, which helm-controller writes in the namespace of the chart's source (LL002)"),
	rule(whole(on(gkHelmRelease)), "spec.chartRef", "a chart source by kind, name and namespace", "LL002",
		`{"spec":{"chart":null,"chartRef":{"kind":"OCIRepository","name":"census","namespace":"$FOREIGN"}}}`, `{"spec":{"chart":null,"chartRef":{"kind":"OCIRepository","name":"census"}}}`),
	rule(whole(on(gkHelmRelease)), "spec.dependsOn", "HelmReleases it waits for, by name and namespace", "LL002", `{"spec":{"dependsOn":[{"name":"db","namespace":"$FOREIGN"}]}}`, `{"spec":{"dependsOn":[{"name":"db"}]}}`),
	rule(on(gkHelmRelease), "spec.targetNamespace", "the namespace the release installs into", "LL003", `{"spec":{"targetNamespace":"$FOREIGN"}}`, `{"spec":{"targetNamespace":"$SIBLING"}}`),
	rule(on(gkHelmRelease), "spec.storageNamespace", "the namespace the release's history is stored in", "LL003", `{"spec":{"storageNamespace":"kube-system"}}`, `{"spec":{"storageNamespace":"$SIBLING"}}`),
	rule(whole(on(gkHelmRelease)), "spec.kubeConfig", "another cluster, and the credentials to it", "LL004", `{"spec":{"kubeConfig":{"secretRef":{"name":"remote"}}}}`, ""),
	safe(whole(on(gkHelmRelease)), "spec.commonMetadata", "labels and annotations of everything it installs", appliedJudged),
	safe(whole(on(gkHelmRelease)), "spec.driftDetection", "fields of the release's objects drift detection ignores", "the release's own objects only"),
	safe(on(gkHelmRelease), "spec.install.createNamespace", "creating the target namespace", "helm-controller creates it as the release's service account: LL003 judges the name, LL009 the creation"),
	safe(on(gkHelmRelease), "spec.install.disableTakeOwnership", "objects another release or tool made", asAccount),
	safe(on(gkHelmRelease), "spec.upgrade.disableTakeOwnership", "objects another release or tool made", asAccount),
	safe(whole(on(gkHelmRelease)), "spec.postRenderers", "patches and images of what it installs", "patches only what the chart renders, which helm-controller installs as the release's service account (LL001) and the guard judges as it is written"),
	safe(on(gkHelmRelease), "spec.releaseName", "the Helm release's name", "a release in the storage namespace, which LL003 judges"),
	safe(whole(on(gkHelmRelease)), "spec.valuesFrom", "ConfigMaps and Secrets of values", local+" in helm-controller v2"),

	rule(on(gkOCIRepository), "spec.url", "the registry and repository source-controller pulls", "LL008", `{"spec":{"url":"oci://ghcr.io/attacker/manifests"}}`, `{"spec":{"url":"$OCI"}}`),
	rule(on(gkOCIRepository), "spec.provider", "a cloud identity source-controller pulls with", "LL005", `{"spec":{"provider":"aws"}}`, `{"spec":{"provider":"generic"}}`),
	rule(on(gkOCIRepository), "spec.serviceAccountName", "an account whose cloud identity or pull secrets pull", "LL005", `{"spec":{"serviceAccountName":"puller"}}`, ""),
	safe(on(gkOCIRepository), "spec.secretRef", "credentials", localSecret),
	safe(on(gkOCIRepository), "spec.certSecretRef", "TLS client certificate and CA", localSecret),
	safe(on(gkOCIRepository), "spec.proxySecretRef", "a proxy, named in a Secret", localSecret+"; the Secret's `address` is judged as it is written (Secret `data`)"),
	safe(whole(on(gkOCIRepository)), "spec.verify", "keys or identities to verify signatures with", localSecret+"; keyless cosign reaches Sigstore's public instances, which the tenant does not choose"),
	safe(on(gkOCIRepository), "spec.ref", "a tag, semver range or digest", "of the repository spec.url names, which LL008 judges"),
	safe(on(gkOCIRepository), "spec.layerSelector", "a layer of the artifact, by media type", "a layer of the artifact spec.url names"),

	rule(on(gkHelmRepository), "spec.url", "the Helm repository source-controller reads", "LL008", `{"spec":{"url":"oci://ghcr.io/attacker/charts"}}`, `{"spec":{"url":"$OCI"}}`),
	rule(on(gkHelmRepository), "spec.type", "an HTTP index, whose charts may be on any host", "LL027", `{"spec":{"type":"default","url":"$GIT"}}`, `{"spec":{"type":"oci"}}`),
	rule(on(gkHelmRepository), "spec.provider", "a cloud identity source-controller pulls with: its own, since the kind names no account", "LL005", `{"spec":{"provider":"gcp"}}`, `{"spec":{"provider":"generic"}}`),
	safe(on(gkHelmRepository), "spec.secretRef", "credentials", localSecret),
	safe(on(gkHelmRepository), "spec.certSecretRef", "TLS client certificate and CA", localSecret),
	safe(whole(on(gkHelmRepository)), "spec.accessFrom", "namespaces allowed to use it", notImpl),
	safe(on(gkHelmRepository), "spec.passCredentials", "the repository's credentials, sent to the hosts of the charts an index lists", "the tenant's own credentials, and for a tenant confined by spec.allowedSources an HTTP index is LL027's"),

	safe(whole(on(gkHelmChart)), "spec.sourceRef", "the chart's source, by kind and name", local+"; the source is judged itself"),
	safe(whole(on(gkHelmChart)), "spec.verify", "keys or identities to verify signatures with", localSecret+"; keyless cosign reaches Sigstore's public instances, which the tenant does not choose"),
	safe(whole(on(gkHelmChart)), "spec.accessFrom", "namespaces allowed to use it", notImpl),

	rule(on(gkBucket), "spec.endpoint", "the object store source-controller lists and downloads from", "LL008", `{"spec":{"endpoint":"storage.attacker.example"}}`, ""),
	rule(on(gkBucket), "spec.bucketName", "the bucket, part of the URL LL008 matches", "LL008", `{"spec":{"bucketName":"platform"}}`, ""),
	rule(on(gkBucket), "spec.provider", "a cloud identity source-controller fetches with", "LL005", `{"spec":{"provider":"gcp"}}`, ""),
	rule(on(gkBucket), "spec.serviceAccountName", "an account whose cloud identity fetches", "LL005", `{"spec":{"provider":"aws","serviceAccountName":"puller"}}`, ""),
	rule(on(gkBucket), "spec.sts.endpoint", "the Security Token Service source-controller asks for credentials, sending the Secret's username and password", "LL008",
		`{"spec":{"sts":{"provider":"ldap","endpoint":"https://sts.attacker.example"}}}`, `{"spec":{"sts":{"provider":"ldap","endpoint":"https://$BUCKETENDPOINT/$BUCKETNAME"}}}`),
	safe(on(gkBucket), "spec.sts.provider", "the kind of token service", "the service is spec.sts.endpoint's, which LL008 judges"),
	safe(on(gkBucket), "spec.sts.secretRef", "credentials for the token service", localSecret),
	safe(on(gkBucket), "spec.sts.certSecretRef", "TLS client certificate for the token service", localSecret),
	safe(on(gkBucket), "spec.secretRef", "credentials", localSecret),
	safe(on(gkBucket), "spec.certSecretRef", "TLS client certificate and CA", localSecret),
	safe(on(gkBucket), "spec.proxySecretRef", "a proxy, named in a Secret", localSecret+"; the Secret's `address` is judged as it is written (Secret `data`)"),
	safe(whole(on(gkBucket)), "spec.accessFrom", "namespaces allowed to use it", notImpl),

	rule(whole(on(gkExternalArtifact)), "spec", "an artifact whose URL its status names, which tenants may write", "LL027", `{}`, ""),

	rule(whole(on(gkReceiver)), "spec.resources", "the objects a webhook call makes Flux reconcile, by kind, name, labels and namespace", "LL006",
		`{"spec":{"resources":[{"kind":"GitRepository","name":"census","namespace":"$FOREIGN"}]}}`, `{"spec":{"resources":[{"kind":"GitRepository","name":"census","namespace":"$SIBLING"}]}}`),
	safe(on(gkReceiver), "spec.secretRef", "the webhook's token", localSecret),

	rule(on(gkImageRepository), "spec.image", "the registry image-reflector-controller scans", "LL008", `{"spec":{"image":"docker.io/attacker/app"}}`, `{"spec":{"image":"$IMAGE"}}`),
	rule(on(gkImageRepository), "spec.provider", "a cloud identity the controller scans with", "LL005", `{"spec":{"provider":"gcp"}}`, `{"spec":{"provider":"generic"}}`),
	rule(on(gkImageRepository), "spec.serviceAccountName", "an account whose pull secrets or cloud identity scan", "LL005", `{"spec":{"serviceAccountName":"puller"}}`, ""),
	rule(whole(on(gkImageRepository)), "spec.accessFrom", "namespaces whose ImagePolicies may read it", "LL007", `{"spec":{"accessFrom":{"namespaceSelectors":[{"matchLabels":{}}]}}}`, ""),
	safe(on(gkImageRepository), "spec.secretRef", "credentials", localSecret),
	safe(on(gkImageRepository), "spec.certSecretRef", "TLS client certificate and CA", localSecret),
	safe(on(gkImageRepository), "spec.proxySecretRef", "a proxy, named in a Secret", localSecret+"; the Secret's `address` is judged as it is written (Secret `data`)"),

	rule(whole(on(gkImagePolicy)), "spec.imageRepositoryRef", "the ImageRepository it reads, by name and namespace", "LL007", `{"spec":{"imageRepositoryRef":{"namespace":"$FOREIGN"}}}`, `{"spec":{"imageRepositoryRef":{"namespace":"$NAMESPACE"}}}`),

	rule(whole(on(gkImageUpdate)), "spec.sourceRef", "the GitRepository it pushes to, by kind, name and namespace", "LL007", `{"spec":{"sourceRef":{"namespace":"$FOREIGN"}}}`, `{"spec":{"sourceRef":{"namespace":"$NAMESPACE"}}}`),
	safe(whole(on(gkImageUpdate)), "spec.git", "the branch it checks out and pushes, and its signing key", "refs of the repository spec.sourceRef names (LL007), whose URL LL008 judges; the key is "+localSecret),
	safe(on(gkImageUpdate), "spec.policySelector", "ImagePolicies whose results it writes", ownSelector),
	safe(on(gkImageUpdate), "spec.update.path", "a directory of the checkout", "below the checkout's root"),

	// What Landlord renders inside tenant namespaces.
	safe(on(gkServiceAccount), "automountServiceAccountToken", "the account's token in its pods", "the account's own token; LL012 keeps pods off Landlord's accounts"),
	safe(on(gkServiceAccount), "imagePullSecrets", "pull credentials of its pods", localSecret),
	safe(whole(on(gkServiceAccount)), "secrets", "Secrets its pods may mount, by name and namespace", "the API server ignores the namespace: pods mount Secrets of their own namespace only"),

	rule(whole(on(gkRoleBinding)), "subjects", "identities the binding grants, of any namespace, users and groups", "LL011",
		`{"subjects":[{"kind":"ServiceAccount","name":"flux","namespace":"$FOREIGN"}]}`, `{"subjects":[{"kind":"ServiceAccount","name":"ci","namespace":"$SIBLING"}]}`),
	rule(whole(on(gkRoleBinding)), "roleRef", "the ClusterRole or Role it grants", "LL015",
		`{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"cluster-admin"}}`, `{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"edit"}}`),

	safe(whole(on(gkResourceQuota)), "spec.scopeSelector", "priority classes and scopes the quota counts", readOnly),
	safe(whole(on(gkLimitRange)), "spec.limits", "default requests and limits of the namespace's containers", readOnly),

	safe(on(gkNetworkPolicy), "spec.podSelector", "the pods the policy applies to", ownSelector),
	safe(whole(on(gkNetworkPolicy)), "spec.ingress", "peers allowed in, by namespace, pod labels and address block", "NetworkPolicies only add what they allow, and allow it into the tenant's own pods; `landlord-isolation` stays (LL010)"),
	safe(whole(on(gkNetworkPolicy)), "spec.egress", "peers allowed out, by namespace, pod labels and address block", "NetworkPolicies only add what they allow, here to the tenant's own pods' traffic out; other tenants' policies decide what they let in"),

	rule(on(gkSecret), "data", "the keys Flux reads as URLs (`address`, `proxy`) when a Provider or proxySecretRef names the Secret", "LL008", `{"data":{"address":"aHR0cHM6Ly9ldmlsLmV4YW1wbGUvaG9vaw=="}}`, `{"data":{"address":"$HOOK_BASE64"}}`),
	rule(on(gkSecret), "metadata.annotations{kubernetes.io/service-account.name}", "the account a legacy token Secret is minted for", "LL012",
		`{"type":"kubernetes.io/service-account-token","data":null,"metadata":{"annotations":{"kubernetes.io/service-account.name":"$RECONCILER"}}}`,
		`{"type":"kubernetes.io/service-account-token","data":null,"metadata":{"annotations":{"kubernetes.io/service-account.name":"app"}}}`),

	rule(whole(on(gkAlert)), "spec.eventSources", "the objects whose events it forwards, by kind, name, labels and namespace", "LL006",
		`{"spec":{"eventSources":[{"kind":"Kustomization","name":"*","namespace":"$FOREIGN"}]}}`, `{"spec":{"eventSources":[{"kind":"Kustomization","name":"*","namespace":"$SIBLING"}]}}`),
	safe(on(gkAlert), "spec.providerRef", "the Provider it posts through", local),
	safe(on(gkAlert), "spec.eventMetadata", "metadata added to its events", "added to the tenant's own events"),

	rule(on(gkProvider), "spec.address", "where notification-controller posts", "LL008", `{"spec":{"address":"https://attacker.example/hook"}}`, `{"spec":{"address":"$HOOK"}}`),
	rule(on(gkProvider), "spec.proxy", "the proxy notification-controller posts through", "LL008", `{"spec":{"proxy":"http://attacker.example:3128"}}`, ""),
	rule(on(gkProvider), "spec.type", "a cloud notifier authenticating with a cloud identity", "LL005", `{"spec":{"type":"azureeventhub"}}`, `{"spec":{"type":"slack"}}`),
	rule(on(gkProvider), "spec.serviceAccountName", "an account whose cloud identity posts", "LL005", `{"spec":{"serviceAccountName":"notifier"}}`, ""),
	safe(on(gkProvider), "spec.secretRef", "the token, and an address or proxy overriding the spec's", localSecret+"; its `address` and `proxy` are judged as it is written (Secret `data`)"),
	safe(on(gkProvider), "spec.certSecretRef", "TLS client certificate and CA", localSecret),
	safe(on(gkProvider), "spec.proxySecretRef", "a proxy, named in a Secret", localSecret+"; the Secret's `address` is judged as it is written (Secret `data`)"),
	safe(on(gkProvider), "spec.username", "the name it posts as", "a display name at the endpoint spec.address names"),

	// Namespaces: the tenant creates and patches its self-service ones.
	rule(on(gkNamespace), "metadata.name", "a namespace another tenant or the platform holds", "LL009", `{"metadata":{"name":"$FOREIGN"}}`, ""),
	rule(on(gkNamespace), "metadata.labels", "the tenant and pod-security labels, and labels other tenants' NetworkPolicies select on", "LL009",
		`{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"privileged"}}}`, `{"metadata":{"labels":{"team":"a"}}}`),
	rule(on(gkNamespace), "metadata.annotations", "annotations node selectors and cloud identities trust", "LL025",
		`{"metadata":{"annotations":{"scheduler.alpha.kubernetes.io/node-selector":"pool=gpu"}}}`, `{"metadata":{"annotations":{"example.com/owner":"a"}}}`),
	rule(on(gkNamespace), "metadata.annotations{landlord.dev/allowed-sources-regexps}", "the URLs the API server's policy lets the tenant's Flux objects reach", "LL009",
		`{"metadata":{"annotations":{"landlord.dev/allowed-sources-regexps":".*"}}}`, `{"metadata":{"annotations":{"example.com/owner":"a"}}}`),
	rule(on(gkNamespace), "metadata.finalizers", "a finalizer nothing removes, holding the namespace Terminating", "LL025", `{"metadata":{"finalizers":["example.com/never"]}}`, `{"metadata":{"finalizers":["orphan"]}}`),
	rule(on(gkNamespace), "spec.finalizers", "a finalizer nothing removes, holding the namespace Terminating", "LL025", `{"spec":{"finalizers":["example.com/never"]}}`, `{"spec":{"finalizers":["kubernetes"]}}`),

	// What tenants run.
	rule(on(gkService), "spec.type", "a port on every node, or an external load balancer", "LL013", `{"spec":{"type":"LoadBalancer"}}`, `{"spec":{"type":"ClusterIP"}}`),
	rule(on(gkService), "spec.ports[].nodePort", "a port on every node", "LL013", `{"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":30080}]}}`, ""),
	rule(on(gkService), "spec.loadBalancerIP", "an external address", "LL013", `{"spec":{"type":"LoadBalancer","loadBalancerIP":"203.0.113.10"}}`, ""),
	rule(on(gkService), "spec.loadBalancerClass", "the load balancer implementation", "LL013", `{"spec":{"type":"LoadBalancer","loadBalancerClass":"example.com/internal"}}`, ""),
	rule(on(gkService), "spec.externalIPs", "any address, whose traffic the Service intercepts", "LL017", `{"spec":{"externalIPs":["203.0.113.10"]}}`, ""),
	rule(on(gkService), "spec.externalName", "a DNS alias to any name, another tenant's Services included", "LL021", `{"spec":{"type":"ExternalName","externalName":"app.red-apps.svc.cluster.local","selector":null}}`, ""),
	safe(on(gkService), "spec.externalTrafficPolicy", "how external traffic reaches its pods", "only with an external type, which LL013 judges"),
	safe(on(gkService), "spec.clusterIP", "its cluster address", "an address of the Service range the allocator hands out, never one in use"),
	safe(on(gkService), "spec.clusterIPs", "its cluster addresses", "addresses of the Service range the allocator hands out, never ones in use"),
	safe(on(gkService), "spec.selector", "its endpoints' pods", ownSelector),
	safe(on(gkService), "spec.publishNotReadyAddresses", "endpoints of pods not ready", "its own pods'"),
	safe(whole(on(gkService)), "spec.sessionAffinityConfig", "client affinity by address", "how its own endpoints are chosen"),

	rule(on(gkPod), "metadata.annotations{cluster-autoscaler.kubernetes.io/safe-to-evict}", "the pod's node, which the cluster autoscaler never scales down while it says false", "LL023",
		`{"metadata":{"annotations":{"cluster-autoscaler.kubernetes.io/safe-to-evict":"false"}}}`, `{"metadata":{"annotations":{"cluster-autoscaler.kubernetes.io/safe-to-evict":"true"}}}`),
	rule(on(gkPod), "metadata.annotations{karpenter.sh/do-not-disrupt}", "the pod's node, which Karpenter never consolidates or replaces while it says true", "LL023",
		`{"metadata":{"annotations":{"karpenter.sh/do-not-disrupt":"true"}}}`, `{"metadata":{"annotations":{"karpenter.sh/do-not-disrupt":"false"}}}`),
	rule(on(gkPod), "metadata.annotations{karpenter.sh/do-not-evict}", "the pod's node, as `karpenter.sh/do-not-disrupt`, for Karpenter before v1", "LL023",
		`{"metadata":{"annotations":{"karpenter.sh/do-not-evict":"true"}}}`, `{"metadata":{"annotations":{"karpenter.sh/do-not-evict":"false"}}}`),

	safe(on(gkStatefulSet), "spec.serviceName", "the governing Service", local),
	safe(whole(on(gkStatefulSet)), "spec.volumeClaimTemplates[].status", "the status of claims it makes", "the controller makes claims from the template's spec; status there is ignored"),
	safe(on(gkStatefulSet), "spec.selector", "its pods", ownSelector),
	safe(on(gkDeployment), "spec.selector", "its pods", ownSelector),
	safe(on(gkDaemonSet), "spec.selector", "its pods", ownSelector),
	safe(on(gkReplicaSet), "spec.selector", "its pods", ownSelector),
	safe(on(gkReplicationController), "spec.selector", "its pods", ownSelector),
	safe(on(gkJob), "spec.selector", "its pods", ownSelector),
	safe(on(gkJob), "spec.manualSelector", "its pods, selected by hand", ownSelector),
	safe(on(gkJob), "spec.managedBy", "the controller that runs the Job", "only controllers the platform runs act on a Job naming them; the built-in Job controller then leaves it"),
	safe(on(gkJob), "spec.podFailurePolicy.rules[].onExitCodes.containerName", "a container of its pods", ownPod),
	safe(on(gkCronJob), "spec.jobTemplate.spec.selector", "its jobs' pods", ownSelector),
	safe(on(gkCronJob), "spec.jobTemplate.spec.manualSelector", "its jobs' pods, selected by hand", ownSelector),
	safe(on(gkCronJob), "spec.jobTemplate.spec.managedBy", "the controller that runs its jobs", "as Job `spec.managedBy`"),
	safe(on(gkCronJob), "spec.jobTemplate.spec.podFailurePolicy.rules[].onExitCodes.containerName", "a container of its jobs' pods", ownPod),

	rule(on(gkIngress), "spec.ingressClassName", "the ingress controller, and the addresses it serves on", "LL022", `{"spec":{"ingressClassName":"internal"}}`, `{"spec":{"ingressClassName":"public"}}`),
	rule(on(gkIngress), "metadata.annotations{kubernetes.io/ingress.class}", "the ingress controller, by the legacy annotation", "LL022",
		`{"metadata":{"annotations":{"kubernetes.io/ingress.class":"internal"}}}`, `{"metadata":{"annotations":{"kubernetes.io/ingress.class":"public"}}}`),
	open(on(gkIngress), "metadata.annotations", "keys the cluster's ingress controller reads", "LL022 judges the class key and the ingress-nginx keys the rows beside this one name, under its default prefix: other controllers' keys, and ingress-nginx's under another `--annotations-prefix`, reach what the controller's settings let them; an `auth-url` or `mirror-target` of an outside name that resolves to an address inside the cluster is the controller's network policy's to stop"),
	rule(on(gkIngress), "metadata.annotations{nginx.ingress.kubernetes.io/*-snippet}", "ingress-nginx's own configuration, which serves every tenant's hostnames and reads their Secrets", "LL022",
		`{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/configuration-snippet":"return 403;"}}}`, `{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/proxy-body-size":"8m"}}}`),
	rule(on(gkIngress), "metadata.annotations{nginx.ingress.kubernetes.io/server-alias}", "hostnames ingress-nginx serves the Ingress for, beside its rules'", "LL022",
		`{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/server-alias":"shop.red.example.com"}}}`, `{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/server-alias":"$HOST"}}}`),
	rule(on(gkIngress), "metadata.annotations{nginx.ingress.kubernetes.io/auth-secret}", "a Secret of passwords, by name or namespace/name", "LL022",
		`{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/auth-secret":"$FOREIGN/htpasswd"}}}`, `{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/auth-secret":"htpasswd"}}}`),
	rule(on(gkIngress), "metadata.annotations{nginx.ingress.kubernetes.io/auth-tls-secret}", "the CA client certificates are checked against, as namespace/name", "LL022",
		`{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/auth-tls-secret":"$FOREIGN/client-ca"}}}`, `{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/auth-tls-secret":"$SIBLING/client-ca"}}}`),
	rule(on(gkIngress), "metadata.annotations{nginx.ingress.kubernetes.io/proxy-ssl-secret}", "the certificate and key ingress-nginx presents to backends, as namespace/name", "LL022",
		`{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/proxy-ssl-secret":"$FOREIGN/backend-tls"}}}`, `{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/proxy-ssl-secret":"$NAMESPACE/backend-tls"}}}`),
	rule(on(gkIngress), "metadata.annotations{nginx.ingress.kubernetes.io/auth-proxy-set-headers}", "a ConfigMap of headers sent to the auth service, by name or namespace/name", "LL022",
		`{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/auth-proxy-set-headers":"$FOREIGN/auth-headers"}}}`, `{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/auth-proxy-set-headers":"auth-headers"}}}`),
	rule(on(gkIngress), "metadata.annotations{nginx.ingress.kubernetes.io/custom-headers}", "a ConfigMap of response headers, as namespace/name", "LL022",
		`{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/custom-headers":"$FOREIGN/headers"}}}`, `{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/custom-headers":"$NAMESPACE/headers"}}}`),
	rule(on(gkIngress), "metadata.annotations{nginx.ingress.kubernetes.io/fastcgi-params-configmap}", "a ConfigMap of FastCGI parameters, by name or namespace/name", "LL022",
		`{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/fastcgi-params-configmap":"$FOREIGN/fastcgi"}}}`, `{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/fastcgi-params-configmap":"fastcgi"}}}`),
	rule(on(gkIngress), "metadata.annotations{nginx.ingress.kubernetes.io/auth-url}", "the service ingress-nginx asks, with each request's headers, whether to let it through", "LL022",
		`{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/auth-url":"http://auth.$FOREIGN.svc.cluster.local/verify"}}}`, `{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/auth-url":"https://auth.example.com/oauth2/auth"}}}`),
	rule(on(gkIngress), "metadata.annotations{nginx.ingress.kubernetes.io/auth-signin}", "where ingress-nginx sends browsers to sign in", "LL022",
		`{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/auth-signin":"http://login.$FOREIGN.svc/start"}}}`, `{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/auth-signin":"https://login.example.com/oauth2/start"}}}`),
	rule(on(gkIngress), "metadata.annotations{nginx.ingress.kubernetes.io/mirror-target}", "where ingress-nginx copies each request", "LL022",
		`{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/mirror-target":"http://sink.$FOREIGN.svc.cluster.local$request_uri"}}}`, `{"metadata":{"annotations":{"nginx.ingress.kubernetes.io/mirror-target":"https://mirror.example.com$request_uri"}}}`),
	rule(whole(on(gkIngress)), "spec.defaultBackend", "every hostname no Ingress names", "LL022", `{"spec":{"defaultBackend":{"service":{"name":"app","port":{"number":80}}}}}`, ""),
	rule(on(gkIngress), "spec.rules[].host", "a hostname, another tenant's included", "LL022", `{"spec":{"rules":[{"host":"shop.red.example.com"}]}}`, `{"spec":{"rules":[{"host":"$HOST"}]}}`),
	safe(whole(on(gkIngress)), "spec.rules[].http", "backends and paths", "backends are Services or objects of the Ingress's own namespace (the fields have no namespace); paths are below its own hosts"),
	rule(on(gkIngress), "spec.tls[].hosts", "hostnames its certificate answers for", "LL022", `{"spec":{"tls":[{"hosts":["shop.red.example.com"],"secretName":"tls"}]}}`, `{"spec":{"tls":[{"hosts":["$HOST"],"secretName":"tls"}]}}`),
	safe(on(gkIngress), "spec.tls[].secretName", "the certificate", localSecret),

	// The Gateway API's (LL030). References to other namespaces' Services,
	// Secrets and CAs resolve only where a ReferenceGrant there allows
	// them: the owner of the object referenced decides.
	rule(on(gkGateway), "spec.gatewayClassName", "the implementation that runs the Gateway, and what it costs", "LL030", `{"spec":{"gatewayClassName":"public"}}`, `{"spec":{"gatewayClassName":"$GATEWAYCLASS"}}`),
	rule(on(gkGateway), "spec.addresses", "the address the Gateway takes, another's included", "LL030", `{"spec":{"addresses":[{"value":"203.0.113.7"}]}}`, ""),
	safe(whole(on(gkGateway)), "spec.allowedListeners", "the namespaces whose ListenerSets may attach to the tenant's Gateway", "opens the tenant's own Gateway: another tenant's ListenerSet attaches only where its own Tenant allows (LL030)"),
	rule(whole(on(gkGateway)), "spec.infrastructure.parametersRef", "settings the implementation patches what it makes for the Gateway with", "LL030", `{"spec":{"infrastructure":{"parametersRef":{"group":"","kind":"ConfigMap","name":"gw"}}}}`, ""),
	rule(on(gkGateway), "spec.infrastructure.annotations", "annotations the implementation copies onto the Service it makes for the Gateway, where load balancer controllers read an address of any tenant's", "LL030", `{"spec":{"infrastructure":{"annotations":{"metallb.io/loadBalancerIPs":"203.0.113.7"}}}}`, ""),
	safe(on(gkGateway), "spec.infrastructure.labels", "labels the implementation copies onto what it makes for the Gateway", "in the tenant's own namespace; Landlord's mark means nothing on them"),
	rule(on(gkGateway), "spec.listeners[].hostname", "a hostname the listener answers for, another tenant's included", "LL030", `{"spec":{"listeners":[{"name":"https","port":443,"protocol":"HTTPS","hostname":"shop.red.example.com"}]}}`, `{"spec":{"listeners":[{"name":"https","port":443,"protocol":"HTTPS","hostname":"$HOST"}]}}`),
	safe(whole(on(gkGateway)), "spec.listeners[].allowedRoutes", "the namespaces whose routes may attach", "opens the tenant's own Gateway: another tenant's route attaches only where its own Tenant allows (LL030)"),
	safe(whole(on(gkGateway)), "spec.listeners[].tls.certificateRefs", "certificates, by name and namespace", "another namespace's Secret only where a ReferenceGrant there allows it"),
	open(on(gkGateway), "spec.listeners[].tls.options", "settings the implementation reads", "no rule judges the implementation's own keys: they reach what it lets a Gateway of the class set"),
	safe(whole(on(gkGateway)), "spec.tls", "client certificates and CAs, by name and namespace", "another namespace's Secret or ConfigMap only where a ReferenceGrant there allows it"),

	rule(whole(on(gkListenerSet)), "spec.parentRef", "the Gateway the listeners join, another tenant's or the platform's included", "LL030", `{"spec":{"parentRef":{"name":"edge","namespace":"$FOREIGN"}}}`, `{"spec":{"parentRef":{"name":"edge","namespace":"$SIBLING"}}}`),
	rule(on(gkListenerSet), "spec.listeners[].hostname", "a hostname the listener answers for, another tenant's included", "LL030", `{"spec":{"listeners":[{"name":"https","port":443,"protocol":"HTTPS","hostname":"shop.red.example.com"}]}}`, `{"spec":{"listeners":[{"name":"https","port":443,"protocol":"HTTPS","hostname":"$HOST"}]}}`),
	safe(whole(on(gkListenerSet)), "spec.listeners[].allowedRoutes", "the namespaces whose routes may attach", "opens the tenant's own listeners: another tenant's route attaches only where its own Tenant allows (LL030)"),
	safe(whole(on(gkListenerSet)), "spec.listeners[].tls.certificateRefs", "certificates, by name and namespace", "another namespace's Secret only where a ReferenceGrant there allows it"),
	open(on(gkListenerSet), "spec.listeners[].tls.options", "settings the implementation reads", "as Gateway `spec.listeners[].tls.options`"),

	safe(on(gkReferenceGrant), "metadata.labels", "Landlord's managed-by mark", unjudgedMark),
	safe(on(gkReferenceGrant), "spec.from[].namespace", "namespaces allowed to reference the grant's own", "it opens the tenant's own objects to others, never reaches theirs"),
	safe(on(gkReferenceGrant), "spec.to[].name", "the objects referenced", local),
	rule(whole(on(gkHTTPRoute)), "spec.parentRefs", "the Gateways, ListenerSets or mesh Services it attaches to, another tenant's or the platform's included", "LL030", `{"spec":{"parentRefs":[{"name":"edge","namespace":"$FOREIGN"}]}}`, `{"spec":{"parentRefs":[{"name":"edge","namespace":"$SIBLING"}]}}`),
	rule(on(gkHTTPRoute), "spec.hostnames", "hostnames it answers for, another tenant's included", "LL030", `{"spec":{"hostnames":["shop.red.example.com"]}}`, `{"spec":{"hostnames":["$HOST"]}}`),
	safe(whole(on(gkHTTPRoute)), "spec.rules", "backends, mirrors, filters and matches", "backends and mirrors are Services (LL030 refuses other kinds, which reach what the implementation resolves them to), of another namespace only where a ReferenceGrant there allows it; extension references and rewrites stay in the route's own namespace and hostnames"),
	rule(whole(on(gkGRPCRoute)), "spec.parentRefs", "the Gateways, ListenerSets or mesh Services it attaches to, another tenant's or the platform's included", "LL030", `{"spec":{"parentRefs":[{"name":"edge","namespace":"$FOREIGN"}]}}`, `{"spec":{"parentRefs":[{"name":"edge","namespace":"$SIBLING"}]}}`),
	rule(on(gkGRPCRoute), "spec.hostnames", "hostnames it answers for, another tenant's included", "LL030", `{"spec":{"hostnames":["shop.red.example.com"]}}`, `{"spec":{"hostnames":["$HOST"]}}`),
	safe(whole(on(gkGRPCRoute)), "spec.rules", "backends, mirrors, filters and matches", "backends and mirrors are Services (LL030 refuses other kinds, which reach what the implementation resolves them to), of another namespace only where a ReferenceGrant there allows it; extension references and rewrites stay in the route's own namespace and hostnames"),
	rule(whole(on(gkTLSRoute)), "spec.parentRefs", "the Gateways, ListenerSets or mesh Services it attaches to, another tenant's or the platform's included", "LL030", `{"spec":{"parentRefs":[{"name":"edge","namespace":"$FOREIGN"}]}}`, `{"spec":{"parentRefs":[{"name":"edge","namespace":"$SIBLING"}]}}`),
	rule(on(gkTLSRoute), "spec.hostnames", "hostnames it answers for, another tenant's included", "LL030", `{"spec":{"hostnames":["shop.red.example.com"]}}`, `{"spec":{"hostnames":["$HOST"]}}`),
	safe(whole(on(gkTLSRoute)), "spec.rules", "backends, mirrors, filters and matches", "backends and mirrors are Services (LL030 refuses other kinds, which reach what the implementation resolves them to), of another namespace only where a ReferenceGrant there allows it; extension references and rewrites stay in the route's own namespace and hostnames"),
	rule(whole(on(gkTCPRoute)), "spec.parentRefs", "the Gateways, ListenerSets or mesh Services it attaches to, another tenant's or the platform's included", "LL030", `{"spec":{"parentRefs":[{"name":"edge","namespace":"$FOREIGN"}]}}`, `{"spec":{"parentRefs":[{"name":"edge","namespace":"$SIBLING"}]}}`),
	safe(whole(on(gkTCPRoute)), "spec.rules", "backends, mirrors, filters and matches", "backends and mirrors are Services (LL030 refuses other kinds, which reach what the implementation resolves them to), of another namespace only where a ReferenceGrant there allows it; extension references and rewrites stay in the route's own namespace and hostnames"),
	rule(whole(on(gkUDPRoute)), "spec.parentRefs", "the Gateways, ListenerSets or mesh Services it attaches to, another tenant's or the platform's included", "LL030", `{"spec":{"parentRefs":[{"name":"edge","namespace":"$FOREIGN"}]}}`, `{"spec":{"parentRefs":[{"name":"edge","namespace":"$SIBLING"}]}}`),
	safe(whole(on(gkUDPRoute)), "spec.rules", "backends, mirrors, filters and matches", "backends and mirrors are Services (LL030 refuses other kinds, which reach what the implementation resolves them to), of another namespace only where a ReferenceGrant there allows it; extension references and rewrites stay in the route's own namespace and hostnames"),

	rule(on(gkPDB), "spec.maxUnavailable", "every drain of the nodes its pods run on", "LL023", `{"spec":{"maxUnavailable":0}}`, `{"spec":{"maxUnavailable":1}}`),
	rule(on(gkPDB), "spec.minAvailable", "every drain of the nodes its pods run on", "LL023", `{"spec":{"maxUnavailable":null,"minAvailable":"100%"}}`, `{"spec":{"maxUnavailable":null,"minAvailable":"50%"}}`),
	safe(on(gkPDB), "spec.selector", "the pods it budgets", ownSelector),

	safe(on(gkRole), "rules[].nonResourceURLs", "non-resource URLs", "the API server refuses them in a Role; a Role grants in its own namespace only, and RBAC refuses grants the writer does not hold"),
	safe(on(gkRole), "rules[].resourceNames", "objects by name", "objects of the Role's own namespace; RBAC refuses grants the writer does not hold"),

	// Approved cluster-scoped classes (spec.clusterResources); LL014
	// refuses every other cluster-scoped write.
	safe(on(gkStorageClass), "metadata.labels", "Landlord's managed-by mark", clusterMark),
	safe(on(gkStorageClass), "provisioner", "the driver provisioning the class's volumes", "only drivers the platform installed answer; the class is one spec.clusterResources approves by name"),
	rule(on(gkStorageClass), "parameters{csi.storage.k8s.io/*-secret-namespace}", "the namespace of a Secret the CSI provisioner and the kubelet read and hand to the driver (and the in-tree provisioners' `secretNamespace`): another tenant's or the platform's storage credentials", "LL014",
		`{"parameters":{"csi.storage.k8s.io/node-stage-secret-name":"creds","csi.storage.k8s.io/node-stage-secret-namespace":"$FOREIGN"}}`,
		`{"parameters":{"csi.storage.k8s.io/node-stage-secret-name":"creds","csi.storage.k8s.io/node-stage-secret-namespace":"${pvc.namespace}"}}`),
	open(on(gkStorageClass), "parameters", "driver settings", "no rule judges an approved class's other parameters, which are the driver's: a class of an NFS or SMB driver names any server and share, another tenant's included, for the tenant's claims to mount"),
	rule(on(gkStorageClass), "metadata.annotations{storageclass.kubernetes.io/is-default-class}", "the class every claim naming none gets", "LL014",
		`{"metadata":{"annotations":{"storageclass.kubernetes.io/is-default-class":"true"}}}`, `{"metadata":{"annotations":{"storageclass.kubernetes.io/is-default-class":"false"}}}`),
	rule(on(gkStorageClass), "metadata.annotations{storageclass.beta.kubernetes.io/is-default-class}", "the class every claim naming none gets, by the beta annotation", "LL014",
		`{"metadata":{"annotations":{"storageclass.beta.kubernetes.io/is-default-class":"true"}}}`, ""),
	safe(on(gkStorageClass), "mountOptions", "options the node mounts the class's volumes with", "the platform's driver interprets them for the class's own volumes"),
	safe(whole(on(gkStorageClass)), "allowedTopologies", "zones the class provisions in", "a placement of the class's own volumes"),

	safe(on(gkIngressClass), "metadata.labels", "Landlord's managed-by mark", clusterMark),
	safe(on(gkIngressClass), "spec.controller", "the ingress controller that serves the class", "only controllers the platform runs answer; the class is one spec.clusterResources approves by name"),
	rule(on(gkIngressClass), "spec.parameters.namespace", "the namespace of the controller's parameters object", "LL014",
		`{"spec":{"parameters":{"kind":"Params","name":"edge","scope":"Namespace","namespace":"$FOREIGN"}}}`, `{"spec":{"parameters":{"kind":"Params","name":"edge","scope":"Namespace","namespace":"$NAMESPACE"}}}`),
	open(whole(on(gkIngressClass)), "spec.parameters", "the controller's parameters object, by kind, name and scope", "with scope Cluster an approved class names any cluster-scoped parameters object, which the controller then serves the class with; only a namespace is judged (row above)"),
	rule(on(gkIngressClass), "metadata.annotations{ingressclass.kubernetes.io/is-default-class}", "the class every Ingress naming none gets", "LL014",
		`{"metadata":{"annotations":{"ingressclass.kubernetes.io/is-default-class":"true"}}}`, `{"metadata":{"annotations":{"ingressclass.kubernetes.io/is-default-class":"false"}}}`),

	safe(on(gkPriorityClass), "metadata.labels", "Landlord's managed-by mark", clusterMark),
	rule(on(gkPriorityClass), "globalDefault", "the priority of every pod naming no class", "LL014", `{"globalDefault":true}`, `{"globalDefault":false}`),
	open(on(gkPriorityClass), "value", "the priority of every pod naming the class", "no rule judges an approved class's value: the tenant picks one above every other tenant's class (up to 1,000,000,000), and its pods, where spec.scheduling.priorityClasses lets them name it, preempt theirs"),
	safe(on(gkPriorityClass), "preemptionPolicy", "whether its pods preempt", "Never only gives preemption up"),

	safe(on(gkCRD), "metadata.labels", "Landlord's managed-by mark", clusterMark),
	rule(whole(on(gkCRD)), "spec.conversion", "a webhook the API server calls with every object of the kind", "LL014",
		`{"spec":{"conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://attacker.example/convert"}}}}}`, `{"spec":{"conversion":{"strategy":"None"}}}`),
	safe(on(gkCRD), "spec.scope", "whether the kind is namespaced", "the kind's objects are RBAC's like any other; the CRD is one spec.clusterResources approves by name"),
	safe(on(gkCRD), "spec.names.shortNames", "short names kubectl resolves", "kubectl resolves built-in kinds' short names first; the CRD's plural and group are its approved name's"),
	safe(whole(on(gkCRD)), "spec.versions", "schemas, printer columns, selectable fields and scale paths of the kind", "JSON paths into the kind's own objects; the API server bounds CEL rules' cost"),

	// Kinds tenants write unjudged (kinds.Kind.Unjudged).
	safe(on(gkHPA), "metadata.labels", "Landlord's managed-by mark", unjudgedMark),
	safe(on(gkLease), "metadata.labels", "Landlord's managed-by mark", unjudgedMark),
	safe(on(gkLSAR), "metadata.labels", "Landlord's managed-by mark", unjudgedMark),
	safe(whole(on(gkHPA)), "spec.scaleTargetRef", "the workload it scales", local),
	safe(whole(on(gkHPA)), "spec.metrics[].object", "an object whose metric it reads", local),
	safe(whole(on(gkHPA)), "spec.metrics[].pods", "pods whose metric it reads", ownSelector),
	open(whole(on(gkHPA)), "spec.metrics[].external", "an external metric, by name and selector", "external metrics are the metrics adapter's to confine: most adapters answer a namespace's request with series of any namespace or none, so the HPA's status shows values that other tenants' queues or services report"),
	safe(whole(on(gkLSAR)), "spec", "a user, groups and an action to ask about", "a question, persisted nowhere, about the review's own namespace: the API server refuses a resourceAttributes.namespace other than the review's and non-resource attributes"),

	// Pod templates: what a workload's controller makes its pods from.
	rule(podTmpl, "metadata.annotations{cluster-autoscaler.kubernetes.io/safe-to-evict}", "the nodes of the pods made, which the cluster autoscaler never scales down while it says false", "LL023",
		`{"metadata":{"annotations":{"cluster-autoscaler.kubernetes.io/safe-to-evict":"false"}}}`, `{"metadata":{"annotations":{"cluster-autoscaler.kubernetes.io/safe-to-evict":"true"}}}`),
	rule(podTmpl, "metadata.annotations{karpenter.sh/do-not-disrupt}", "the nodes of the pods made, which Karpenter never consolidates or replaces while it says true", "LL023",
		`{"metadata":{"annotations":{"karpenter.sh/do-not-disrupt":"true"}}}`, `{"metadata":{"annotations":{"karpenter.sh/do-not-disrupt":"false"}}}`),
	rule(podTmpl, "metadata.annotations{karpenter.sh/do-not-evict}", "the nodes of the pods made, as `karpenter.sh/do-not-disrupt`, for Karpenter before v1", "LL023",
		`{"metadata":{"annotations":{"karpenter.sh/do-not-evict":"true"}}}`, `{"metadata":{"annotations":{"karpenter.sh/do-not-evict":"false"}}}`),

	// Pod specs, wherever they sit (Embeddings).
	rule(pod, "serviceAccountName", "the identity the pod runs as", "LL012", `{"serviceAccountName":"$RECONCILER"}`, `{"serviceAccountName":"app"}`),
	rule(pod, "serviceAccount", "the identity the pod runs as (deprecated alias)", "LL012", `{"serviceAccount":"$RECONCILER"}`, `{"serviceAccount":"app"}`),
	safe(pod, "automountServiceAccountToken", "the token of the pod's account", "the pod's own account's token; LL012 keeps pods off Landlord's accounts"),
	rule(pod, "nodeName", "a node, skipping the scheduler and every taint", "LL019", `{"nodeName":"control-plane-1"}`, ""),
	rule(pod, "nodeSelector", "nodes by label", "LL019", `{"nodeSelector":{"node-role.kubernetes.io/control-plane":""}}`, `{"nodeSelector":{"kubernetes.io/os":"linux"}}`),
	rule(pod, "affinity.nodeAffinity", "nodes by label or name, required or preferred", "LL019",
		`{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"dedicated","operator":"Exists"}]}]}}}}`, requiredNode),
	rule(pod, "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms", "nodes the pod must run on", "LL019",
		`{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["control-plane-1"]}]}]}}}}`, ""),
	rule(pod, "affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[].preference", "nodes the pod prefers", "LL019",
		`{"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{"matchExpressions":[{"key":"dedicated","operator":"In","values":["red"]}]}}]}}}`, preferredNode),
	rule(pod, "tolerations", "tainted nodes the platform keeps for itself or another tenant", "LL019", `{"tolerations":[{"operator":"Exists"}]}`, `{"tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]}`),
	safe(pod, "tolerations[].tolerationSeconds", "how long the pod stays on a tainted node", "only for taints its tolerations may name (LL019)"),
	rule(pod, "priorityClassName", "a priority that preempts other tenants' pods", "LL019", `{"priorityClassName":"system-node-critical"}`, ""),
	safe(pod, "priority", "the pod's priority, as a number", "the Priority admission plugin refuses a value other than the one its class gives"),
	safe(pod, "preemptionPolicy", "whether the pod preempts", "the Priority admission plugin refuses a policy other than its class's"),
	open(pod, "runtimeClassName", "a RuntimeClass, with its handler and scheduling", "any RuntimeClass the platform installed: its handler may isolate less than others, and its tolerations and node selector, which the RuntimeClass admission plugin adds to pods, reach pods a workload's controller makes without the guard (LL019 sees them on pods a tenant writes)"),
	open(pod, "schedulerName", "the scheduler that places the pod", "any scheduler the platform runs places the pod: one that does not honour taints would place it on nodes LL019 keeps it off (a name nobody answers leaves it Pending)"),
	safe(whole(pod), "schedulingGroup", "a PodGroup of the workload", "a PodGroup of the pod's own namespace (an alpha API, off by default)"),
	safe(whole(pod), "resourceClaims", "ResourceClaims and claim templates", local+"; the tenant role grants no resource.k8s.io kind"),
	safe(whole(pod), "topologySpreadConstraints", "pods by label and nodes by a topology key, to spread over", "counts pods of the pod's own namespace, over the nodes the pod may use (LL019)"),
	safe(pod, "affinity.podAffinity", "pods to run beside", "its terms are PodAffinityTerm's rows"),
	safe(pod, "affinity.podAntiAffinity", "pods to run apart from", "its terms are PodAffinityTerm's rows"),
	safe(pod, "imagePullSecrets", "pull credentials", localSecret),
	safe(pod, "hostNetwork", "the node's network namespace", psaBaseline),
	safe(pod, "hostPID", "the node's processes", psaBaseline),
	safe(pod, "hostIPC", "the node's IPC namespace", psaBaseline),
	safe(pod, "hostUsers", "the node's user namespace", "true is the default; false gives the pod a user namespace of its own"),
	safe(pod, "shareProcessNamespace", "the pod's containers' processes", ownPod),
	safe(pod, "hostname", "the pod's hostname", ownPod),
	safe(pod, "hostnameOverride", "the pod's hostname", ownPod),
	safe(whole(pod), "hostAliases", "entries of the pod's /etc/hosts", ownPod),
	safe(pod, "dnsConfig.nameservers", "DNS servers the pod asks", "the pod's own resolver: it reaches what its network reaches anyway"),
	safe(pod, "dnsConfig.options", "resolver options", ownPod),
	safe(pod, "ephemeralContainers", "debugging containers", "the API server refuses them in a pod's create and in every template; they are added through pods/ephemeralcontainers, which the tenant role does not grant"),
	safe(whole(pod), "securityContext.seLinuxOptions", "the node's SELinux user and role", psaBaseline),
	safe(pod, "securityContext.windowsOptions.hostProcess", "the Windows node's host", psaBaseline),
	safe(pod, "securityContext.windowsOptions", "Windows identities and the host", "its fields have rows of their own"),
	safe(pod, "securityContext.windowsOptions.runAsUserName", "a Windows user inside the containers", "a user of the container's own"),
	open(pod, "securityContext.windowsOptions.gmsaCredentialSpecName", "a Windows group managed service account", "on Windows nodes, without the GMSA admission webhook authorizing the pod's account to use the credential spec, a pod names any the cluster holds and runs as that domain account; Linux nodes ignore it"),
	open(pod, "securityContext.windowsOptions.gmsaCredentialSpec", "a Windows group managed service account, inline", "as gmsaCredentialSpecName: only the GMSA admission webhook judges it"),
	safe(pod, "securityContext.runAsUser", "a user id on the node", "any id but root at restricted (Pod Security Admission); ids matter across pods only on shared volumes, and no tenant volume type reaches another tenant's files"),
	safe(pod, "securityContext.runAsGroup", "a group id on the node", "as runAsUser"),
	safe(pod, "securityContext.runAsNonRoot", "root on the node", "Pod Security Admission requires it at restricted"),
	safe(pod, "securityContext.fsGroup", "a group owning the pod's volumes", "as runAsUser"),
	safe(pod, "securityContext.fsGroupChangePolicy", "when volumes' ownership changes", "the pod's own volumes"),
	safe(pod, "securityContext.supplementalGroups", "extra group ids on the node", "as runAsUser"),
	safe(pod, "securityContext.supplementalGroupsPolicy", "where supplemental groups come from", "the image's and the pod's own"),
	safe(whole(pod), "securityContext.seccompProfile", "a seccomp profile, possibly a file on the node", "Pod Security Admission allows RuntimeDefault and profiles the node's administrator installed (Localhost), below the kubelet's seccomp directory"),
	safe(whole(pod), "securityContext.appArmorProfile", "an AppArmor profile loaded on the node", "Pod Security Admission allows the runtime's default and profiles the node's administrator loaded"),
	safe(whole(pod), "securityContext.sysctls", "kernel parameters", "Pod Security Admission allows only the namespaced, safe set at baseline and restricted"),
	safe(whole(pod), "volumes[].hostPath", "a path on the node", psaBaseline),
	safe(whole(pod), "volumes[].nfs", "an NFS server the node mounts", psaRestricted),
	safe(whole(pod), "volumes[].iscsi", "iSCSI portals the node logs in to", psaRestricted),
	safe(whole(pod), "volumes[].rbd", "Ceph monitors the node connects to", psaRestricted),
	safe(whole(pod), "volumes[].cephfs", "Ceph monitors and a path the node mounts", psaRestricted),
	safe(whole(pod), "volumes[].glusterfs", "Gluster endpoints the node mounts", psaRestricted),
	safe(whole(pod), "volumes[].quobyte", "a Quobyte registry the node mounts", psaRestricted),
	safe(whole(pod), "volumes[].scaleIO", "a ScaleIO gateway the node mounts", psaRestricted),
	safe(whole(pod), "volumes[].storageos", "a StorageOS volume, by name and namespace", psaRestricted),
	safe(whole(pod), "volumes[].flexVolume", "a FlexVolume driver on the node", psaRestricted),
	safe(whole(pod), "volumes[].cinder", "a Cinder volume", psaRestricted),
	safe(whole(pod), "volumes[].azureFile", "an Azure file share", psaRestricted),
	safe(whole(pod), "volumes[].azureDisk", "an Azure disk", psaRestricted),
	safe(whole(pod), "volumes[].vsphereVolume", "a vSphere volume path", psaRestricted),
	safe(whole(pod), "volumes[].portworxVolume", "a Portworx volume", psaRestricted),
	safe(whole(pod), "volumes[].photonPersistentDisk", "a Photon disk", psaRestricted),
	safe(whole(pod), "volumes[].gcePersistentDisk", "a GCE disk", psaRestricted),
	safe(whole(pod), "volumes[].awsElasticBlockStore", "an EBS volume", psaRestricted),
	safe(whole(pod), "volumes[].fc", "Fibre Channel targets", psaRestricted),
	safe(whole(pod), "volumes[].flocker", "a Flocker dataset", psaRestricted),
	safe(whole(pod), "volumes[].gitRepo", "a repository the node clones", psaRestricted+"; kubelets of Kubernetes 1.33 and later refuse the type unless the GitRepoVolumeDriver gate is on"),
	safe(whole(pod), "volumes[].csi", "a CSI driver's inline volume, its attributes and secret", "only drivers the platform installed with the Ephemeral mode serve it, judging their attributes; the secret is "+localSecret),
	rule(whole(pod), "volumes[].image", "an image from any registry, mounted as a volume, where the Tenant bounds its images", "LL029",
		`{"volumes":[{"name":"census-image","image":{"reference":"docker.io/attacker/data:1","pullPolicy":"Always"}}]}`, `{"volumes":[{"name":"census-image","image":{"reference":"$CONTAINERIMAGE:2","pullPolicy":"Always"}}]}`),
	safe(whole(pod), "volumes[].secret", "a Secret", localSecret),
	safe(whole(pod), "volumes[].configMap", "a ConfigMap", local),
	safe(whole(pod), "volumes[].downwardAPI", "the pod's own fields", ownPod),
	safe(whole(pod), "volumes[].persistentVolumeClaim", "a claim", local+"; the claim is judged itself (PersistentVolumeClaimSpec)"),
	safe(pod, "volumes[].ephemeral", "a claim the pod makes", "its template is PersistentVolumeClaimSpec's and TemplateMeta's rows"),
	safe(whole(pod), "volumes[].projected.sources[].secret", "a Secret", localSecret),
	safe(whole(pod), "volumes[].projected.sources[].configMap", "a ConfigMap", local),
	safe(whole(pod), "volumes[].projected.sources[].downwardAPI", "the pod's own fields", ownPod),
	safe(whole(pod), "volumes[].projected.sources[].serviceAccountToken", "a token of the pod's account, for any audience", "the pod's own account's token; LL012 keeps pods off Landlord's accounts"),
	safe(whole(pod), "volumes[].projected.sources[].clusterTrustBundle", "cluster-scoped ClusterTrustBundles, by name, signer or selector", "trust anchors, public by design"),
	safe(whole(pod), "volumes[].projected.sources[].podCertificate", "a certificate from a signer, with annotations for it", "the kubelet asks for a certificate of the pod's own identity (its account, namespace and name); what the signer issues is the signer's to judge"),
	safe(pod, "volumes[].projected.defaultMode", "file modes", ownPod),
	safe(pod, "volumes[].secret.defaultMode", "file modes", ownPod),
	safe(pod, "volumes[].configMap.defaultMode", "file modes", ownPod),
	safe(pod, "volumes[].downwardAPI.defaultMode", "file modes", ownPod),

	rule(podTerm_, "namespaceSelector", "every namespace matching it, other tenants' included ({} is all)", "LL019", `{"namespaceSelector":{}}`, ""),
	rule(podTerm_, "namespaces", "namespaces whose pods the term counts", "LL019", `{"namespaces":["$FOREIGN"]}`, `{"namespaces":["$NAMESPACE","$SIBLING"]}`),
	safe(podTerm_, "labelSelector", "pods by label", "pods of the term's namespaces: the pod's own, or those LL019 lets it name"),
	safe(podTerm_, "topologyKey", "a node label grouping nodes", "groups the nodes the pod may use (LL019) by a label's value; it selects no node by itself"),

	rule(nodeTerm, "matchExpressions", "nodes by label", "LL019", `{"matchExpressions":[{"key":"dedicated","operator":"Exists"}]}`, `{"matchExpressions":[{"key":"topology.kubernetes.io/zone","operator":"In","values":["a"]}]}`),
	rule(nodeTerm, "matchFields", "nodes by name", "LL019", `{"matchFields":[{"key":"metadata.name","operator":"In","values":["control-plane-1"]}]}`, ""),

	// Containers, init and ephemeral.
	rule(ctr, "image", "an image from any registry, where the Tenant bounds its images (spec.images; unbounded, any image serves)", "LL029", `{"image":"docker.io/attacker/app:1"}`, `{"image":"$CONTAINERIMAGE:2"}`),
	rule(ctr, "imagePullPolicy", "a node's cached copy of an image another tenant pulled with its credentials, where the Tenant asks every pull checked (spec.images.pullAlways)", "LL029", `{"imagePullPolicy":"IfNotPresent"}`, `{"imagePullPolicy":"Always"}`),
	safe(ctr, "targetContainerName", "a container of the pod", ownPod),
	safe(whole(ctr), "env[].valueFrom.secretKeyRef", "a key of a Secret", localSecret),
	safe(whole(ctr), "env[].valueFrom.configMapKeyRef", "a key of a ConfigMap", local),
	safe(whole(ctr), "env[].valueFrom.fieldRef", "a field of the pod", ownPod),
	safe(whole(ctr), "env[].valueFrom.resourceFieldRef", "a resource of the container", ownPod),
	safe(whole(ctr), "env[].valueFrom.fileKeyRef", "a key of a file in a volume", "a volume of the pod's own"),
	safe(ctr, "envFrom[].secretRef", "a Secret", localSecret),
	safe(ctr, "envFrom[].configMapRef", "a ConfigMap", local),
	safe(ctr, "ports[].hostPort", "a port of the node", psaBaseline),
	safe(ctr, "ports[].hostIP", "a node address to bind a host port on", "only with a hostPort: "+psaBaseline),
	safe(whole(ctr), "securityContext.seLinuxOptions", "the node's SELinux user and role", psaBaseline),
	safe(ctr, "securityContext.windowsOptions.hostProcess", "the Windows node's host", psaBaseline),
	safe(ctr, "securityContext.windowsOptions", "Windows identities and the host", "its fields have rows of their own"),
	safe(ctr, "resizePolicy[].resourceName", "cpu or memory of the container", ownPod),
	safe(ctr, "securityContext.windowsOptions.runAsUserName", "a Windows user inside the container", "a user of the container's own"),
	open(ctr, "securityContext.windowsOptions.gmsaCredentialSpecName", "a Windows group managed service account", "as the pod's: only the GMSA admission webhook judges it, on Windows nodes"),
	open(ctr, "securityContext.windowsOptions.gmsaCredentialSpec", "a Windows group managed service account, inline", "as the pod's: only the GMSA admission webhook judges it, on Windows nodes"),
	safe(ctr, "securityContext.runAsUser", "a user id on the node", "as the pod's runAsUser"),
	safe(ctr, "securityContext.runAsGroup", "a group id on the node", "as the pod's runAsUser"),
	safe(ctr, "securityContext.runAsNonRoot", "root on the node", "Pod Security Admission requires it at restricted"),
	safe(whole(ctr), "securityContext.seccompProfile", "a seccomp profile, possibly a file on the node", "as the pod's seccompProfile"),
	safe(whole(ctr), "securityContext.appArmorProfile", "an AppArmor profile loaded on the node", "as the pod's appArmorProfile"),
	safe(ctr, "terminationMessagePath", "a file in the container", "inside the container"),
	safe(ctr, "volumeMounts[].mountPath", "a directory in the container", "inside the container"),
	safe(ctr, "volumeMounts[].subPath", "a path inside a volume", "the API server refuses `..` and absolute paths, and the kubelet resolves it below the volume"),
	safe(ctr, "volumeMounts[].subPathExpr", "a path inside a volume, from the pod's fields", "as subPath"),
	safe(ctr, "volumeDevices[].devicePath", "a device path in the container", "inside the container, for a block claim of the pod's own"),

	// The kubelet's probes and hooks.
	safe(On{Shape: HTTPGet}, "host", "any address the kubelet sends the request to, from the node", psaBaseline+" (the host probes and lifecycle hooks control, Kubernetes 1.34 and later)"),
	safe(On{Shape: HTTPGet}, "path", "a path on the container's server", "on the pod's own address, since host is refused"),
	safe(On{Shape: TCPSocket}, "host", "any address the kubelet connects to, from the node", psaBaseline+" (the host probes and lifecycle hooks control, Kubernetes 1.34 and later)"),
	safe(On{Shape: GRPC}, "service", "a gRPC service name", "sent to the pod's own address"),

	// Claims, wherever they sit.
	rule(claim, "volumeName", "an existing PersistentVolume, the platform's or another tenant's data", "LL020", `{"volumeName":"pv-red-data"}`, ""),
	rule(claim, "selector", "existing PersistentVolumes by label", "LL020", `{"selector":{"matchLabels":{"tenant":"red"}}}`, ""),
	rule(claim, "storageClassName", "a class the Tenant does not allow", "LL020", `{"storageClassName":"premium"}`, `{"storageClassName":"standard"}`),
	rule(whole(claim), "dataSourceRef", "a volume to copy, in any namespace", "LL020", `{"dataSourceRef":{"kind":"PersistentVolumeClaim","name":"data","namespace":"$FOREIGN"}}`, `{"dataSourceRef":{"kind":"PersistentVolumeClaim","name":"data","namespace":"$SIBLING"}}`),
	safe(whole(claim), "dataSource", "a claim or snapshot to copy", local),
	open(claim, "volumeAttributesClassName", "a VolumeAttributesClass: the volume's IOPS, throughput and what they cost", "no rule judges it: a claim names any VolumeAttributesClass the platform installed, beyond what spec.storage lets its classes provision"),

	// Template metadata: what controllers copy onto the objects they make.
	safe(tmeta, "namespace", "a namespace in a template", "ignored: controllers make pods and claims in their own namespace"),
	safe(tmeta, "generateName", "a name prefix in a template", "ignored or within the controller's own namespace"),
	safe(tmeta, "labels", "the labels of the pods or claims made", "Landlord makes no pods or claims, so its mark means nothing there; other tenants' NetworkPolicies select pods by namespace labels, which are the platform's (LL009, LL025)"),
	open(tmeta, "annotations", "the annotations of the pods or claims made", "as ObjectMeta `annotations`; the keys node autoscalers trust on pods are PodTemplateSpec's rows (LL023)"),
	safe(tmeta, "finalizers", "finalizers of the pods or claims made", "as ObjectMeta `finalizers`: the tenant's own objects"),
	safe(whole(tmeta), "ownerReferences", "owners of the pods or claims made", "controllers set their own owner references on what they make"),
}
