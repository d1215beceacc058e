package policy

import (
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/landlord-dev/landlord/api/v1alpha1"
)

var volumeBinder = authenticationv1.UserInfo{Username: "system:serviceaccount:kube-system:persistentvolume-binder"}

var fastStorage = optIns{storage: v1alpha1.Storage{Classes: []string{"fast"}}}

func newClaim(edit ...func(*corev1.PersistentVolumeClaimSpec)) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{ObjectMeta: objectMeta("data", "apps"), Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
	}}
	for _, e := range edit {
		e(&c.Spec)
	}
	return c
}

func storageClass(name string) func(*corev1.PersistentVolumeClaimSpec) {
	return func(c *corev1.PersistentVolumeClaimSpec) { c.StorageClassName = &name }
}

func volumeName(name string) func(*corev1.PersistentVolumeClaimSpec) {
	return func(c *corev1.PersistentVolumeClaimSpec) { c.VolumeName = name }
}

func statefulSet(claims ...*corev1.PersistentVolumeClaim) *appsv1.StatefulSet {
	s := &appsv1.StatefulSet{ObjectMeta: objectMeta("db", "apps"), Spec: appsv1.StatefulSetSpec{Template: corev1.PodTemplateSpec{Spec: podSpecWith("app", false)}}}
	for _, c := range claims {
		s.Spec.VolumeClaimTemplates = append(s.Spec.VolumeClaimTemplates, *c)
	}
	return s
}

// storageCases are LL020: claims binding existing volumes, copying other
// namespaces' data, and storage classes; they join testCases.
var storageCases = map[string]testCase{
	"claim binding an existing volume":   {req: withShared(create(owner, "apps", newClaim(volumeName("pv-ops-data")))), want: "LL020"},
	"claim of the default storage class": {req: withShared(create(owner, "apps", newClaim(storageClass("standard"))))},
	"claim picking volumes by label": {req: create(owner, "apps", newClaim(func(c *corev1.PersistentVolumeClaimSpec) {
		c.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "ops"}}
	})), want: "LL020"},
	"claim naming no storage class":             {req: create(owner, "apps", newClaim())},
	"volume controller binding a claim":         {req: withShared(update(volumeBinder, "apps", newClaim(storageClass("standard")), newClaim(storageClass("standard"), volumeName("pvc-1234"))))},
	"platform handing a volume over":            {req: create(masters, "apps", newClaim(volumeName("pv-migrated")))},
	"claim of a storage class not listed":       {req: withShared(create(reconciler, "apps", newClaim(storageClass("premium")))), allow: fastStorage, want: "LL020"},
	"claim of a storage class listed":           {req: withShared(create(reconciler, "apps", newClaim(storageClass("fast")))), allow: fastStorage},
	"claim asking for a pre-provisioned volume": {req: withShared(create(reconciler, "apps", newClaim(storageClass("")))), want: "LL020"},
	"claim copying another tenant's snapshot": {req: create(owner, "apps", newClaim(func(c *corev1.PersistentVolumeClaimSpec) {
		c.DataSourceRef = &corev1.TypedObjectReference{Kind: "VolumeSnapshot", Name: "db", Namespace: ptrTo("ops")}
	})), want: "LL020"},
	"claim copying its own snapshot": {req: create(owner, "apps", newClaim(func(c *corev1.PersistentVolumeClaimSpec) {
		c.DataSourceRef = &corev1.TypedObjectReference{Kind: "VolumeSnapshot", Name: "db", Namespace: ptrTo("apps-jobs")}
	}))},
	"statefulset claiming an existing volume": {req: create(reconciler, "apps", statefulSet(newClaim(volumeName("pv-ops-data")))), want: "LL020"},
	"statefulset claiming new volumes":        {req: withShared(create(reconciler, "apps", statefulSet(newClaim(storageClass("standard")))))},
	"ephemeral volume of a class not listed": {req: withShared(create(owner, "apps", newPod("apps", func(p *corev1.PodSpec) {
		p.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
			VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: newClaim(storageClass("premium")).Spec},
		}}}}
	}))), want: "LL020"},
}

func init() { maps.Copy(testCases, storageCases) }
