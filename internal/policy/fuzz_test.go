package policy

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/landlord-dev/landlord/api/v1alpha1"
	"github.com/landlord-dev/landlord/internal/render"
	"github.com/landlord-dev/landlord/internal/tenancy"
)

// fuzzKinds are the judged kinds in a fixed order, so that a corpus entry's
// index names the same kind on every run, and one kind Decode does not know.
func fuzzKinds() []schema.GroupKind {
	gks := []schema.GroupKind{{Group: "example.com", Kind: "Widget"}}
	for gk := range judged {
		gks = append(gks, gk)
	}
	slices.SortFunc(gks[1:], func(a, b schema.GroupKind) int { return strings.Compare(a.String(), b.String()) })
	return gks
}

// addSeeds adds every seed object, as JSON, under its kind's index.
func addSeeds(f *testing.F, add func(kind uint8, raw []byte)) {
	gks := fuzzKinds()
	s := seeds()
	for i, gk := range gks {
		raw, err := json.Marshal(s[gk])
		if err != nil {
			f.Fatal(err)
		}
		add(uint8(i), raw)
	}
	add(0, []byte(`{"metadata":{"labels":null}}`))
}

// fuzzUser is an identity a fuzzed request comes from, and whether the
// platform's (exempt from the identity rules) by the documented list.
type fuzzUser struct {
	authenticationv1.UserInfo
	platform bool
}

var (
	// platformAdmin is a platform admin by group who also sits in a
	// tenant's owner group: the platform must win.
	platformAdmin = authenticationv1.UserInfo{Username: "pat", Groups: []string{"platform-admins", "dev-team"}}
	// twoTenants owns ops by name and dev-team by group.
	twoTenants   = authenticationv1.UserInfo{Username: "alice", Groups: []string{"dev-team"}}
	fuzzPlatform = Platform{Groups: []string{"platform-admins"}}
)

var fuzzUsers = []fuzzUser{
	{reconciler, false}, {owner, false}, {opsReconciler, false}, {carol, false}, {stranger, false}, {twoTenants, false},
	{controller, true}, {masters, true}, {fluxKustomize, true}, {nsController, true}, {kubelet, true}, {platformAdmin, true},
}

// fuzzNamespaces are the namespaces a fuzzed request is in: held by a
// tenant, self-service, labelled for a deleted tenant, the platform's, and
// cluster scope.
var fuzzNamespaces = []string{"apps", "apps-jobs", "dev-team-x", "ops", "full", "full-a", "orphan", "was-apps", "kube-system", "default", ""}

var fuzzOperations = []admissionv1.Operation{admissionv1.Create, admissionv1.Update, admissionv1.Delete}

// pick is values[i], wrapping around.
func pick[T any](values []T, i uint8) T { return values[int(i)%len(values)] }

// checkRuleIDs fails on a violation whose rule id is not one of Rules:
// every denial must name a documented rule.
func checkRuleIDs(t *testing.T, errs field.ErrorList) {
	t.Helper()
	for _, e := range errs {
		id := RuleID(e)
		if !slices.ContainsFunc(Rules, func(r Rule) bool { return r.ID == id }) {
			t.Fatalf("violation without a listed rule id (%q): %v", id, e)
		}
	}
}

// idSet is the set of rule ids of errs.
func idSet(errs field.ErrorList) map[string]bool {
	ids := map[string]bool{}
	for _, e := range errs {
		ids[RuleID(e)] = true
	}
	return ids
}

