package policy

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// workloadContent applies the rules on pods and pod templates; ok is false
// for other kinds.
func workloadContent(obj runtime.Object, s scope) (errs field.ErrorList, ok bool) {
	template := field.NewPath("spec", "template")
	switch o := obj.(type) {
	case *corev1.Pod:
		return append(podSpec(&o.Spec, field.NewPath("spec"), s), evictionAnnotations(o.Annotations, field.NewPath("metadata", "annotations"))...), true
	case *corev1.ReplicationController:
		if o.Spec.Template == nil {
			return nil, true
		}
		return podTemplate(o.Spec.Template, template, s), true
	case *appsv1.Deployment:
		return podTemplate(&o.Spec.Template, template, s), true
	case *appsv1.StatefulSet:
		return append(podTemplate(&o.Spec.Template, template, s), claimTemplates(o.Spec.VolumeClaimTemplates, field.NewPath("spec", "volumeClaimTemplates"), s)...), true
	case *appsv1.DaemonSet:
		return podTemplate(&o.Spec.Template, template, s), true
	case *appsv1.ReplicaSet:
		return podTemplate(&o.Spec.Template, template, s), true
	case *batchv1.Job:
		return podTemplate(&o.Spec.Template, template, s), true
	case *batchv1.CronJob:
		return podTemplate(&o.Spec.JobTemplate.Spec.Template, field.NewPath("spec", "jobTemplate", "spec", "template"), s), true
	}
	return nil, false
}

// podTemplate is the rules on a pod template at p: its spec's, and LL023
// on the annotations its pods get.
func podTemplate(t *corev1.PodTemplateSpec, p *field.Path, s scope) field.ErrorList {
	return append(podSpec(&t.Spec, p.Child("spec"), s), evictionAnnotations(t.Annotations, p.Child("metadata", "annotations"))...)
}

// podSpec is rules LL012, LL016, LL019, LL020 and LL029.
func podSpec(spec *corev1.PodSpec, p *field.Path, s scope) field.ErrorList {
	var errs field.ErrorList
	// serviceAccount is the deprecated alias the apiserver still honours.
	for _, f := range []struct{ name, value string }{{"serviceAccountName", spec.ServiceAccountName}, {"serviceAccount", spec.DeprecatedServiceAccount}} {
		if landlordAccount(f.value, s) {
			errs = append(errs, forbidden(ruleReconciler, p.Child(f.name),
				"pods may not run as "+quoteList([]string{f.value})+", an account Landlord makes (the reconciler "+quoteList([]string{s.tenant.ReconcilerName()})+" or one a TenantResource stamps); allowed: any account of the tenant's own making"))
		}
	}
	errs = append(errs, scheduling(spec, p, s)...)
	errs = append(errs, ephemeralClaims(spec, p, s)...)
	errs = append(errs, images(spec, p, s)...)
	if s.allow.requireResources {
		errs = append(errs, containerResources(spec.InitContainers, p.Child("initContainers"))...)
		errs = append(errs, containerResources(spec.Containers, p.Child("containers"))...)
	}
	return errs
}

// requiredResources are what every container must request and be limited to.
var requiredResources = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}

// containerResources is rule LL016.
func containerResources(containers []corev1.Container, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, c := range containers {
		res := p.Index(i).Child("resources")
		for _, kind := range []struct {
			name string
			list corev1.ResourceList
		}{{"requests", c.Resources.Requests}, {"limits", c.Resources.Limits}} {
			for _, r := range requiredResources {
				if _, ok := kind.list[r]; !ok {
					errs = append(errs, required(ruleResources, res.Child(kind.name).Key(string(r)),
						"the tenant requires cpu and memory requests and limits on every container; allowed: any quantity"))
				}
			}
		}
	}
	return errs
}

// tokenSecret is rule LL012 for Secrets: a legacy token of the reconciler
// would be a copy of its identity.
func tokenSecret(secret *corev1.Secret, s scope) field.ErrorList {
	account := secret.Annotations[corev1.ServiceAccountNameKey]
	if secret.Type != corev1.SecretTypeServiceAccountToken || !landlordAccount(account, s) {
		return nil
	}
	return field.ErrorList{forbidden(ruleReconciler, field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey),
		"tokens of "+quoteList([]string{account})+", an account Landlord makes, are denied; allowed: any account of the tenant's own making")}
}

// landlordAccount reports an account of the namespace Landlord makes: the
// tenant's reconciler, or one a TenantResource stamps, whose grants are
// the platform's and not the workload's to take.
func landlordAccount(name string, s scope) bool {
	return name != "" && (name == s.tenant.ReconcilerName() || s.tenants.LandlordAccount(s.ns, name))
}
