package policy

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/distribution/reference"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
)

// WorkloadsName names the ValidatingAdmissionPolicy of the rules on what
// pods run and claim, and its binding.
const WorkloadsName = "landlord-workloads"

// The kinds that run pods: pods, and the workloads whose pod templates
// Kubernetes' controllers copy into pods unjudged; and claims.
var (
	podKind                   = schema.GroupKind{Kind: "Pod"}
	replicationControllerKind = schema.GroupKind{Kind: "ReplicationController"}
	deploymentKind            = schema.GroupKind{Group: appsv1.GroupName, Kind: "Deployment"}
	statefulSetKind           = schema.GroupKind{Group: appsv1.GroupName, Kind: "StatefulSet"}
	daemonSetKind             = schema.GroupKind{Group: appsv1.GroupName, Kind: "DaemonSet"}
	replicaSetKind            = schema.GroupKind{Group: appsv1.GroupName, Kind: "ReplicaSet"}
	jobKind                   = schema.GroupKind{Group: batchv1.GroupName, Kind: "Job"}
	cronJobKind               = schema.GroupKind{Group: batchv1.GroupName, Kind: "CronJob"}
	claimKind                 = schema.GroupKind{Kind: "PersistentVolumeClaim"}

	// templateKinds hold pod templates.
	templateKinds = []schema.GroupKind{replicationControllerKind, deploymentKind, statefulSetKind, daemonSetKind, replicaSetKind, jobKind, cronJobKind}
	podKinds      = append([]schema.GroupKind{podKind}, templateKinds...)
	// claimKinds make claims: themselves, a StatefulSet's templates and a
	// pod's ephemeral volumes.
	claimKinds = append([]schema.GroupKind{claimKind}, podKinds...)
)

// ephemeralContainers is the pod subresource that adds debugging
// containers to a running pod.
const ephemeralContainers = "ephemeralcontainers"

// Rules declared here beside their CEL and listed in Rules.
var (
	ruleResources  = Rule{"LL016", "require-resources", "where the Tenant requires it, every container declares cpu and memory requests and limits"}
	ruleScheduling = Rule{"LL019", "pod-scheduling", "a priority class preempts other tenants' pods, and a node name, node selector or toleration lands pods on nodes the platform keeps for itself or another tenant, and a pod affinity term selecting namespaces keeps other tenants' pods off nodes or learns their labels: pods choose only what the Tenant allows"}
	ruleStorage    = Rule{"LL020", "volume-claims", "a claim naming an existing volume, by name or by selector, or another namespace's data source takes data the platform or another tenant left behind, and a storage class the Tenant does not allow provisions what the platform did not grant"}
	ruleImages     = Rule{"LL029", "allowed-images", "where the Tenant lists registries, a container pulls only from them, so that no image the platform has not vetted runs on shared nodes; and where it asks, every pull is checked against the registry, so that a node's cached copy of another tenant's private image is never run without that tenant's credentials"}
)

// defaultNodeLabels are the node labels any pod may select on: no tenant
// holds an operating system, an architecture or a zone.
var defaultNodeLabels = []string{corev1.LabelOSStable, corev1.LabelArchStable, corev1.LabelTopologyZone, corev1.LabelTopologyRegion}

// defaultTolerations are the node-condition taints Kubernetes' own
// controllers tolerate for pods (DefaultTolerationSeconds, the DaemonSet
// controller), so that ordinary charts and DaemonSets keep running.
var defaultTolerations = []string{
	corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable, corev1.TaintNodeMemoryPressure, corev1.TaintNodeDiskPressure,
	corev1.TaintNodePIDPressure, corev1.TaintNodeNetworkUnavailable, corev1.TaintNodeUnschedulable,
}

// keepNode are the pod annotations node autoscalers read as "never evict
// this pod", with the value each compares to: the cluster autoscaler then
// never scales the pod's node down, Karpenter never consolidates or
// replaces it of its own accord. A drain by hand does not read them.
var keepNode = [][2]string{
	{"cluster-autoscaler.kubernetes.io/safe-to-evict", "false"},
	{"karpenter.sh/do-not-disrupt", "true"},
	// Karpenter's name for it before v1beta1, which releases before v1 read.
	{"karpenter.sh/do-not-evict", "true"},
}

