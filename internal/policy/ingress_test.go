package policy

import (
	"errors"
	"maps"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

// devHosts lets dev-team serve below dev.example.com and api.example.com.
var devHosts = optIns{ingress: v1alpha1.Ingress{Classes: []string{"internal"}, Hostnames: []string{"*.dev.example.com", "api.example.com", "shop.example.com"}}}

func newIngress(hosts ...string) *networkingv1.Ingress {
	ing := &networkingv1.Ingress{ObjectMeta: objectMeta("web", "apps")}
	for _, h := range hosts {
		ing.Spec.Rules = append(ing.Spec.Rules, networkingv1.IngressRule{Host: h})
	}
	return ing
}

func withClass(ing *networkingv1.Ingress, class string) *networkingv1.Ingress {
	ing.Spec.IngressClassName = &class
	return ing
}

func newBudget(minAvailable, maxUnavailable *intstr.IntOrString) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{ObjectMeta: objectMeta("web", "apps"), Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: minAvailable, MaxUnavailable: maxUnavailable}}
}

func quantity(s string) *intstr.IntOrString { v := intstr.Parse(s); return &v }

// ingressCases are LL021, LL022 and LL023 (budgets and the pod annotations
// node autoscalers read), and LL011's anonymous user; they join testCases.
var ingressCases = map[string]testCase{
	// LL021
	"external name service":               {req: create(reconciler, "apps", newService(corev1.ServiceTypeExternalName)), want: "LL021"},
	"external name service where allowed": {req: create(opsReconciler, "ops", newServiceIn("ops", corev1.ServiceTypeExternalName))},

	// LL022: hostnames by pattern, held by no other tenant, classes.
	"ingress below its domain":             {req: withShared(create(reconciler, "apps", newIngress("web.dev.example.com"))), allow: devHosts},
	"ingress of its wildcard host":         {req: withShared(create(reconciler, "apps", newIngress("*.dev.example.com"))), allow: devHosts},
	"ingress outside its hostnames":        {req: withShared(create(reconciler, "apps", newIngress("web.ops.example.com"))), allow: devHosts, want: "LL022"},
	"ingress of the parent wildcard":       {req: withShared(create(reconciler, "apps", newIngress("*.example.com"))), allow: devHosts, want: "LL022"},
	"ingress of its domain's lookalike":    {req: withShared(create(reconciler, "apps", newIngress("evildev.example.com"))), allow: devHosts, want: "LL022"},
	"ingress without hostnames allowed":    {req: withShared(create(reconciler, "apps", newIngress("web.dev.example.com"))), want: "LL022"},
	"ingress of another tenant's hostname": {req: withShared(create(reconciler, "apps", newIngress("shop.example.com"))), allow: devHosts, want: "LL022"},
	"ingress of its own other namespace's": {req: withShared(create(reconciler, "apps", newIngress("api.example.com"))), allow: devHosts},
	"ingress of a platform hostname":       {req: withShared(create(reconciler, "apps", newIngress("admin.example.com"))), allow: optIns{ingress: v1alpha1.Ingress{Hostnames: []string{"*.example.com"}}}, want: "LL022"},
	"ingress catching every host":          {req: withShared(create(reconciler, "apps", newIngress(""))), allow: devHosts, want: "LL022"},
	"ingress with a default backend": {req: withShared(create(reconciler, "apps", func() *networkingv1.Ingress {
		ing := newIngress("web.dev.example.com")
		ing.Spec.DefaultBackend = &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web"}}
		return ing
	}())), allow: devHosts, want: "LL022"},
	"ingress with TLS for another's host": {req: withShared(create(reconciler, "apps", func() *networkingv1.Ingress {
		ing := newIngress("web.dev.example.com")
		ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"shop.example.com"}, SecretName: "tls"}}
		return ing
	}())), allow: devHosts, want: "LL022"},
	"ingress of the default class":     {req: withShared(create(reconciler, "apps", withClass(newIngress("web.dev.example.com"), "nginx"))), allow: devHosts},
	"ingress of a class listed":        {req: withShared(create(reconciler, "apps", withClass(newIngress("web.dev.example.com"), "internal"))), allow: devHosts},
	"ingress of a class not listed":    {req: withShared(create(reconciler, "apps", withClass(newIngress("web.dev.example.com"), "public-edge"))), allow: devHosts, want: "LL022"},
	"ingress of a class by annotation": {req: withShared(create(reconciler, "apps", withAnnotations(newIngress("web.dev.example.com"), map[string]string{legacyIngressClass: "public-edge"}))), allow: devHosts, want: "LL022"},

	// LL022: the annotations ingress-nginx trusts.
	"ingress with a configuration snippet":        {req: nginx(map[string]string{"configuration-snippet": `more_set_headers "X: y";`}), allow: devHosts, want: "LL022"},
	"ingress with a server snippet":               {req: nginx(map[string]string{"server-snippet": "location /x { return 200; }"}), allow: devHosts, want: "LL022"},
	"ingress with the controller's other options": {req: nginx(map[string]string{"proxy-body-size": "8m", "rewrite-target": "/$2", "whitelist-source-range": "10.0.0.0/8", "default-backend": "errors"}), allow: devHosts},
	"ingress with client CAs of another tenant":   {req: nginx(map[string]string{"auth-tls-secret": "ops/client-ca"}), allow: devHosts, want: "LL022"},
	"ingress with client CAs of its other one":    {req: nginx(map[string]string{"auth-tls-secret": "apps-jobs/client-ca"}), allow: devHosts},
	"ingress with passwords of the platform":      {req: nginx(map[string]string{"auth-secret": "kube-system/htpasswd"}), allow: devHosts, want: "LL022"},
	"ingress with passwords by name":              {req: nginx(map[string]string{"auth-secret": "htpasswd"}), allow: devHosts},
	"ingress with headers of another tenant":      {req: nginx(map[string]string{"custom-headers": "ops/headers", "proxy-ssl-secret": "apps/backend-tls"}), allow: devHosts, want: "LL022"},
	"ingress authenticating at another's service": {req: nginx(map[string]string{"auth-url": "http://auth.ops.svc.cluster.local/verify"}), allow: devHosts, want: "LL022"},
	"ingress authenticating at its own service":   {req: nginx(map[string]string{"auth-url": "http://auth.apps-jobs.svc.cluster.local:8080/verify"}), allow: devHosts},
	"ingress authenticating outside the cluster":  {req: nginx(map[string]string{"auth-url": "https://auth.example.com/oauth2/auth", "auth-signin": "https://$host/oauth2/start?rd=$escaped_request_uri"}), allow: devHosts},
	"ingress authenticating at an address":        {req: nginx(map[string]string{"auth-url": "http://169.254.169.254/latest/meta-data"}), allow: devHosts, want: "LL022"},
	"ingress authenticating at the controller":    {req: nginx(map[string]string{"auth-url": "http://localhost:10246/configuration"}), allow: devHosts, want: "LL022"},
	"ingress authenticating where clients say":    {req: nginx(map[string]string{"auth-url": "http://$http_x_target/verify"}), allow: devHosts, want: "LL022"},
	"ingress signing in at another's service":     {req: nginx(map[string]string{"auth-signin": "http://login.ops.svc/start"}), allow: devHosts, want: "LL022"},
	"ingress mirroring to another's service":      {req: nginx(map[string]string{"mirror-target": "http://sink.ops.svc.cluster.local$request_uri"}), allow: devHosts, want: "LL022"},
	"ingress mirroring outside the cluster":       {req: nginx(map[string]string{"mirror-target": "https://mirror.example.com$request_uri"}), allow: devHosts},
	"ingress aliased to another tenant's host":    {req: nginx(map[string]string{"server-alias": "www.dev.example.com, shop.example.com"}), allow: devHosts, want: "LL022"},
	"ingress aliased within its hostnames":        {req: nginx(map[string]string{"server-alias": "www.dev.example.com,api.example.com"}), allow: devHosts},
	"ingress aliased to every unclaimed host":     {req: nginx(map[string]string{"server-alias": "~^|x.dev.example.com"}), allow: devHosts, want: "LL022"},

	// LL023
	"budget allowing no eviction":           {req: create(reconciler, "apps", newBudget(nil, quantity("0"))), want: "LL023"},
	"budget allowing 0% unavailable":        {req: create(reconciler, "apps", newBudget(nil, quantity("0%"))), want: "LL023"},
	"budget keeping every pod":              {req: create(reconciler, "apps", newBudget(quantity("100%"), nil)), want: "LL023"},
	"budget admitted before the rule, kept": {req: update(reconciler, "apps", newBudget(quantity("100%"), quantity("0")), newBudget(quantity("100%"), quantity("0")))},
	"budget changed to allow no eviction":   {req: update(reconciler, "apps", newBudget(nil, quantity("1")), newBudget(nil, quantity("0"))), want: "LL023"},
	"budget allowing one eviction":          {req: create(reconciler, "apps", newBudget(nil, quantity("1")))},
	"budget keeping most pods":              {req: create(reconciler, "apps", newBudget(quantity("80%"), nil))},
	"budget keeping a number of pods":       {req: create(reconciler, "apps", newBudget(quantity("2"), nil))},
	// LL023: pod annotations node autoscalers read as never evict.
	"pod not safe to evict":               {req: create(owner, "apps", withAnnotations(newPod("apps"), map[string]string{"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"})), want: "LL023"},
	"pod safe to evict":                   {req: create(owner, "apps", withAnnotations(newPod("apps"), map[string]string{"cluster-autoscaler.kubernetes.io/safe-to-evict": "true"}))},
	"deployment's pods not to disrupt":    {req: create(reconciler, "apps", withTemplateAnnotations(newDeployment("app", false), map[string]string{"karpenter.sh/do-not-disrupt": "true"})), want: "LL023"},
	"deployment's pods free to disrupt":   {req: create(reconciler, "apps", withTemplateAnnotations(newDeployment("app", false), map[string]string{"karpenter.sh/do-not-disrupt": "false", "prometheus.io/scrape": "true"}))},
	"cron job's pods not to evict":        {req: create(reconciler, "apps", withJobTemplateAnnotations(newCronJob("app"), map[string]string{"karpenter.sh/do-not-evict": "true"})), want: "LL023"},
	"cron job's pods of other annotation": {req: create(reconciler, "apps", withJobTemplateAnnotations(newCronJob("app"), map[string]string{"karpenter.sh/capacity-type": "spot"}))},
	"pod keeping the mark it had": {req: update(owner, "apps",
		withAnnotations(newPod("apps"), map[string]string{"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}),
		withLabels(withAnnotations(newPod("apps"), map[string]string{"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}), map[string]string{"team": "dev"}))},

	// LL011: whoever sends no credentials is nobody's.
	"binding the anonymous user":    {req: create(owner, "apps", newRoleBinding("ClusterRole", "view", rbacv1.Subject{Kind: rbacv1.UserKind, Name: "system:anonymous"})), want: "LL011"},
	"binding every unauthenticated": {req: create(owner, "apps", newRoleBinding("ClusterRole", "view", rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "system:unauthenticated"})), want: "LL011"},
	"binding a user of its own":     {req: create(owner, "apps", newRoleBinding("ClusterRole", "view", rbacv1.Subject{Kind: rbacv1.UserKind, Name: "dave"}))},
}

func withAnnotations[T interface{ SetAnnotations(map[string]string) }](obj T, annotations map[string]string) T {
	obj.SetAnnotations(annotations)
	return obj
}

// nginx is an Ingress of dev-team's with ingress-nginx's annotations, by
// name without the prefix, judged with the fake cluster's Ingresses.
func nginx(annotations map[string]string) Request {
	prefixed := map[string]string{}
	for k, v := range annotations {
		prefixed[nginxPrefix+k] = v
	}
	return withShared(create(reconciler, "apps", withAnnotations(newIngress("web.dev.example.com"), prefixed)))
}

// withTemplateAnnotations sets the annotations of a Deployment's pods.
func withTemplateAnnotations(d *appsv1.Deployment, annotations map[string]string) *appsv1.Deployment {
	d.Spec.Template.Annotations = annotations
	return d
}

// withJobTemplateAnnotations sets the annotations of a CronJob's pods.
func withJobTemplateAnnotations(c *batchv1.CronJob, annotations map[string]string) *batchv1.CronJob {
	c.Spec.JobTemplate.Spec.Template.Annotations = annotations
	return c
}

func init() { maps.Copy(testCases, ingressCases) }

// TestHostnameHoldersUnknown: the guard refuses a hostname it cannot tell
// the holder of, rather than letting a collision through.
func TestHostnameHoldersUnknown(t *testing.T) {
	req := create(reconciler, "apps", newIngress("web.dev.example.com"))
	req.Shared = sharedFake{err: errors.New("cache not synced")}
	if got := ruleIDs(Evaluate(req, testTenants.allowing(devHosts))); got != "LL022" {
		t.Fatalf("rules = %q, want LL022", got)
	}
}

func TestMatchHostname(t *testing.T) {
	for name, tc := range map[string]struct {
		pattern, host string
		want          bool
	}{
		"same name":             {"api.example.com", "api.example.com", true},
		"other case":            {"api.example.com", "API.example.com", true},
		"other name":            {"api.example.com", "www.example.com", false},
		"one label below":       {"*.dev.example.com", "web.dev.example.com", true},
		"two labels below":      {"*.dev.example.com", "a.web.dev.example.com", true},
		"the wildcard itself":   {"*.dev.example.com", "*.dev.example.com", true},
		"the domain itself":     {"*.dev.example.com", "dev.example.com", false},
		"a lookalike":           {"*.dev.example.com", "evildev.example.com", false},
		"a wider wildcard":      {"*.dev.example.com", "*.example.com", false},
		"exact is not wildcard": {"dev.example.com", "web.dev.example.com", false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := matchHostname(tc.pattern, tc.host); got != tc.want {
				t.Fatalf("matchHostname(%q, %q) = %v, want %v", tc.pattern, tc.host, got, tc.want)
			}
		})
	}
}

func TestClusterURL(t *testing.T) {
	s := scope{ns: "apps", tenant: testTenants.tenants[0], tenants: testTenants}
	for url, want := range map[string]bool{
		"https://auth.example.com/oauth2/auth":              false,
		"https://user:pw@auth.example.com:8443/x?y=1":       false,
		"https://$host/oauth2/auth":                         false,
		"https://${host}/oauth2/auth":                       false,
		"https://mirror.example.com$request_uri":            false,
		"http://auth.apps.svc/verify":                       false,
		"http://auth.apps-jobs.svc.cluster.local./verify":   false,
		"http://pod-0.auth.apps.svc.cluster.local/verify":   false,
		"http://auth.ops.svc.cluster.local/verify":          true,
		"http://AUTH.OPS.SVC/verify":                        true,
		"http://pod-0.auth.ops.svc.example.internal/verify": true,
		"http://auth.kube-system.svc:8080":                  true,
		"http://10.96.0.10/verify":                          true,
		"http://[fd00::1]:8080/verify":                      true,
		"http://127.1/verify":                               true,
		"http://0x7f.1/verify":                              true,
		"http://localhost/verify":                           true,
		"http://auth:8080/verify":                           true,
		"http://$http_x_target/verify":                      true,
		"http://${arg_to}/verify":                           true,
		"http://auth.o$http_x_h/verify":                     true,
		"http://sink.o$arg_h$request_uri":                   true,
		"http://sink.example.com${request_uri}":             false,
		"http://sink.example.com$uri_extra":                 true,
		"http://169-254-169-254.default.pod.cluster.local/": true,
		"http://10-244-1-7.ops.pod.cluster.local:8080/":     true,
	} {
		t.Run(url, func(t *testing.T) {
			if got := clusterURL(url, s); (got != "") != want {
				t.Fatalf("clusterURL(%q) = %q, want refused %v", url, got, want)
			}
		})
	}
}
