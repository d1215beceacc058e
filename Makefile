# Landlord's build. `make demo` runs the local environment, `make test` every test.

SHELL := /usr/bin/env bash
BIN := $(CURDIR)/bin
TOOLS_MOD := hack/tools/go.mod hack/tools/go.sum
FLUX_MOD := hack/tools/flux/go.mod hack/tools/flux/go.sum
NODE_MOD := hack/tools/node/go.mod hack/tools/node/go.sum
NETPOL_MOD := hack/tools/netpol/go.mod hack/tools/netpol/go.sum
RELEASE_MOD := hack/tools/release/go.mod hack/tools/release/go.sum
KREW_MOD := hack/tools/krew/go.mod hack/tools/krew/go.sum
DOCS_MOD := hack/tools/docs/go.mod hack/tools/docs/go.sum
CONTROLLER_GEN := $(BIN)/controller-gen
GO_TEST_FLAGS ?= -count=1 -timeout 30m

# What the binaries and the image report as their version; the manifests and
# the chart install the release pinned in VERSION (make generate writes it in).
VERSION ?= $(shell git describe --tags --always --dirty)
REVISION ?= $(shell git rev-parse HEAD)
LDFLAGS := -X github.com/landlord-dev/landlord/internal/version.Version=$(VERSION) \
	-X github.com/landlord-dev/landlord/internal/version.Revision=$(REVISION)
IMAGE ?= ghcr.io/landlord-dev/landlord-controller

# Flux API packages whose CRDs the local environment installs, generated from
# the pinned module versions in go.mod.
FLUX_APIS := github.com/fluxcd/source-controller/api/... \
	github.com/fluxcd/kustomize-controller/api/... \
	github.com/fluxcd/helm-controller/api/... \
	github.com/fluxcd/notification-controller/api/... \
	github.com/fluxcd/image-reflector-controller/api/... \
	github.com/fluxcd/image-automation-controller/api/...

.PHONY: all
all: build

## tools: build the control plane and generators from hack/tools pins
.PHONY: tools
tools: $(BIN)/etcd $(BIN)/kube-apiserver $(BIN)/kube-controller-manager $(CONTROLLER_GEN)

# Each binary is rebuilt only when missing or when a pin changes.
$(BIN)/etcd: $(TOOLS_MOD)
	go build -C hack/tools -o $@ go.etcd.io/etcd/server/v3
$(BIN)/kube-apiserver: $(TOOLS_MOD)
	go build -C hack/tools -o $@ k8s.io/kubernetes/cmd/kube-apiserver
$(BIN)/kube-controller-manager: $(TOOLS_MOD)
	go build -C hack/tools -o $@ k8s.io/kubernetes/cmd/kube-controller-manager
$(CONTROLLER_GEN): $(TOOLS_MOD)
	go build -C hack/tools -o $@ sigs.k8s.io/controller-tools/cmd/controller-gen

## flux-tools: build the Flux controllers from hack/tools/flux pins; extract the Flux Operator's FluxInstance CRD
.PHONY: flux-tools
flux-tools: $(BIN)/source-controller $(BIN)/kustomize-controller $(BIN)/helm-controller $(BIN)/fluxcd.controlplane.io_fluxinstances.yaml

# A module of their own, so the k8s.io replaces in hack/tools do not reach them.
$(BIN)/source-controller: $(FLUX_MOD)
	go build -C hack/tools/flux -o $@ github.com/fluxcd/source-controller
$(BIN)/kustomize-controller: $(FLUX_MOD)
	go build -C hack/tools/flux -o $@ github.com/fluxcd/kustomize-controller
$(BIN)/helm-controller: $(FLUX_MOD)
	go build -C hack/tools/flux -o $@ github.com/fluxcd/helm-controller

# The Flux Operator's FluxInstance CRD, for tests: its module needs Go 1.27
# and is AGPL-licensed, so it is neither built nor required, only its CRD
# read from the module zip, checked against the pinned sum.
FLUX_OPERATOR := github.com/controlplaneio-fluxcd/flux-operator@v0.59.0
FLUX_OPERATOR_SUM := h1:jByuiWYtjSJxucGHuz68tV0DeVFz5CYrKQYfxAwE7lE=
$(BIN)/fluxcd.controlplane.io_fluxinstances.yaml: Makefile
	go run -C hack/tools ./modulefile $(FLUX_OPERATOR) $(FLUX_OPERATOR_SUM) config/crd/bases/fluxcd.controlplane.io_fluxinstances.yaml > $@.tmp
	mv $@.tmp $@