// workloadRules are LL016, LL019, LL023 and LL029 on pods and pod
// templates, LL012 on templates (podAccountRules judge pods), and LL020
// on every claim they make. Each reads the pod spec
// through variables.pod, whichever kind holds it, so that a rule is
// written once for the eight kinds; and the Tenant's lists from its
// namespace's annotations (render.PolicyAnnotations). Each lets an update
// keep the values it reads as they were (the ratchet), so that
// controllers can still remove finalizers and scale.
var workloadRules = []inProcessRule{
	accountRule(templateKinds),
	{
		rule:  ruleResources,
		kinds: podKinds,
		at:    `variables.templatePath + "spec." + ["initContainers", "containers"].filter(l, !variables.resourced[l].all(r, r)).map(l, l + "[" + string(variables.resourced[l].indexOf(false)) + "]")[0] + ".resources"`,
		valid: `!variables.requireResources || variables.resourced.all(l, variables.resourced[l].all(r, r)) || ` + keptPod(func(pod string) string {
			return fmt.Sprintf(`(%s.map(c, c.?resources.orValue({})))`, containersOf(pod, false))
		}),
		detail: `"tenant " + ` + labelledTenant + ` + " requires cpu and memory requests and limits on every container; allowed: any quantity"`,
	},
	{
		rule:   ruleScheduling,
		kinds:  podKinds,
		at:     `variables.templatePath + "spec.priorityClassName"`,
		valid:  podString("priorityClassName")("variables.pod") + ` in [""] + variables.priorityClasses || ` + keptPod(podString("priorityClassName")),
		detail: `"tenant " + ` + labelledTenant + ` + " may not preempt with priority class " + variables.pod.priorityClassName + "; allowed: " + ` + orUnset(`variables.priorityClasses`),
	},
	{
		rule:   ruleScheduling,
		kinds:  podKinds,
		at:     `variables.templatePath + "spec.nodeName"`,
		valid:  podString("nodeName")("variables.pod") + ` == "" || variables.platform || ` + keptPod(podString("nodeName")),
		detail: `"pods may not be pinned to a node; allowed: unset, the scheduler places pods"`,
	},
	{
		rule:  ruleScheduling,
		kinds: podKinds,
		at:    `variables.templatePath + "spec.nodeSelector[" + variables.pod.nodeSelector.filter(k, !` + nodeLabel("k", "[variables.pod.nodeSelector[k]]", "false") + `)[0] + "]"`,
		valid: `variables.pod.?nodeSelector.orValue({}).all(k, ` + nodeLabel("k", "[variables.pod.nodeSelector[k]]", "false") + `) || ` +
			keptPod(func(pod string) string { return pod + `.?nodeSelector.orValue({})` }),
		detail: `"tenant " + ` + labelledTenant + ` + " may not select nodes by this label; allowed: " + variables.nodeLabelsAllowed`,
	},
	{
		rule:  ruleScheduling,
		kinds: podKinds,
		at:    `variables.templatePath + "spec.affinity.nodeAffinity"`,
		valid: `variables.nodeTerms.all(t, t.?matchExpressions.orValue([]).all(r, ` + nodeLabel("r.key", `r.?values.orValue([])`, `r.operator != "In"`) + `)) || ` +
			keptPod(func(pod string) string { return pod + `.?affinity.?nodeAffinity.orValue({})` }),
		detail: `"tenant " + ` + labelledTenant + ` + " may not select nodes by " + variables.nodeTerms.map(t, t.?matchExpressions.orValue([]).filter(r, !` +
			nodeLabel("r.key", `r.?values.orValue([])`, `r.operator != "In"`) + `).map(r, r.key + " " + r.operator + " [" + r.?values.orValue([]).join(", ") + "]").join("; ")).filter(s, s != "").join("; ") + ` +
			`"; allowed: " + variables.nodeLabelsAllowed + ", with operator In where values are listed"`,
	},
	{
		rule:   ruleScheduling,
		kinds:  podKinds,
		at:     `variables.templatePath + "spec.affinity.nodeAffinity"`,
		valid:  `variables.platform || variables.nodeTerms.all(t, size(t.?matchFields.orValue([])) == 0) || ` + keptPod(func(pod string) string { return pod + `.?affinity.?nodeAffinity.orValue({})` }),
		detail: `"pods may not pick nodes by name (matchFields); allowed: unset, matchExpressions on allowed labels"`,
	},
	{
		rule:   ruleScheduling,
		kinds:  podKinds,
		at:     `variables.templatePath + "spec.affinity"`,
		valid:  `variables.podTerms.all(t, !has(t.namespaceSelector)) || ` + keptPod(podAffinities),
		detail: `"a pod affinity term's namespaceSelector reaches other tenants' pods; allowed: namespaces of tenant " + ` + labelledTenant + ` + " listed in namespaces"`,
	},
	{
		rule:   ruleScheduling,
		kinds:  podKinds,
		at:     `variables.templatePath + "spec.affinity"`,
		valid:  `variables.podTerms.all(t, t.?namespaces.orValue([]).all(n, n == request.namespace || ` + tenantHoldsNamed("n") + `)) || ` + keptPod(podAffinities),
		detail: `"pod affinity may name namespaces of tenant " + ` + labelledTenant + ` + " only; allowed: its namespaces, or none for the pod's own"`,
	},
	{
		rule:   ruleScheduling,
		kinds:  podKinds,
		at:     `variables.templatePath + "spec.tolerations[" + string(variables.pod.tolerations.map(t, ` + tolerated("t") + `).indexOf(false)) + "]"`,
		valid:  `variables.pod.?tolerations.orValue([]).all(t, ` + tolerated("t") + `) || ` + keptPod(func(pod string) string { return pod + `.?tolerations.orValue([])` }),
		detail: `"tenant " + ` + labelledTenant + ` + " may not tolerate taint " + variables.pod.tolerations.filter(t, !` + tolerated("t") + `).map(t, t.?key.orValue("")).join(", ") + "; allowed: the node conditions ` + strings.Join(defaultTolerations, ", ") + ` and spec.scheduling.tolerations"`,
	},
	{
		rule:  ruleDisruption,
		kinds: podKinds,
		at:    `variables.templatePath + "metadata.annotations[" + ` + celPairs(keepNode) + `.filter(kv, variables.podAnnotations[?kv[0]].orValue("") == kv[1])[0][0] + "]"`,
		valid: celPairs(keepNode) + `.all(kv, variables.podAnnotations[?kv[0]].orValue("") != kv[1]) || ` +
			`(oldObject != null && ` + celPairs(keepNode) + `.all(kv, variables.oldPodAnnotations[?kv[0]].orValue("") == variables.podAnnotations[?kv[0]].orValue("")))`,
		detail: `"node autoscalers never scale down or replace the node of a pod annotated so; allowed: any other value, or none"`,
	},

	claimRule("volumeName", `variables.platform || c.spec.?volumeName.orValue("") == ""`, "",
		`"claims may not bind an existing volume; allowed: unset, a new volume of an allowed storage class"`, `c.spec.?volumeName.orValue("")`),
	claimRule("selector", `variables.platform || !has(c.spec.selector)`, "",
		`"claims may not pick existing volumes by label; allowed: unset, a new volume of an allowed storage class"`, `c.spec.?selector.orValue({})`),
	// Messages have no authorizer: the denial names the first claim
	// copying from another namespace.
	claimRule("dataSourceRef.namespace", `c.spec.?dataSourceRef.?namespace.orValue("") in ["", request.namespace] || `+tenantHoldsNamed("c.spec.dataSourceRef.namespace"),
		`c.spec.?dataSourceRef.?namespace.orValue("") in ["", request.namespace]`,
		`"claims may copy data only from namespaces of tenant " + `+labelledTenant+` + "; allowed: its namespaces, or none for the claim's own"`, `c.spec.?dataSourceRef.orValue({})`),
	claimRule("storageClassName", storageClassAllowed, "",
		`"tenant " + `+labelledTenant+` + " may not provision volumes of storage class " + variables.claims.filter(c, !(`+storageClassAllowed+`))[0].spec.storageClassName + "; allowed: " + `+orUnset(`variables.storageClasses`),
		`c.spec.?storageClassName.orValue(null)`),
	// Kubernetes reads a claim's class from this annotation before
	// spec.storageClassName, and gives no default to a claim carrying it.
	{
		rule:  ruleStorage,
		kinds: claimKinds,
		at:    fmt.Sprintf(`(variables.claims.filter(c, !(%s)).map(c, c.metaPath) + ["metadata"])[0] + ".annotations[%s]"`, betaClassAllowed, betaStorageClass),
		valid: fmt.Sprintf(`variables.claims.all(c, %s) || (oldObject != null && variables.oldClaims.map(c, c.meta[?%[2]q]) == variables.claims.map(c, c.meta[?%[2]q]))`, betaClassAllowed, betaStorageClass),
		detail: fmt.Sprintf(`"tenant " + `+labelledTenant+` + " may not provision volumes of storage class " + variables.claims.filter(c, !(%s))[0].meta[%q] + "; allowed: " + `+orUnset(`variables.storageClasses`),
			betaClassAllowed, betaStorageClass),
	},

	{
		rule:        ruleImages,
		kinds:       podKinds,
		subresource: ephemeralContainers,
		at:          `variables.pulls.filter(p, !` + imageAllowed("p") + `)[0].path`,
		valid: `variables.anyImage || variables.pulls.all(p, ` + imageAllowed("p") + `) || ` +
			keptPod(func(pod string) string { return fmt.Sprintf(`%s.map(c, c.?image.orValue(""))`, imagesOf(pod)) }),
		detail: `"tenant " + ` + labelledTenant + ` + " may not pull " + variables.pulls.filter(p, !` + imageAllowed("p") + `)[0].image + "; allowed: images below " + ` +
			`(size(variables.images) == 0 ? "none (spec.images.allowed is empty)" : variables.images.join(", "))`,
	},
	{
		rule:        ruleImages,
		kinds:       podKinds,
		subresource: ephemeralContainers,
		at:          `variables.pulls.filter(p, ` + pullPolicy("p") + ` != "Always")[0].policyPath`,
		valid: `!variables.pullAlways || variables.pulls.all(p, ` + pullPolicy("p") + ` == "Always") || ` +
			keptPod(func(pod string) string {
				return fmt.Sprintf(`%s.map(c, c.?imagePullPolicy.orValue(""))`, imagesOf(pod))
			}),
		detail: `"tenant " + ` + labelledTenant + ` + " requires every pull checked against the registry; allowed: Always"`,
	},
}