// subset reports the ids of a missing from b.
func missing(a, b map[string]bool) []string {
	var out []string
	for id := range a {
		if !b[id] {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

func FuzzDecode(f *testing.F) {
	addSeeds(f, func(kind uint8, raw []byte) { f.Add(kind, raw) })
	gks := fuzzKinds()
	f.Fuzz(func(t *testing.T, kind uint8, raw []byte) {
		gk := pick(gks, kind)
		obj, err := Decode(gk.WithVersion("v1"), raw)
		if err != nil || obj == nil {
			return
		}
		// The object the guard judges is the one the apiserver stores: once
		// re-encoded, it must draw the same verdict.
		again, err := json.Marshal(obj)
		if err != nil {
			t.Fatalf("%s decoded but does not encode: %v", gk, err)
		}
		obj2, err := Decode(gk.WithVersion("v1"), again)
		if err != nil {
			t.Fatalf("%s: its own encoding %s does not decode: %v", gk, again, err)
		}
		for _, ns := range []string{"apps", ""} {
			first := ruleIDs(Evaluate(create(reconciler, ns, obj), testTenants))
			second := ruleIDs(Evaluate(create(reconciler, ns, obj2), testTenants))
			if first != second {
				t.Fatalf("%s in %q: verdict %q, re-encoded %q", gk, ns, first, second)
			}
		}
	})
}

// FuzzEvaluate sends any decodable object of every judged kind, as every
// kind of identity, in every kind of namespace.
func FuzzEvaluate(f *testing.F) {
	addSeeds(f, func(kind uint8, raw []byte) {
		f.Add(kind, uint8(0), uint8(0), uint8(0), raw, raw)
		f.Add(kind, uint8(1), uint8(1), uint8(1), raw, []byte(`{}`))
		f.Add(kind, uint8(6), uint8(7), uint8(1), raw, raw)
	})
	gks := fuzzKinds()
	f.Fuzz(func(t *testing.T, kind, who, where, op uint8, raw, oldRaw []byte) {
		gvk := pick(gks, kind).WithVersion("v1")
		obj, err := Decode(gvk, raw)
		if err != nil {
			return
		}
		old, err := Decode(gvk, oldRaw)
		if err != nil {
			return
		}
		user := pick(fuzzUsers, who)
		ns := pick(fuzzNamespaces, where)
		req := Request{Operation: pick(fuzzOperations, op), Namespace: ns, Object: obj, OldObject: old, User: user.UserInfo, Platform: fuzzPlatform}
		switch req.Operation {
		case admissionv1.Create:
			req.OldObject = nil
		case admissionv1.Delete:
			req.Object = nil
		}
		if req.Object == nil && req.OldObject == nil {
			return
		}
		for _, allow := range []optIns{{}, {requireResources: true, workloadIdentity: true}} {
			errs := Evaluate(req, testTenants.allowing(allow))
			checkRuleIDs(t, errs)
		}
		errs := Evaluate(req, testTenants)
		if isNamespace(obj) || isNamespace(old) {
			return // FuzzNamespaceRules
		}
		ids := idSet(errs)
		held := testTenants.ForNamespace(ns) != nil
		switch {
		case ns == "":
			// Cluster scope: LL014 for whoever acts for a tenant, and nothing
			// else for anyone.
			tenant := !user.platform && len(testTenants.ForUser(user.UserInfo)) > 0
			if want := map[bool]string{true: "LL014", false: ""}[tenant]; ruleIDs(errs) != want {
				t.Fatalf("cluster-scoped %s by %s: %q, want %q", gvk.Kind, user.Username, ruleIDs(errs), want)
			}
		case testTenants.Released(ns) != "":
			// Released by its tenant: frozen for all but the platform (LL024).
			if want := map[bool]string{true: "", false: "LL024"}[user.platform]; ruleIDs(errs) != want {
				t.Fatalf("%s in released %s by %s: %q, want %q", gvk.Kind, ns, user.Username, ruleIDs(errs), want)
			}
		case !held && testTenants.Claimant(ns) == "":
			// A namespace of the platform's: RBAC alone decides.
			if len(errs) > 0 {
				t.Fatalf("%s in %s, which no tenant holds or claims, by %s: %v", gvk.Kind, ns, user.Username, errs)
			}
		case !held:
			// Labelled for a tenant that does not hold it: frozen for all
			// but the platform.
			if want := map[bool]string{true: "", false: "LL026"}[user.platform]; ruleIDs(errs) != want {
				t.Fatalf("%s in unheld %s by %s: %q, want %q", gvk.Kind, ns, user.Username, ruleIDs(errs), want)
			}
		}
		if user.platform && ids["LL010"] {
			t.Fatalf("platform identity %s held to LL010: %v", user.Username, errs)
		}
		// An update that changes nothing introduces nothing: it may only
		// carry what creating the same object would meet.
		if same, err := Decode(gvk, raw); err == nil && same != nil && ns != "" {
			createIDs := idSet(Evaluate(Request{Operation: admissionv1.Create, Namespace: ns, Object: obj, User: user.UserInfo, Platform: fuzzPlatform}, testTenants))
			updateIDs := idSet(Evaluate(Request{Operation: admissionv1.Update, Namespace: ns, Object: obj, OldObject: same, User: user.UserInfo, Platform: fuzzPlatform}, testTenants))
			if extra := missing(updateIDs, createIDs); len(extra) > 0 {
				t.Fatalf("%s in %s by %s: an update changing nothing meets %v, which its create does not", gvk.Kind, ns, user.Username, extra)
			}
		}
		checkDefault(t, req)
	})
}

// checkDefault: the mutating webhook only ever fills the serviceAccountName
// of a Kustomization or HelmRelease in a held namespace with the holder's
// reconciler, and what it fills never adds a violation.
func checkDefault(t *testing.T, req Request) {
	t.Helper()
	ops := Default(req, testTenants)
	if len(ops) == 0 {
		return
	}
	holder := testTenants.ForNamespace(req.Namespace)
	if len(ops) != 1 || ops[0].Path != "/spec/serviceAccountName" || holder == nil || ops[0].Value != holder.ReconcilerName() {
		t.Fatalf("Default in %q: %+v, want one add of the holder's reconciler at /spec/serviceAccountName", req.Namespace, ops)
	}
	defaulted := req
	switch o := req.Object.(type) {
	case *kustomizev1.Kustomization:
		k := o.DeepCopy()
		k.Spec.ServiceAccountName = holder.ReconcilerName()
		defaulted.Object = k
	case *helmv2.HelmRelease:
		h := o.DeepCopy()
		h.Spec.ServiceAccountName = holder.ReconcilerName()
		defaulted.Object = h
	default:
		t.Fatalf("Default patched a %T", req.Object)
	}
	if extra := missing(idSet(Evaluate(defaulted, testTenants)), idSet(Evaluate(req, testTenants))); len(extra) > 0 {
		t.Fatalf("defaulting the service account introduced %v", extra)
	}
}

// fuzzLabelKeys are the keys a fuzzed label map draws from: the protected
// ones, ordinary ones, and keys other components trust.
var fuzzLabelKeys = []string{
	v1alpha1.TenantLabel, v1alpha1.OriginLabel, v1alpha1.ManagedByLabel,
	podSecurityPrefix + "enforce", podSecurityPrefix + "warn-version", corev1.LabelMetadataName,
	"app", "team", "scheduler.alpha.kubernetes.io/node-selector",
}

// fuzzLabels decodes spec into a label map: each pair of bytes picks a key
// of fuzzLabelKeys and a value among the tenants' names and their own
// origins; the rest of spec, if any, is one free-form value for the last.
func fuzzLabels(spec []byte) map[string]string {
	values := []string{"dev-team", "ops", "full", "gone", string(v1alpha1.NamespaceOriginPlatform), string(v1alpha1.NamespaceOriginSelfService), v1alpha1.ManagedByValue, "privileged", "restricted", ""}
	labels := map[string]string{}
	var last string
	for len(spec) >= 2 {
		last = pick(fuzzLabelKeys, spec[0])
		labels[last] = pick(values, spec[1])
		spec = spec[2:]
	}
	if len(spec) > 0 && last != "" {
		labels[last] = string(spec)
	}
	return labels
}

// FuzzNamespaceRules creates, updates and deletes namespaces of fuzzed
// names and metadata as every kind of identity, and checks the invariants
// of self-service (LL009/LL010) against an independent statement of them.
func FuzzNamespaceRules(f *testing.F) {
	tenant := []byte{0, 0}         // landlord.dev/tenant=dev-team
	platformOrigin := []byte{1, 4} // origin Platform
	relax := []byte{3, 7}          // pod-security enforce=privileged
	for _, seed := range []struct {
		op, who          uint8
		name             string
		labels, oldLabel []byte
		annotations      string
	}{
		{0, 0, "dev-team-y", tenant, nil, ""},
		{0, 1, "dev-team-y", append(append([]byte{}, tenant...), relax...), nil, ""},
		{0, 3, "full-b", []byte{0, 2}, nil, ""},
		{0, 4, "anything", nil, nil, ""},
		{0, 5, "ops-two", []byte{0, 1}, nil, ""},
		{1, 0, "apps", append(append([]byte{}, tenant...), platformOrigin...), append(append([]byte{}, tenant...), platformOrigin...), ""},
		{1, 1, "dev-team-x", tenant, append(append([]byte{}, tenant...), relax...), ""},
		{1, 0, "ops", []byte{0, 1}, []byte{0, 0}, ""},
		{1, 4, "orphan", nil, []byte{0, 3}, "scheduler.alpha.kubernetes.io/node-selector=pool=a"},
		{2, 0, "dev-team-x", tenant, tenant, ""},
		{2, 1, "apps", append(append([]byte{}, tenant...), platformOrigin...), nil, ""},
		{2, 6, "kube-system", nil, nil, ""},
	} {
		f.Add(seed.op, seed.who, seed.name, seed.labels, seed.oldLabel, seed.annotations)
	}
	f.Fuzz(func(t *testing.T, op, who uint8, name string, labels, oldLabels []byte, annotations string) {
		user := pick(fuzzUsers, who)
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: fuzzLabels(labels), Annotations: fuzzAnnotations(annotations)}}
		old := ns.DeepCopy()
		old.Labels = fuzzLabels(oldLabels)
		req := Request{Operation: pick(fuzzOperations, op), Object: ns, OldObject: old, User: user.UserInfo, Platform: fuzzPlatform}
		switch req.Operation {
		case admissionv1.Create:
			req.OldObject = nil
		case admissionv1.Delete:
			req.Object = nil
		}
		errs := Evaluate(req, testTenants)
		checkRuleIDs(t, errs)
		if user.platform {
			if len(errs) > 0 {
				t.Fatalf("platform identity %s refused: %v", user.Username, errs)
			}
			return
		}
		actsFor := map[string]bool{}
		for _, tn := range testTenants.ForUser(user.UserInfo) {
			actsFor[tn.Name] = true
		}
		holder := testTenants.ForNamespace(name)
		allowed := len(errs) == 0
		switch req.Operation {
		case admissionv1.Create:
			claim := ns.Labels[v1alpha1.TenantLabel]
			if allowed && claimsLandlord(ns) {
				// Only self-service: a tenant the writer acts for, its prefix,
				// room under its limit, and no platform label set.
				tn := tenantNamed(claim)
				switch {
				case tn == nil || !actsFor[claim]:
					t.Fatalf("%s created %s labelled for %q, a tenant it does not act for", user.Username, name, claim)
				case tn.Spec.SelfService == nil || !strings.HasPrefix(name, tn.Spec.SelfService.Prefix):
					t.Fatalf("%s created %s outside tenant %s's self-service prefix", user.Username, name, claim)
				case testTenants.SelfServiceCount(claim) >= int(tn.Spec.SelfService.MaxNamespaces):
					t.Fatalf("%s created %s beyond tenant %s's limit", user.Username, name, claim)
				case holder != nil && slices.Contains(holder.NamespaceNames(), name):
					t.Fatalf("%s created %s, assigned to %s by the platform", user.Username, name, holder.Name)
				}
				for key := range ns.Labels {
					if key != v1alpha1.TenantLabel && protectedLabel(key) {
						t.Fatalf("%s created %s with the platform's label %s", user.Username, name, key)
					}
				}
			}
		case admissionv1.Update:
			if allowed && len(actsFor) > 0 && (holder == nil || !actsFor[holder.Name]) {
				t.Fatalf("%s, acting for %v, updated %s held by %v", user.Username, slices.Sorted(maps.Keys(actsFor)), name, holder)
			}
			changedProtected := slices.ContainsFunc(fuzzLabelKeys, func(k string) bool {
				v, had := old.Labels[k]
				w, has := ns.Labels[k]
				return protectedLabel(k) && (had != has || v != w)
			})
			judged := len(actsFor) > 0 || holder != nil || claimsLandlord(ns)
			if changedProtected && judged && !idSet(errs)["LL009"] {
				t.Fatalf("%s changed a protected label of %s (%v -> %v) without LL009: %v", user.Username, name, old.Labels, ns.Labels, errs)
			}
			// Flux re-applying its tenant's namespace unchanged must pass.
			if holder != nil && actsFor[holder.Name] && maps.Equal(old.Labels, ns.Labels) && !allowed {
				t.Fatalf("%s re-applied its own namespace %s unchanged and was refused: %v", user.Username, name, errs)
			}
		case admissionv1.Delete:
			if allowed && holder != nil {
				selfService := !slices.Contains(holder.NamespaceNames(), name) && old.Labels[v1alpha1.OriginLabel] != string(v1alpha1.NamespaceOriginPlatform)
				if !actsFor[holder.Name] || !selfService {
					t.Fatalf("%s deleted %s of tenant %s (self-service: %v)", user.Username, name, holder.Name, selfService)
				}
			}
		}
	})
}

// claimsLandlord reports whether a namespace says it is Landlord's: a
// tenant or origin label, or managed-by naming Landlord.
func claimsLandlord(ns *corev1.Namespace) bool {
	_, tenant := ns.Labels[v1alpha1.TenantLabel]
	_, origin := ns.Labels[v1alpha1.OriginLabel]
	return tenant || origin || ns.Labels[v1alpha1.ManagedByLabel] == v1alpha1.ManagedByValue
}

func tenantNamed(name string) *v1alpha1.Tenant {
	for _, t := range testTenants.tenants {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// fuzzAnnotations decodes "k=v;k=v" into annotations.
func fuzzAnnotations(spec string) map[string]string {
	if spec == "" {
		return nil
	}
	annotations := map[string]string{}
	for _, pair := range strings.Split(spec, ";") {
		k, v, _ := strings.Cut(pair, "=")
		annotations[k] = v
	}
	return annotations
}

// fuzzSubjects decodes "Kind:name:namespace;..." into subjects; a short
// kind picks User, Group or ServiceAccount.
func fuzzSubjects(spec string) []rbacv1.Subject {
	var subjects []rbacv1.Subject
	for _, item := range strings.Split(spec, ";") {
		if item == "" {
			continue
		}
		parts := strings.SplitN(item, ":", 3)
		for len(parts) < 3 {
			parts = append(parts, "")
		}
		kind := map[string]string{"u": rbacv1.UserKind, "g": rbacv1.GroupKind, "s": rbacv1.ServiceAccountKind}[parts[0]]
		if kind == "" {
			kind = parts[0]
		}
		s := rbacv1.Subject{Kind: kind, Name: parts[1], Namespace: parts[2]}
		if kind != rbacv1.ServiceAccountKind {
			s.APIGroup = rbacv1.GroupName
		}
		// A user or group name may itself hold colons.
		if kind != rbacv1.ServiceAccountKind && parts[2] != "" {
			s.Name, s.Namespace = parts[1]+":"+parts[2], ""
		}
		subjects = append(subjects, s)
	}
	return subjects
}

// FuzzRoleBinding writes RoleBindings of fuzzed subjects and roleRef in
// every kind of namespace, as every kind of identity, and checks that an
// allowed binding grants only the tenant's roles to the tenant's own.
func FuzzRoleBinding(f *testing.F) {
	for _, seed := range []struct {
		who, where, op     uint8
		roleKind, roleName string
		subjects           string
	}{
		{0, 0, 0, "ClusterRole", "landlord-tenant", "s:ci:apps-jobs"},
		{0, 0, 0, "ClusterRole", "cluster-admin", "s:ci:apps"},
		{1, 1, 0, "ClusterRole", "edit", "s:x:ops"},
		{0, 0, 0, "ClusterRole", "view", "g:system:authenticated"},
		{0, 0, 0, "ClusterRole", "view", "g:system:serviceaccounts:ops"},
		{0, 2, 0, "ClusterRole", "admin", "u:system:serviceaccount:ops:flux"},
		{1, 0, 0, "Role", "reader", "s:deployer:ci;g:dev-team;u:bob"},
		{0, 0, 1, "ClusterRole", render.SelfServiceNamespaceRole, "s:dev-team:apps"},
		{6, 2, 0, "ClusterRole", render.SelfServiceNamespaceRole, "s:dev-team:apps"},
		{4, 7, 0, "ClusterRole", "cluster-admin", "g:system:unauthenticated"},
		{0, 0, 0, "ClusterRole", "view", "s:default:"},
		{1, 0, 0, "ClusterRole", "view", "u:system:anonymous"},
	} {
		f.Add(seed.who, seed.where, seed.op, seed.roleKind, seed.roleName, seed.subjects)
	}
	f.Fuzz(func(t *testing.T, who, where, op uint8, roleKind, roleName, subjectSpec string) {
		user := pick(fuzzUsers, who)
		ns := pick(fuzzNamespaces, where)
		if ns == "" {
			return // a RoleBinding is namespaced
		}
		rb := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "grant", Namespace: ns},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: roleKind, Name: roleName},
			Subjects:   fuzzSubjects(subjectSpec),
		}
		var old runtime.Object
		operation := pick(fuzzOperations[:2], op)
		if operation == admissionv1.Update {
			prior := rb.DeepCopy()
			prior.Subjects = nil
			old = prior
		}
		req := Request{Operation: operation, Namespace: ns, Object: rb, OldObject: old, User: user.UserInfo, Platform: fuzzPlatform}
		errs := Evaluate(req, testTenants)
		checkRuleIDs(t, errs)

		// Which subjects are listed must not matter, only what they are.
		reversed := rb.DeepCopy()
		slices.Reverse(reversed.Subjects)
		req2 := req
		req2.Object = reversed
		if a, b := ruleIDs(errs), ruleIDs(Evaluate(req2, testTenants)); a != b {
			t.Fatalf("subjects in reverse order: %q, in order: %q", b, a)
		}

		holder := testTenants.ForNamespace(ns)
		if holder == nil || len(errs) > 0 {
			return
		}
		// Allowed in a tenant namespace, whoever wrote it: the role is the
		// tenant's or a built-in namespace role, and every subject is the
		// tenant's own.
		roles := []string{holder.RoleName(), "admin", "edit", "view"}
		if user.platform {
			roles = append(roles, render.SelfServiceNamespaceRole)
		}
		// roleRef is immutable: an update carries the old one, grandfathered.
		if operation == admissionv1.Create && roleKind == "ClusterRole" && !slices.Contains(roles, roleName) {
			t.Fatalf("tenant %s's namespace %s binds ClusterRole %q", holder.Name, ns, roleName)
		}
		for _, s := range rb.Subjects {
			if ownerOf(holder, s) {
				continue
			}
			if saNs, ok := serviceAccountNamespace(s, ns); ok && !heldBy(saNs, holder) {
				t.Fatalf("tenant %s's namespace %s binds %s %q of namespace %q", holder.Name, ns, s.Kind, s.Name, saNs)
			}
			if s.Kind == rbacv1.UserKind && s.Name == "system:anonymous" {
				t.Fatalf("tenant %s's namespace %s binds the anonymous user", holder.Name, ns)
			}
			if s.Kind == rbacv1.GroupKind {
				if slices.Contains([]string{"system:authenticated", "system:unauthenticated", "system:serviceaccounts"}, s.Name) {
					t.Fatalf("tenant %s's namespace %s binds group %s", holder.Name, ns, s.Name)
				}
				// The group of a namespace's service accounts; an empty
				// namespace holds none.
				if saNs, ok := strings.CutPrefix(s.Name, "system:serviceaccounts:"); ok && saNs != "" && !heldBy(saNs, holder) {
					t.Fatalf("tenant %s's namespace %s binds the service accounts of %q", holder.Name, ns, saNs)
				}
			}
		}
	})
}

