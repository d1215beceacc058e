package policy

import (
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// fakeShared is an in-memory Shared: ops holds shop.example.com, dev-team
// holds api.example.com in its other namespace; the cluster's default
// classes are normal, standard and nginx.
var fakeShared = sharedFake{
	hosts:    map[string][]string{"shop.example.com": {"ops"}, "api.example.com": {"apps-jobs"}, "admin.example.com": {"kube-system"}},
	defaults: Defaults{PriorityClass: "normal", StorageClass: "standard", IngressClass: "nginx"},
}

type sharedFake struct {
	hosts    map[string][]string
	defaults Defaults
	err      error
}

func (f sharedFake) HostHolders(host string) ([]HostHolder, error) {
	var out []HostHolder
	for _, ns := range f.hosts[host] {
		out = append(out, HostHolder{Namespace: ns})
	}
	return out, f.err
}
func (f sharedFake) Defaults() Defaults { return f.defaults }

// withShared is req judged with the fake cluster's Ingresses and defaults.
func withShared(req Request) Request {
	req.Shared = fakeShared
	return req
}

// pool is dev-team's own node pool and dedicated-node taint.
var pool = optIns{scheduling: v1alpha1.Scheduling{
	PriorityClasses: []string{"batch-low"},
	NodeLabels:      []v1alpha1.NodeLabel{{Key: "pool", Values: []string{"dev"}}, {Key: "gpu"}},
	Tolerations:     []v1alpha1.AllowedToleration{{Key: "dedicated", Value: "dev", Effect: corev1.TaintEffectNoSchedule}, {Key: "gpu"}},
}}

func tolerate(ts ...corev1.Toleration) func(*corev1.PodSpec) {
	return func(p *corev1.PodSpec) { p.Tolerations = ts }
}

func requireNodes(exprs ...corev1.NodeSelectorRequirement) func(*corev1.PodSpec) {
	return func(p *corev1.PodSpec) {
		p.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: exprs}},
		}}}
	}
}

func selectNodes(labels map[string]string) func(*corev1.PodSpec) {
	return func(p *corev1.PodSpec) { p.NodeSelector = labels }
}

func priority(name string) func(*corev1.PodSpec) {
	return func(p *corev1.PodSpec) { p.PriorityClassName = name }
}

// daemonPinned is a pod as the DaemonSet controller makes it: pinned to
// its node by field, tolerating the node conditions.
func daemonPinned(p *corev1.PodSpec) {
	p.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"worker-1"}}}}},
	}}}
	p.Tolerations = []corev1.Toleration{
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeDiskPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	}
}

var kubeDaemonSets = authenticationv1.UserInfo{Username: "system:serviceaccount:kube-system:daemon-set-controller"}