// accountRule is rule LL012 on the pods or templates of kinds: they may
// not run as an account Landlord makes.
func accountRule(kinds []schema.GroupKind) inProcessRule {
	name, alias := podString("serviceAccountName")("variables.pod"), podString("serviceAccount")("variables.pod")
	return inProcessRule{
		rule:  ruleReconciler,
		kinds: kinds,
		at:    `variables.templatePath + "spec." + (` + name + ` in variables.accounts ? "serviceAccountName" : "serviceAccount")`,
		valid: `!(` + name + ` in variables.accounts) && !(` + alias + ` in variables.accounts) || ` + keptPod(podString("serviceAccountName"), podString("serviceAccount")),
		detail: `"pods may not run as " + ([` + name + `, ` + alias + `].filter(a, a in variables.accounts)[0]) + ` +
			`", an account Landlord makes (the reconciler " + variables.reconciler + " or one a TenantResource stamps); allowed: any account of the tenant's own making"`,
	}
}

// PodAccountsName names the ValidatingAdmissionPolicy of LL012 on pods,
// and its binding.
const PodAccountsName = "landlord-pod-accounts"

// podAccountRules are LL012 on pods whoever makes them: a template admitted
// before a TenantResource stamped the account it names would otherwise
// have Kubernetes' controllers, which the other policies spare, run pods
// as the platform's account.
var podAccountRules = []inProcessRule{accountRule([]schema.GroupKind{podKind})}