## node-tools: build the local node's kubelet, kube-proxy, kube-scheduler and NetworkPolicy enforcer from hack/tools/node and hack/tools/netpol pins
.PHONY: node-tools
node-tools: $(BIN)/kubelet $(BIN)/kube-proxy $(BIN)/kube-scheduler $(BIN)/kube-network-policies

# Modules of their own, so adding the node's binaries to the control plane's
# graph does not rebuild the control plane.
$(BIN)/kubelet: $(NODE_MOD)
	go build -C hack/tools/node -o $@ k8s.io/kubernetes/cmd/kubelet
$(BIN)/kube-proxy: $(NODE_MOD)
	go build -C hack/tools/node -o $@ k8s.io/kubernetes/cmd/kube-proxy
$(BIN)/kube-scheduler: $(NODE_MOD)
	go build -C hack/tools/node -o $@ k8s.io/kubernetes/cmd/kube-scheduler
$(BIN)/kube-network-policies: $(NETPOL_MOD)
	go build -C hack/tools/netpol -o $@ sigs.k8s.io/kube-network-policies/cmd

## release-tools: build goreleaser and cyclonedx-gomod from hack/tools/release pins, krew and its manifest validator from hack/tools/krew
.PHONY: release-tools
release-tools: $(BIN)/goreleaser $(BIN)/cyclonedx-gomod $(BIN)/krew $(BIN)/validate-krew-manifest

# A module of its own: goreleaser's graph (cloud SDKs, signing) stays out of
# the control plane's and the CLI's.
$(BIN)/goreleaser: $(RELEASE_MOD)
	go build -C hack/tools/release -o $@ github.com/goreleaser/goreleaser/v2
$(BIN)/cyclonedx-gomod: $(RELEASE_MOD)
	go build -C hack/tools/release -o $@ github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod
# krew's own module: it needs client-go v11, which MVS would rank above
# every v0 release in goreleaser's graph.
$(BIN)/krew: $(KREW_MOD)
	go build -C hack/tools/krew -o $@ sigs.k8s.io/krew/cmd/krew
$(BIN)/validate-krew-manifest: $(KREW_MOD)
	go build -C hack/tools/krew -o $@ sigs.k8s.io/krew/cmd/validate-krew-manifest

## docs-tools: build Hugo from the hack/tools/docs pin
.PHONY: docs-tools
docs-tools: $(BIN)/hugo

# A module of its own: Hugo's graph stays out of every other.
$(BIN)/hugo: $(DOCS_MOD)
	go build -C hack/tools/docs -o $@ github.com/gohugoio/hugo

## docs: the documentation site, docs/ published by Hugo into bin/site (make test checks the build, its links and anchors)
.PHONY: docs
docs: $(BIN)/hugo
	$(BIN)/hugo --source site --destination $(BIN)/site --cleanDestinationDir --panicOnWarning --noBuildLock

## release-snapshot: the CLI release as a tag would publish it, unsigned, into bin/dist: every archive, checksums, SBOMs, the krew manifest
.PHONY: release-snapshot
# goreleaser reads the remote's URL; a clone that has none (git init, or a
# copy) is given the project's, for the release metadata only.
release-snapshot: $(BIN)/goreleaser $(BIN)/cyclonedx-gomod
	$(if $(shell git remote 2>/dev/null),,GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/landlord-dev/landlord) \
	PATH="$(BIN):$$PATH" $(BIN)/goreleaser release --snapshot --clean --skip=sign

