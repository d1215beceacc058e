package hostilerepo

// Seed is a program making one hostile shape.
type Seed struct {
	Name    string
	Program []byte
}

// Indexes into the tables, for the seeds.
const (
	dBase, dApps, dTenants, dA, dB, dLong = 0, 1, 4, 6, 7, 18
	fKust, fA, fB, fRes, fSecret, fEnv    = 0, 3, 4, 5, 7, 8
	nTeam1, nTeam2, nEscaped, nNUL, nLong = 0, 1, 2, 8, 9
	nDNS253, nVariable, nFluxSystem       = 11, 16, 19
	oSecret, oKust, oUnknown, oEnv, oDir  = 0, 1, 2, 3, 5
	// Fields of a kustomization.
	kResources, kBases, kComponents, kPatches, kFiles, kEnvs, kOpenAPI = 0, 1, 2, 4, 7, 8, 10
	// relative is the high bit that makes OpLinkSecret's target relative.
	relative = 0x80
)

// prog spells a program: instructions and their argument bytes.
func prog(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch v := p.(type) {
		case Op:
			b = append(b, byte(v))
		case int:
			b = append(b, byte(v))
		case []byte:
			b = append(b, v...)
		default:
			panic("hostilerepo: prog takes Op, int or []byte")
		}
	}
	return b
}

func repeat(n int, parts ...any) []byte {
	var b []byte
	for range n {
		b = append(b, prog(parts...)...)
	}
	return b
}

// valid is a fleet Flux applies tenants/ of, where team1 is made by hand,
// and team1's repository holding a Secret: lint judges the repository as
// the tenant's.
var valid = prog(
	OpDir, dTenants, OpHandMade, fA, nTeam1, nTeam1, nTeam1, RefDots, 0, OpUp, 0,
	OpFluxKustomization, fB, nFluxSystem, RefDir, 1, 0,
	OpRepo, 1, OpSecret, fA, nTeam1, 0, OpKustomization, fKust, 0, 1, kResources, RefFile, 0,
	OpRepo, 0)

// chain is a kustomization 20 directories deep, each above taking in the
// one below.
func chain() []byte {
	b := repeat(20, OpDir, dA)
	b = append(b, prog(OpSecret, fA, nTeam1, 0, OpKustomization, fKust, 0, 1, kResources, RefFile, 0)...)
	for depth := 19; depth >= 0; depth-- {
		b = append(b, prog(OpUp, 0, OpKustomization, fKust, 0, 1, kResources, RefDir, depth+1)...)
	}
	return b
}