// PodAccounts is the ValidatingAdmissionPolicy of podAccountRules and its
// binding: creates and updates of pods in tenant namespaces by anyone but
// kubelets (mirror pods run as no account) and Landlord's controller,
// which makes none.
func PodAccounts(platform Platform) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	conditions := []admissionregistrationv1.MatchCondition{{Name: "not-kubelet-or-landlord",
		Expression: fmt.Sprintf(`!(%s || request.userInfo.username == %q)`, nodeCEL(), platform.Controller())}}
	return kindPolicy(PodAccountsName, podAccountRules, conditions, append(inProcessVariables(platform), podVariables...))
}

// podString is a CEL expression, for a pod spec named pod, of its string
// field f, "" where unset.
func podString(f string) func(pod string) string {
	return func(pod string) string { return fmt.Sprintf(`%s.?%s.orValue("")`, pod, f) }
}

// keptPod is the ratchet of a pod rule: same, for values spelled for a
// pod spec, which a request's pod kinds keep in variables.pod.
func keptPod(values ...func(pod string) string) string {
	return same(podKind, inVariables(values, "variables.pod", "variables.oldPod")...)
}

// inVariables respells values of an object as values of the variables
// holding its part, now and before the update.
func inVariables(values []func(string) string, now, before string) []func(o string) string {
	out := make([]func(string) string, len(values))
	for i, v := range values {
		out[i] = func(o string) string {
			if o == "oldObject" {
				return v(before)
			}
			return v(now)
		}
	}
	return out
}

// podTerms are the terms of the pod's affinity of kind, required and
// preferred.
func podTerms(kind string) string {
	return fmt.Sprintf(`variables.pod.?affinity.?%[1]s.?requiredDuringSchedulingIgnoredDuringExecution.orValue([]) + `+
		`variables.pod.?affinity.?%[1]s.?preferredDuringSchedulingIgnoredDuringExecution.orValue([]).map(w, w.?podAffinityTerm.orValue({}))`, kind)
}