// schedulingCases are LL019: priority, node pinning, node selection and
// tolerations, each beside its allowed neighbour; they join testCases.
var schedulingCases = map[string]testCase{
	// Priority: the cluster's default and the Tenant's list.
	"pod preempting as system-node-critical":    {req: withShared(create(owner, "apps", newPod("apps", priority("system-node-critical")))), want: "LL019"},
	"pod of a priority class not listed":        {req: withShared(create(owner, "apps", newPod("apps", priority("batch-high")))), allow: pool, want: "LL019"},
	"pod of the cluster's default priority":     {req: withShared(create(owner, "apps", newPod("apps", priority("normal"))))},
	"pod of a priority class listed":            {req: withShared(create(owner, "apps", newPod("apps", priority("batch-low")))), allow: pool},
	"pod naming no priority class":              {req: create(owner, "apps", newPod("apps"))},
	"deployment preempting as cluster-critical": {req: create(reconciler, "apps", withTemplate(newDeployment("app", false), priority("system-cluster-critical"))), want: "LL019"},

	// Pinning to a node skips the scheduler and every taint.
	"pod pinned to a node":                     {req: create(owner, "apps", newPod("apps", func(p *corev1.PodSpec) { p.NodeName = "worker-1" })), want: "LL019"},
	"pod picking its node by field":            {req: create(owner, "apps", newPod("apps", daemonPinned)), want: "LL019"},
	"daemon pod the DaemonSet controller pins": {req: create(kubeDaemonSets, "apps", newPod("apps", daemonPinned))},
	"scheduled pod relabelled by its owner": {req: update(owner, "apps", newPod("apps", func(p *corev1.PodSpec) { p.NodeName = "worker-1" }),
		withLabels(newPod("apps", func(p *corev1.PodSpec) { p.NodeName = "worker-1" }), map[string]string{"team": "dev"}))},

	// Node selection: os, arch and zone for anyone; other labels by the list.
	"pod selecting its os and arch":       {req: create(owner, "apps", newPod("apps", selectNodes(map[string]string{corev1.LabelOSStable: "linux", corev1.LabelArchStable: "arm64"})))},
	"pod selecting the platform's nodes":  {req: create(owner, "apps", newPod("apps", selectNodes(map[string]string{"node-role.kubernetes.io/control-plane": ""}))), want: "LL019"},
	"pod selecting another tenant's pool": {req: create(owner, "apps", newPod("apps", selectNodes(map[string]string{"pool": "ops"}))), allow: pool, want: "LL019"},
	"pod selecting its own pool":          {req: create(owner, "apps", newPod("apps", selectNodes(map[string]string{"pool": "dev"}))), allow: pool},
	"pod selecting a node by hostname":    {req: create(owner, "apps", newPod("apps", selectNodes(map[string]string{corev1.LabelHostname: "worker-1"}))), want: "LL019"},
	"affinity to its own pool":            {req: create(owner, "apps", newPod("apps", requireNodes(corev1.NodeSelectorRequirement{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"dev"}}))), allow: pool},
	"affinity to any pool":                {req: create(owner, "apps", newPod("apps", requireNodes(corev1.NodeSelectorRequirement{Key: "pool", Operator: corev1.NodeSelectorOpExists}))), allow: pool, want: "LL019"},
	"affinity to any gpu model":           {req: create(owner, "apps", newPod("apps", requireNodes(corev1.NodeSelectorRequirement{Key: "gpu", Operator: corev1.NodeSelectorOpExists}))), allow: pool},
	"affinity to a zone":                  {req: create(owner, "apps", newPod("apps", requireNodes(corev1.NodeSelectorRequirement{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"eu-1a"}})))},
	"preferring the platform's nodes": {req: create(owner, "apps", newPod("apps", func(p *corev1.PodSpec) {
		p.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
			Weight: 1, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "node-role.kubernetes.io/infra", Operator: corev1.NodeSelectorOpExists}}},
		}}}}
	})), want: "LL019"},

	// Pod (anti-)affinity: the tenant's own namespaces, never a selector of namespaces.
	"anti-affinity to every pod of every namespace": {req: create(owner, "apps", newPod("apps", podTerm(true, &metav1.LabelSelector{}, nil))), want: "LL019"},
	"affinity to pods of a namespace selector":      {req: create(owner, "apps", newPod("apps", podTerm(false, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "ops"}}, nil))), want: "LL019"},
	"affinity to another tenant's namespace":        {req: create(owner, "apps", newPod("apps", podTerm(false, nil, []string{"ops"}))), want: "LL019"},
	"deployment spreading away from every pod":      {req: create(reconciler, "apps", withTemplate(newDeployment("app", false), podTerm(true, &metav1.LabelSelector{}, nil))), want: "LL019"},
	"anti-affinity to its own replicas":             {req: create(owner, "apps", newPod("apps", podTerm(true, nil, nil)))},
	"affinity to pods of its other namespace":       {req: create(owner, "apps", newPod("apps", podTerm(false, nil, []string{"apps", "apps-jobs"})))},

	// Tolerations: the node conditions Kubernetes adds, and the Tenant's list.
	"pod with the default NoExecute tolerations": {req: create(owner, "apps", newPod("apps", tolerate(
		corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptrTo[int64](300)},
		corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptrTo[int64](300)},
	)))},
	"pod tolerating every taint":            {req: create(owner, "apps", newPod("apps", tolerate(corev1.Toleration{Operator: corev1.TolerationOpExists}))), allow: pool, want: "LL019"},
	"pod tolerating the control plane":      {req: create(owner, "apps", newPod("apps", tolerate(corev1.Toleration{Key: "node-role.kubernetes.io/control-plane", Operator: corev1.TolerationOpExists}))), want: "LL019"},
	"pod tolerating its dedicated nodes":    {req: create(owner, "apps", newPod("apps", tolerate(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "dev", Effect: corev1.TaintEffectNoSchedule}))), allow: pool},
	"pod tolerating another's dedicated":    {req: create(owner, "apps", newPod("apps", tolerate(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "ops", Effect: corev1.TaintEffectNoSchedule}))), allow: pool, want: "LL019"},
	"pod tolerating every dedicated value":  {req: create(owner, "apps", newPod("apps", tolerate(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}))), allow: pool, want: "LL019"},
	"pod tolerating dedicated for eviction": {req: create(owner, "apps", newPod("apps", tolerate(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "dev"}))), allow: pool, want: "LL019"},
	"pod tolerating any gpu taint":          {req: create(owner, "apps", newPod("apps", tolerate(corev1.Toleration{Key: "gpu", Operator: corev1.TolerationOpExists}))), allow: pool},
}

func withTemplate(d *appsv1.Deployment, edit func(*corev1.PodSpec)) *appsv1.Deployment {
	edit(&d.Spec.Template.Spec)
	return d
}

func ptrTo[T any](v T) *T { return &v }

func init() { maps.Copy(testCases, schedulingCases) }

// podTerm sets a required pod anti-affinity (or, preferred, an affinity)
// term over app=web pods in namespaces and those namespaceSelector selects.
func podTerm(anti bool, namespaceSelector *metav1.LabelSelector, namespaces []string) func(*corev1.PodSpec) {
	term := corev1.PodAffinityTerm{
		LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		TopologyKey:       corev1.LabelHostname,
		NamespaceSelector: namespaceSelector,
		Namespaces:        namespaces,
	}
	return func(p *corev1.PodSpec) {
		if anti {
			p.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term}}}
			return
		}
		p.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: term}}}}
	}
}
