package dashboard

// What landlord-controller's dashboard needs beyond the controller's own
// role: authenticating viewers and asking what they may get, and reading
// the guard's Events, which the events API files in default for
// cluster-scoped Tenants. config/dashboard binds it only where the
// dashboard is enabled.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create
// +kubebuilder:rbac:groups="",namespace=default,resources=events,verbs=list
// +kubebuilder:rbac:groups=landlord.dev,resources=tenants,verbs=get;list
// +kubebuilder:rbac:groups="",resources=resourcequotas;namespaces,verbs=list
// +kubebuilder:rbac:groups=source.toolkit.fluxcd.io,resources=gitrepositories,verbs=list
// +kubebuilder:rbac:groups=kustomize.toolkit.fluxcd.io,resources=kustomizations,verbs=list