// podAffinities are the pod (anti-)affinities of a pod spec.
func podAffinities(pod string) string {
	return fmt.Sprintf(`[%[1]s.?affinity.?podAffinity.orValue({}), %[1]s.?affinity.?podAntiAffinity.orValue({})]`, pod)
}

// containersOf lists a pod spec's init and app containers, and with
// ephemeral its debugging containers.
func containersOf(pod string, ephemeral bool) string {
	out := fmt.Sprintf(`(%[1]s.?initContainers.orValue([]) + %[1]s.?containers.orValue([])`, pod)
	if ephemeral {
		out += fmt.Sprintf(` + %s.?ephemeralContainers.orValue([])`, pod)
	}
	return out + ")"
}

// imagesOf lists what pulls an image in a pod spec: its containers and
// its image volumes, each as a container (image, imagePullPolicy).
func imagesOf(pod string) string {
	return fmt.Sprintf(`(%s + %s.?volumes.orValue([]).filter(v, has(v.image)).map(v, {"image": v.image.?reference.orValue(""), "imagePullPolicy": v.image.?pullPolicy.orValue("")}))`,
		containersOf(pod, true), pod)
}

// orUnset lists the CEL list names, or says none is allowed.
func orUnset(names string) string {
	return fmt.Sprintf(`(size(%[1]s) == 0 ? "unset" : %[1]s.join(", "))`, names)
}

