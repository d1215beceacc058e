package hostilerepo

import "fmt"

// Diamond is a repository of depth levels of kustomizations, each taking
// in two that both take in the level below, with one ConfigMap at the
// bottom: 3·depth+1 small files whose build loads about 3·2^depth
// kustomizations (the third review's class 6). Keys are slash-separated
// paths.
func Diamond(depth int) map[string]string {
	files := map[string]string{
		"l0/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: base, namespace: team}\n",
		"l0/kustomization.yaml": "resources: [cm.yaml]\n",
	}
	for i := 1; i <= depth; i++ {
		for _, side := range []string{"a", "b"} {
			files[fmt.Sprintf("l%d/%s/kustomization.yaml", i, side)] = fmt.Sprintf("resources: [../../l%d]\nnamePrefix: %s-\n", i-1, side)
		}
		files[fmt.Sprintf("l%d/kustomization.yaml", i)] = "resources: [a, b]\n"
	}
	return files
}
