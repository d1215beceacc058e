package policy

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

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