// celPairs spells pairs as a CEL list of two-element lists.
func celPairs(pairs [][2]string) string {
	out := make([]string, len(pairs))
	for i, p := range pairs {
		out[i] = CELList(p[:])
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// nodeLabel is a CEL expression true where pods may select nodes by key
// with values, or where anyValue holds, with any value of key.
func nodeLabel(key, values, anyValue string) string {
	return fmt.Sprintf(`(%[1]s in %[4]s || %[1]s in variables.nodeLabels || !(%[3]s) && %[2]s.all(v, %[1]s + "=" + v in variables.nodeLabels))`,
		key, values, anyValue, CELList(defaultNodeLabels))
}

// tolerated is a CEL expression true where toleration t tolerates only
// taints the defaults or the Tenant's list name; an empty key with Exists
// tolerates them all. Each allowed one is [key, value, effect].
func tolerated(t string) string {
	return fmt.Sprintf(`(%[1]s.?key.orValue("") != "" && (%[1]s.key in %[2]s || variables.tolerations.exists(a, a[0] == %[1]s.key && `+
		`(a[1] == "" || %[1]s.?operator.orValue("Equal") != "Exists" && %[1]s.?value.orValue("") == a[1]) && (a[2] == "" || %[1]s.?effect.orValue("") == a[2]))))`,
		t, CELList(defaultTolerations))
}

// betaStorageClass is the annotation that named a claim's class before
// spec.storageClassName, which Kubernetes still reads first.
const betaStorageClass = "volume.beta.kubernetes.io/storage-class"

// betaClassAllowed is true where claim c's annotation names no class or
// one storageClassAllowed would allow.
var betaClassAllowed = fmt.Sprintf(`!(%[1]q in c.meta) || c.meta[%[1]q] in variables.storageClasses`, betaStorageClass)

// storageClassAllowed is true where claim c names no class, or one the
// Tenant allows or the cluster's default. "" asks for no class: a
// pre-provisioned volume, which is not the tenant's to pick.
const storageClassAllowed = `!has(c.spec.storageClassName) || c.spec.storageClassName in variables.storageClasses`

// claimRule is rule LL020 on field f of every claim the object makes;
// valid judges one claim c, value is what it reads of c. The denial names
// the first claim valid refuses, or where valid asks the authorizer, which
// messages lack, the first claim named holds.
func claimRule(f, valid, named, detail, value string) inProcessRule {
	named = cmp.Or(named, valid)
	return inProcessRule{
		rule:  ruleStorage,
		kinds: claimKinds,
		at:    fmt.Sprintf(`(variables.claims.filter(c, !(%s)).map(c, c.path) + ["spec"])[0] + ".%s"`, named, f),
		valid: fmt.Sprintf(`variables.claims.all(c, %s) || `, valid) +
			same(claimKind, inVariables([]func(string) string{func(claims string) string { return claims + ".map(c, " + value + ")" }}, "variables.claims", "variables.oldClaims")...),
		detail: detail,
	}
}

// claimsOf lists, as {"path", "spec", "metaPath", "meta"} (meta its
// annotations), the claims an object o makes: a claim itself, a
// StatefulSet's templates, a pod's ephemeral volumes.
func claimsOf(o, pod string) string {
	return fmt.Sprintf(`(request.resource.resource == "persistentvolumeclaims" ? [{"path": dyn("spec"), "spec": %[1]s.spec, "metaPath": dyn("metadata"), "meta": %[1]s.metadata.?annotations.orValue({})}] : []) + `+
		`(request.resource.resource == "statefulsets" ? %[1]s.?spec.?volumeClaimTemplates.orValue([]).map(t, [dyn("spec.volumeClaimTemplates[" + string(%[1]s.spec.volumeClaimTemplates.indexOf(t)) + "]")].map(at, `+
		`{"path": dyn(at + ".spec"), "spec": t.?spec.orValue({}), "metaPath": dyn(at + ".metadata"), "meta": t.?metadata.?annotations.orValue({})})[0]) : []) + `+
		`%[2]s.?volumes.orValue([]).filter(v, has(v.ephemeral) && has(v.ephemeral.volumeClaimTemplate)).map(v, `+
		`[dyn(variables.templatePath + "spec.volumes[" + string(%[2]s.volumes.indexOf(v)) + "].ephemeral.volumeClaimTemplate")].map(at, `+
		`{"path": dyn(at + ".spec"), "spec": v.ephemeral.volumeClaimTemplate.?spec.orValue({}), "metaPath": dyn(at + ".metadata"), "meta": v.ephemeral.volumeClaimTemplate.?metadata.?annotations.orValue({})})[0])`, o, pod)
}

// templateOf is the pod template of an object o, whichever kind: a pod is
// its own, a CronJob's is its job template's; {} where there is none.
func templateOf(o string) string {
	return fmt.Sprintf(`request.resource.resource == "pods" ? %[1]s : request.resource.resource == "cronjobs" ? %[1]s.?spec.?jobTemplate.?spec.?template.orValue({}) : %[1]s.?spec.?template.orValue({})`, o)
}

// anchoredReference matches what distribution/reference parses, the
// parser the kubelet and container runtimes read images with.
var anchoredReference = "^" + reference.ReferenceRegexp.String() + "$"

// imageName is a CEL expression of the full name image i stands for,
// Docker Hub's short names expanded as distribution/reference's
// ParseNormalizedNamed expands them, tag and digest dropped; "" where that
// parser refuses it (FuzzImageName holds the two together). Each step is
// bound once, as the element of a list of one.
func imageName(i string) string {
	steps := []struct{ name, value string }{
		{"i", i},
		{"first", `i.indexOf("/") >= 0 ? i.substring(0, i.indexOf("/")) : ""`},
		// The first part is a registry when it has a dot or a port, is
		// localhost or holds capitals; else the image is Docker Hub's.
		{"registry", `i.indexOf("/") >= 0 && (first == "localhost" || first.contains(".") || first.contains(":") || first.lowerAscii() != first)`},
		{"domain", `!registry || first == "index.docker.io" ? "docker.io" : first`},
		{"remainder", `registry ? i.substring(i.indexOf("/") + 1) : i`},
		{"full", `domain + "/" + (domain == "docker.io" && !remainder.contains("/") ? "library/" : "") + remainder`},
		// The name is the full reference less its digest, then less a tag:
		// a colon after the last slash.
		{"undigested", `full.split("@")[0]`},
		{"name", `undigested.lastIndexOf(":") > undigested.lastIndexOf("/") ? undigested.substring(0, undigested.lastIndexOf(":")) : undigested`},
	}
	// The repository path is the name less its registry, where the
	// grammar reads one: a first part that is no host name is path too.
	out := fmt.Sprintf(`full.matches(%q) && !i.matches(%q) && remainder.split(":")[0].lowerAscii() == remainder.split(":")[0] && `+
		`(domain.matches(%q) ? size(name) - size(domain) - 1 : size(name)) <= %d ? name : ""`,
		anchoredReference, "^"+reference.IdentifierRegexp.String()+"$", "^"+reference.DomainRegexp.String()+"$", reference.RepositoryNameTotalLengthMax)
	for k := len(steps) - 1; k >= 0; k-- {
		out = fmt.Sprintf(`[%s].map(%s, %s)[0]`, steps[k].value, steps[k].name, out)
	}
	return out
}

// imageAllowed is a CEL expression true where the full name of pull p is
// one of the Tenant's prefixes or continues one with "/". An image that
// does not parse is not allowed.
func imageAllowed(p string) string {
	return fmt.Sprintf(`(%[1]s.name != "" && variables.images.exists(x, %[1]s.name == x || %[1]s.name.startsWith(x + "/")))`, p)
}

// pullPolicy is a CEL expression of a pull's policy (p.imagePullPolicy)
// as the API server defaults it, for containers and image volumes alike:
// Always for an image tagged latest or not at all, else IfNotPresent.
// Lint reads manifests before that defaulting.
func pullPolicy(p string) string {
	named := fmt.Sprintf(`%s.image.split("@")[0]`, p)
	tag := fmt.Sprintf(`(%[1]s.lastIndexOf(":") > %[1]s.lastIndexOf("/") ? %[1]s.substring(%[1]s.lastIndexOf(":") + 1) : "")`, named)
	return fmt.Sprintf(`(%[1]s.imagePullPolicy != "" ? %[1]s.imagePullPolicy : (%[2]s == "" && !%[1]s.image.contains("@")) || %[2]s == "latest" ? "Always" : "IfNotPresent")`, p, tag)
}

// podVariables are the pod spec and template of a request, whichever kind
// holds them, and the accounts pods may not run as.
var podVariables = []admissionregistrationv1.Variable{
	{Name: "template", Expression: templateOf("object")},
	{Name: "oldTemplate", Expression: `oldObject == null ? {} : ` + templateOf("oldObject")},
	// templatePath: where the pod template is, for denials.
	{Name: "templatePath", Expression: `request.resource.resource == "pods" ? "" : request.resource.resource == "cronjobs" ? "spec.jobTemplate.spec.template." : "spec.template."`},
	{Name: "pod", Expression: `variables.template.?spec.orValue({})`},
	{Name: "oldPod", Expression: `variables.oldTemplate.?spec.orValue({})`},
	// accounts: those Landlord makes in the namespace, which pods may not
	// run as.
	{Name: "accounts", Expression: `([variables.reconciler] + ` + annotationLines(v1alpha1.StampedAccountsAnnotation) + `).filter(a, a != "")`},
}

// workloadVariables are what the workload rules read, evaluated once a
// request where a rule reads them.
var workloadVariables = append(slices.Clone(podVariables), []admissionregistrationv1.Variable{
	{Name: "podAnnotations", Expression: `variables.template.?metadata.?annotations.orValue({})`},
	{Name: "oldPodAnnotations", Expression: `variables.oldTemplate.?metadata.?annotations.orValue({})`},
	// annotated: the controller has written the tenant's lists on the
	// namespace; until it has, each is empty and each switch on.
	{Name: "annotated", Expression: fmt.Sprintf(`has(namespaceObject.metadata.annotations) && %q in namespaceObject.metadata.annotations`, v1alpha1.AllowedImagesAnnotation)},
	{Name: "priorityClasses", Expression: annotationLines(v1alpha1.PriorityClassesAnnotation) + ` + variables.` + DefaultPriorityClassVariable},
	{Name: "storageClasses", Expression: annotationLines(v1alpha1.StorageClassesAnnotation) + ` + variables.` + DefaultStorageClassVariable},
	{Name: "nodeLabels", Expression: annotationLines(v1alpha1.NodeLabelsAnnotation)},
	{Name: "nodeLabelsAllowed", Expression: fmt.Sprintf(`(%s + variables.nodeLabels).join(", ")`, CELList(defaultNodeLabels))},
	{Name: "tolerations", Expression: annotationLines(v1alpha1.TolerationsAnnotation) + `.map(l, l.split(" ")).filter(a, size(a) == 3)`},
	{Name: "images", Expression: annotationLines(v1alpha1.AllowedImagesAnnotation)},
	{Name: "anyImage", Expression: fmt.Sprintf(`variables.images == [%q]`, render.AnyImage)},
	{Name: "pullAlways", Expression: fmt.Sprintf(`!variables.annotated || %s == "true"`, namespaceAnnotation(v1alpha1.PullAlwaysAnnotation))},
	{Name: "requireResources", Expression: fmt.Sprintf(`!variables.annotated || %s == "true"`, namespaceAnnotation(v1alpha1.RequireResourcesAnnotation))},
	// resourced: by list, whether each container declares cpu and memory
	// requests and limits.
	{Name: "resourced", Expression: fmt.Sprintf(`{"initContainers": variables.pod.?initContainers.orValue([]).map(c, %[1]s), "containers": variables.pod.?containers.orValue([]).map(c, %[1]s)}`,
		`["cpu", "memory"].all(r, r in c.?resources.?requests.orValue({}) && r in c.?resources.?limits.orValue({}))`)},
	{Name: "nodeTerms", Expression: `variables.pod.?affinity.?nodeAffinity.?requiredDuringSchedulingIgnoredDuringExecution.?nodeSelectorTerms.orValue([]) + ` +
		`variables.pod.?affinity.?nodeAffinity.?preferredDuringSchedulingIgnoredDuringExecution.orValue([]).map(p, p.?preference.orValue({}))`},
	// podTerms: every pod (anti-)affinity term, spelled out: lists'
	// flatten came in Kubernetes 1.34.
	{Name: "podTerms", Expression: podTerms("podAffinity") + " + " + podTerms("podAntiAffinity")},
	// pulls: every image the pod pulls, with where it and its policy are.
	{Name: "pulls", Expression: pulls()},
	{Name: "claims", Expression: claimsOf("object", "variables.pod")},
	{Name: "oldClaims", Expression: `oldObject == null ? [] : ` + claimsOf("oldObject", "variables.oldPod")},
}...)

// pulls is the CEL list of the images a pod spec pulls, each with its
// policy, its full name and the fields that hold them.
func pulls() string {
	var parts []string
	for _, list := range []string{"initContainers", "containers", "ephemeralContainers"} {
		parts = append(parts, fmt.Sprintf(`variables.pod.?%[1]s.orValue([]).map(c, {"path": variables.templatePath + "spec.%[1]s[" + string(variables.pod.%[1]s.indexOf(c)) + "].image", `+
			`"policyPath": variables.templatePath + "spec.%[1]s[" + string(variables.pod.%[1]s.indexOf(c)) + "].imagePullPolicy", "image": string(c.?image.orValue("")), "imagePullPolicy": string(c.?imagePullPolicy.orValue(""))})`, list))
	}
	parts = append(parts, `variables.pod.?volumes.orValue([]).filter(v, has(v.image)).map(v, {"path": variables.templatePath + "spec.volumes[" + string(variables.pod.volumes.indexOf(v)) + "].image.reference", `+
		`"policyPath": variables.templatePath + "spec.volumes[" + string(variables.pod.volumes.indexOf(v)) + "].image.pullPolicy", "image": string(v.image.?reference.orValue("")), "imagePullPolicy": string(v.image.?pullPolicy.orValue(""))})`)
	return fmt.Sprintf(`(%s).map(p, {"path": p.path, "policyPath": p.policyPath, "image": p.image, "imagePullPolicy": p.imagePullPolicy, "name": %s})`,
		strings.Join(parts, " + "), imageName("p.image"))
}

// annotationLines is a CEL expression of the lines of the request
// namespace's annotation key, empty ones dropped.
func annotationLines(key string) string {
	return namespaceAnnotation(key) + `.split("\n").filter(l, l != "")`
}

// The variables of the workloads policy holding the cluster's default
// classes, which the API server's admission plugins write into pods and
// claims naming none: a list of the one class, empty for none.
const (
	DefaultPriorityClassVariable = "defaultPriorityClass"
	DefaultStorageClassVariable  = "defaultStorageClass"
)

// defaultVariables spell the cluster's default classes d in the policy
// itself: a binding refuses every write it matches while its parameter is
// missing, Kubernetes' own controllers' pods included.
func defaultVariables(d Defaults) []admissionregistrationv1.Variable {
	return []admissionregistrationv1.Variable{
		{Name: DefaultPriorityClassVariable, Expression: CELList(nonEmpty(d.PriorityClass))},
		{Name: DefaultStorageClassVariable, Expression: CELList(nonEmpty(d.StorageClass))},
	}
}

// nonEmpty is v as a list, empty for "".
func nonEmpty(v string) []string {
	if v == "" {
		return nil
	}
	return []string{v}
}

// Workloads is the ValidatingAdmissionPolicy of workloadRules and its
// binding: creates and updates of pods, workloads and claims in tenant
// namespaces, by anyone SparedCEL does not spare, the platform's admins
// and Flux's controllers included. It holds the cluster's default
// classes, platform.Defaults, which the controller keeps current.
func Workloads(platform Platform) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	variables := slices.Concat(inProcessVariables(platform), defaultVariables(platform.Defaults), workloadVariables)
	vap, binding := kindPolicy(WorkloadsName, workloadRules, notSpared(platform), variables)
	// Debugging containers join a running pod through a subresource, and
	// pull images like any other.
	vap.Spec.MatchConstraints.ResourceRules = append(vap.Spec.MatchConstraints.ResourceRules, admissionregistrationv1.NamedRuleWithOperations{
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"*"}, Resources: []string{"pods/" + ephemeralContainers},
				Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
		},
	})
	return vap, binding
}