// serviceAccountNamespace is the namespace of the service account a
// subject names, stated independently of the rule: a ServiceAccount subject
// (the binding's namespace when empty), or a user named as one.
func serviceAccountNamespace(s rbacv1.Subject, bindingNs string) (string, bool) {
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		if s.Namespace == "" {
			return bindingNs, true
		}
		return s.Namespace, true
	case rbacv1.UserKind:
		// As the service account authenticator names them: exactly
		// system:serviceaccount:<namespace>:<name>, neither empty.
		rest, ok := strings.CutPrefix(s.Name, tenancy.ServiceAccountPrefix)
		parts := strings.Split(rest, ":")
		if !ok || len(parts) != 2 || parts[0] == "" || parts[1] == "" {
			return "", false
		}
		return parts[0], true
	}
	return "", false
}

// ownerOf reports whether s names one of t's spec.owners, whom the
// controller binds in every namespace of t.
func ownerOf(t *v1alpha1.Tenant, s rbacv1.Subject) bool {
	for _, o := range t.Spec.Owners {
		if o.Kind == s.Kind && o.Name == s.Name && (o.Kind != rbacv1.ServiceAccountKind || o.Namespace == s.Namespace) {
			return true
		}
	}
	return false
}

// heldBy reports whether tenant t holds namespace ns.
func heldBy(ns string, t *v1alpha1.Tenant) bool {
	h := testTenants.ForNamespace(ns)
	return h != nil && h.Name == t.Name
}
