package lint

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/landlord-dev/landlord/internal/apivalidation"
	"github.com/landlord-dev/landlord/internal/handmade"
)

// AppliedBuild is one directory of the fleet Flux applies, as built.
type AppliedBuild struct {
	// Dir is relative to the fleet, slash-separated.
	Dir     string
	Objects []*handmade.Object
}

// Applied builds the fleet in dir as Lint does and returns the builds Flux
// applies, each object with the file and line it is written at, and the
// findings of the fleet, which say what did not build.
func Applied(ctx context.Context, dir string) ([]AppliedBuild, []Finding, error) {
	if dir == "" {
		return nil, nil, errors.New("no fleet directory to read")
	}
	s, err := apivalidation.NewSchemas()
	if err != nil {
		return nil, nil, err
	}
	locations, err := newSchemaLocations(nil, false)
	if err != nil {
		return nil, nil, err
	}
	fleet, err := openRepo(dir, "")
	if err != nil {
		return nil, nil, err
	}
	fleet.memo = newMemo()
	prebuild(ctx, fleet)
	l := &linter{schemas: s, locations: locations, found: map[Finding]bool{}, checked: map[string]bool{}, tenants: map[*unit]*unitTenants{}}
	if err := l.fleet(ctx, fleet); err != nil {
		return nil, nil, err
	}
	var builds []AppliedBuild
	for _, u := range l.applied {
		b := AppliedBuild{Dir: u.dir}
		for _, o := range u.objects {
			b.Objects = append(b.Objects, &handmade.Object{Unstructured: &unstructured.Unstructured{Object: o.obj}, File: o.file, Line: o.line("")})
		}
		builds = append(builds, b)
	}
	return builds, l.sorted(), nil
}