## generate: deepcopy, CRDs, RBAC, the Flux CRDs, and what is written from them (manifests, chart README, census, schemas, docs/api.md)
.PHONY: generate
generate: tools
	$(CONTROLLER_GEN) object paths=./api/...
	$(CONTROLLER_GEN) crd paths=./api/... output:crd:artifacts:config=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=landlord-controller paths=./internal/controller/... paths=./internal/webhook/... output:rbac:artifacts:config=config/rbac
	$(CONTROLLER_GEN) rbac:roleName=landlord-dashboard paths=./internal/dashboard/... output:rbac:artifacts:config=config/dashboard
	rm -f config/flux/crd/*.yaml
	$(CONTROLLER_GEN) crd:allowDangerousTypes=true $(foreach p,$(FLUX_APIS),paths=$(p)) output:crd:artifacts:config=config/flux/crd
	go run ./hack/manifests
	go run ./hack/chartdocs
	go run ./hack/census
	go run ./hack/openapi
	go run ./hack/apidocs

## build: the landlord CLI and the controller
.PHONY: build
build:
	go build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN)/ ./cmd/...

## image: landlord-controller's OCI image for linux/amd64 and arm64, no Docker: bin/image/oci and tarballs
.PHONY: image
image:
	go run ./hack/image -repository $(IMAGE) -version $(VERSION) -revision $(REVISION) -out $(BIN)/image

## packages: the Debian packages the tests need (the node's runtime, CNI plugins, iptables; Chromium), installed when missing (root)
.PHONY: packages
packages:
	bash hack/packages.sh

## test: every test, on the real control plane
.PHONY: test
test: packages tools flux-tools docs-tools
	go test $(GO_TEST_FLAGS) $$(go list ./... | grep -v -e '/test/node$$' -e '/test/incluster$$' -e '/test/release$$')
	$(MAKE) test-node
	$(MAKE) test-release

## test-release: the CLI release built as a tag would (make release-snapshot), its checksums, SBOMs and krew manifest checked, installed with krew and run; workflows pinned by digest
.PHONY: test-release
test-release: release-tools
	go test $(GO_TEST_FLAGS) -v ./test/release

## test-node: pods on the local node, NetworkPolicies proven with packets (root; Debian's containerd, runc, CNI plugins, iptables)
.PHONY: test-node
test-node: packages tools flux-tools node-tools
	go test $(GO_TEST_FLAGS) -v ./test/node ./test/incluster

## faults: the fault suite at full length, 50 SIGKILLs of the leader, an API server restart and etcd stopped 10s, and its figures (make test runs 5 kills)
.PHONY: faults
faults: tools
	go test -count=1 -timeout 30m -v -run TestFaults ./test/faults -args -kills=50

## model: the convergence model at length, seeded random Tenant edits checked against the render (MODEL_FLAGS="-model.steps 5000 -model.seed 7")
MODEL_FLAGS ?= -model.steps 2000
.PHONY: model
model: tools
	go test -count=1 -timeout 90m -v -run TestConvergenceModel ./internal/controller -args $(MODEL_FLAGS)

## fuzz: every fuzz target for FUZZTIME each (default 10m), one after the other, each on one core
FUZZTIME ?= 10m
# An input of lint or import runs kustomize for tens of milliseconds and
# almost every one finds new coverage: Go's minute of minimizing each would
# leave no time to fuzz.
.PHONY: fuzz
fuzz:
	go test ./internal/policy -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) -parallel 1
	go test ./internal/policy -run '^$$' -fuzz '^FuzzEvaluate$$' -fuzztime $(FUZZTIME) -parallel 1
	go test ./internal/policy -run '^$$' -fuzz '^FuzzNamespaceRules$$' -fuzztime $(FUZZTIME) -parallel 1
	go test ./internal/policy -run '^$$' -fuzz '^FuzzRoleBinding$$' -fuzztime $(FUZZTIME) -parallel 1
	go test ./internal/lint -run '^$$' -fuzz '^FuzzLint$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s -parallel 1
	go test ./internal/cli -run '^$$' -fuzz '^FuzzImport$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s -parallel 1

## demo: the local environment with Flux and two tenants onboarded from Git
.PHONY: demo
demo: tools flux-tools build
	$(BIN)/landlord dev up --demo --dir .landlord

## bench: provisioning, the idle controller, admission, the dashboard index and lint beside their baselines (BENCH_FLAGS="-tenants 5000 -only p1")
.PHONY: bench
bench: tools flux-tools build $(BIN)/kubectl $(BIN)/kustomize $(BIN)/kubeconform
	go run ./hack/bench -bin $(BIN) $(BENCH_FLAGS)

# The seeds' way of provisioning, the baseline bench compares with.
$(BIN)/kubectl: $(TOOLS_MOD)
	go build -C hack/tools -o $@ k8s.io/kubernetes/cmd/kubectl

# Lint's baseline: kustomize build of every overlay piped to kubeconform.
$(BIN)/kustomize: $(TOOLS_MOD)
	go build -C hack/tools -o $@ sigs.k8s.io/kustomize/kustomize/v5
$(BIN)/kubeconform: $(TOOLS_MOD)
	go build -C hack/tools -o $@ github.com/yannh/kubeconform/cmd/kubeconform

## lint: gofmt, go vet and generated code in sync
.PHONY: lint
lint: generate
	@test -z "$$(gofmt -l . | tee /dev/stderr)" || { echo "gofmt: files above need formatting"; exit 1; }
	go vet ./...
	@test -z "$$(git status --porcelain -- api config charts internal/apivalidation/schemas docs/api.md | tee /dev/stderr)" || { echo "make generate changed files above: commit its output"; exit 1; }