// Seeds make each hostile shape, after a valid fleet and tenant.
var Seeds = []Seed{
	{"valid fleet and tenant", valid},
	{"kustomization.yaml a symlink to a file outside", prog(valid, OpDir, dBase, OpLinkSecret, fKust, oKust,
		OpRepo, 1, OpDir, dBase, OpLinkSecret, fKust, oKust|relative)},
	{"resources a symlink to a file outside", prog(valid, OpRepo, 1, OpDir, dBase, OpLinkSecret, fA, oSecret|relative,
		OpLinkSecret, fB, oUnknown, OpLinkSecret, fEnv, oEnv,
		OpKustomization, fKust, 0, 3, kResources, RefFile, 2, kResources, RefFile, 3, kEnvs, RefFile, 4)},
	{"../ to files outside", prog(valid, OpDir, dBase, OpKustomization, fKust, 0, 4,
		kResources, RefTraversal, oSecret, kPatches, RefTraversal, oKust|0x10, kFiles, RefTraversal, oEnv, kComponents, RefTraversal, oDir)},
	{"absolute paths", prog(valid, OpRepo, 1, OpDir, dBase, OpKustomization, fKust, 0, 4,
		kResources, RefAbsolute, oSecret, kBases, RefOutsideDir, 1, kOpenAPI, RefAbsolute, oUnknown, kResources, RefSystem, 1)},
	{"a directory symlinked outside", prog(valid, OpRepo, 1, OpDir, dApps, OpLinkOutsideDir, dBase, 1, OpLinkOutsideDir, dA, 2,
		OpKustomization, fKust, 0, 2, kResources, RefDir, 1, kResources, RefThroughLink, 1)},
	{"symlink loops", prog(valid, OpRepo, 1, OpDir, dBase, OpLinkLoop, dA, 0, OpLinkLoop, dB, 2, OpLinkLoop, dTenants, 4,
		OpLinkLoop, dLong, 6, OpKustomization, fKust, 0, 3, kResources, RefDir, 1, kComponents, RefDir, 2, kResources, RefThroughLink, 0)},
	{"kustomizations taking each other in", prog(valid, OpDir, dA, OpUp, 0, OpDir, dB,
		OpKustomization, fKust, 0, 2, kResources, RefDir, 2, kResources, RefDots, 0, OpUp, 0, OpDir, dA,
		OpKustomization, fKust, 0, 1, kResources, RefDir, 3)},
	{"deep nesting", prog(valid, OpRepo, 1, chain())},
	{"paths past PATH_MAX", prog(valid, repeat(25, OpDir, dLong), OpSecret, fA, nTeam1, 0,
		OpKustomization, fKust, 0, 2, kResources, RefFile, 1, kResources, RefLong, 200)},
	{"large file", prog(valid, OpRepo, 1, OpDir, dApps, OpLarge, fB, 64, OpKustomization, fKust, 0, 2, kResources, RefFile, 2, kResources, RefFile, 0)},
	{"many documents", prog(valid, OpDir, dBase, OpManyDocs, fA, 50)},
	{"YAML bombs", prog(valid, OpDir, dBase, OpBomb, fA, 9, OpBomb, fB, 0xff, OpBomb, fKust, 9)},
	{"garbage", prog(valid, OpDir, dBase, OpGarbage, fKust, 24, []byte("\x00\xff: [}{ &a *b !!binary %"),
		OpGarbage, fA, 12, []byte("---\n- - - -\n:"), OpRepo, 1, OpGarbage, fKust, 8, []byte("resourc\x00"))},
	{"Flux Kustomizations leaving the fleet", prog(valid,
		OpFluxKustomization, fA, nTeam1, RefTraversal, oDir, RefTraversal<<2|2,
		OpFluxKustomization, fRes, nTeam2, RefAbsolute, oDir, 0x81,
		OpFluxKustomization, fSecret, nEscaped, RefDots, 5<<3, 0)},
	{"HelmRelease and Tenant naming paths outside", prog(valid, OpDir, dBase,
		OpHelmRelease, fA, nTeam1, RefTraversal, oSecret, OpTenant, fB, nTeam1, nTeam1, RefAbsolute, oDir,
		OpGitRepository, fRes, nEscaped, nEscaped, 2)},
	{"CRD with an expensive CEL rule", prog(valid, OpDir, dBase, OpCRD, fA, 61, OpCRD, fB, 2)},
	{"env files", prog(valid, OpRepo, 1, OpDir, dApps, OpEnv, fEnv, 7, OpKustomization, fKust, 0, 2, kEnvs, RefFile, 2, kFiles, RefFile, 2)},
	{"symlinks to devices", prog(valid, OpRepo, 1, OpDir, dA, OpLinkDevice, fKust, 0, OpUp, 0, OpDir, dB,
		OpLinkDevice, fA, 2, OpLinkDevice, fB, 1, OpLinkDevice, fRes, 5, OpKustomization, fKust, 0, 3,
		kResources, RefFile, 3, kResources, RefFile, 4, kResources, RefFile, 5)},
	{"hand-made tenants with hostile names", prog(valid, OpDir, dTenants,
		OpHandMade, fB, nEscaped, nEscaped, nEscaped, RefDots, 0,
		OpHandMade, fRes, nNUL, nTeam1, nLong, RefTraversal, 0,
		OpHandMade, fSecret, nDNS253, nDNS253, nDNS253, RefAbsolute, 0,
		OpHandMade, fEnv, 0x80|nTeam1, nEscaped, nVariable, RefDots, 0)},
	{"a tenant name too long for a file name", prog(valid, OpDir, dTenants, OpHandMade, fB, nDNS253, nDNS253, nDNS253, RefDots, 0)},
	{"output directory with symlinks out", prog(valid, OpRepo, 2, OpLinkOutsideDir, dTenants, 2,
		OpDir, dA, OpLinkLoop, dB, 1, OpLinkSecret, fA, oSecret)},
	{"tenant repository with a symlink to its parent", prog(valid, OpRepo, 1, OpDir, dApps, OpLinkOutsideDir, dBase, 5,
		OpKustomization, fKust, 0, 1, kResources, RefThroughLink, 0)},
}
