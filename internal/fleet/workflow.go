package fleet

import "fmt"

// WorkflowFile is the fleet's GitHub Actions workflow: lint, and the diff
// of each pull request posted on it.
const WorkflowFile = ".github/workflows/landlord.yaml"

// workflowFile runs landlord lint and landlord diff on each pull request,
// with the landlord release that scaffolded it. The actions are pinned by
// digest: a tag can be moved to other code.
func workflowFile(version string) file {
	return file{path: WorkflowFile, data: []byte(fmt.Sprintf(`# Scaffolded by landlord init fleet. On each pull request, landlord lint
# judges the fleet and landlord diff posts what the change does to the
# tenants as a comment. Destructive changes (a tenant or namespace removed,
# a quota lowered, a binding removed, a source repointed) fail the check:
# merge them knowingly.
name: landlord

on:
  pull_request:

permissions:
  contents: read
  pull-requests: write

jobs:
  landlord:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@df4cb1c069e1874edd31b4311f1884172cec0e10 # v6.0.3
        with:
          fetch-depth: 0
      - uses: actions/setup-go@4a3601121dd01d1626a1e23e37211e3254c1c06c # v6.4.0
        with:
          go-version: stable
      - name: Install landlord
        run: go install github.com/landlord-dev/landlord/cmd/landlord@v%s
      - name: Lint
        run: landlord lint . -o github
      - name: Diff
        id: diff
        env:
          BASE: origin/${{ github.base_ref }}
        run: |
          set +e
          landlord diff . --base "$BASE" -o markdown > landlord-diff.md
          code=$?
          echo "code=$code" >> "$GITHUB_OUTPUT"
          test "$code" -le 2
      - name: Comment
        if: steps.diff.outputs.code != '0'
        env:
          GH_TOKEN: ${{ github.token }}
          PR: ${{ github.event.pull_request.number }}
        run: gh pr comment "$PR" --body-file landlord-diff.md --edit-last || gh pr comment "$PR" --body-file landlord-diff.md
      - name: Destructive changes
        if: steps.diff.outputs.code == '2'
        run: |
          echo "::error::the diff holds destructive changes: see the pull request's comment"
          exit 1
`, version))}
}
