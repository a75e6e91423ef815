# Quokka's build entry points. Every tool runs through `go run` at a pinned
# version, so a machine with only Go and the module proxy can run all targets.

CONTROLLER_GEN ?= go run sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0

.PHONY: all build generate verify-generated vet test test-unit test-integration bench kueue-perf kueue-perf-jobs kueue-decisions envtest browser

all: build

build:
	go build ./...

## generate: rebuild deepcopy code, CRDs and RBAC from the Go types and markers.
generate:
	$(CONTROLLER_GEN) object paths=./apis/...
	$(CONTROLLER_GEN) crd:generateEmbeddedObjectMeta=true paths=./apis/kueue/... paths=./apis/koord/... output:crd:artifacts:config=config/crd/bases
	go run ./hack/crdpatch config/crd/bases/*.yaml
	$(CONTROLLER_GEN) rbac:roleName=quokka-manager-role paths=./controllers/... output:rbac:artifacts:config=config/rbac

## verify-generated: fail when committed generated files differ from `make generate`.
verify-generated: generate
	@git diff --exit-code -- apis config/crd config/rbac || \
	  (echo "generated files are stale: run 'make generate' and commit the result" >&2; exit 1)
	@test -z "$$(git status --porcelain -- apis config/crd config/rbac)" || \
	  (echo "generated files are untracked: run 'make generate' and commit the result" >&2; git status --porcelain -- apis config/crd config/rbac >&2; exit 1)

vet:
	go vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt needed:" >&2; gofmt -l $$(git ls-files '*.go') >&2; exit 1)

## envtest: build (once) and print the kube-apiserver and etcd directory.
envtest:
	@hack/envtest.sh

## browser: Debian's chromium for the simulator's report test (installed once, as root).
browser:
	@hack/install-chromium.sh

# QUOKKA_REQUIRE_BROWSER makes the report test fail instead of skipping when
# chromium is missing, so a green run always means the page rendered.
# engine/scheduler's tests take about 6 minutes on an idle 2-core machine, and
# go test's default 10-minute limit per package was overrun on a fresh machine
# whose other packages were still compiling beside them: the limit is raised,
# not the tests cut.
test-unit: browser
	QUOKKA_REQUIRE_BROWSER=1 go test -timeout 30m ./...

test-integration:
	KUBEBUILDER_ASSETS="$$(hack/envtest.sh --cluster)" go test -race -count=1 -timeout 30m -tags integration ./test/integration/...

## test: what CI runs. Generated files fresh, vet clean, unit and integration tests.
test: verify-generated vet test-unit test-integration

## bench: the engine's and the scheduling loop's benchmarks, reported in the README.
bench:
	go test -run '^$$' -bench . -benchmem ./engine/... ./controllers/core

## kueue-perf: Kueue's scheduler performance harness, quokka manager and minimalkueue
## side by side (KUEUE_PERF_CONFIG=small for a quick run; KUEUE_PERF_ARGS=--chaos).
KUEUE_PERF_CONFIG ?= baseline
kueue-perf:
	hack/kueue-perf.sh --config $(KUEUE_PERF_CONFIG) $(KUEUE_PERF_ARGS)

## kueue-perf-jobs: Jobs with pods on KWOK nodes, quokka manager and Kueue's own
## manager side by side (KUEUE_PERF_JOBS_CONFIG=jobs-small for a quick run).
KUEUE_PERF_JOBS_CONFIG ?= jobs
kueue-perf-jobs:
	hack/kueue-perf.sh --load jobs --config $(KUEUE_PERF_JOBS_CONFIG) $(KUEUE_PERF_ARGS)

## kueue-decisions: random scenarios played through minimalkueue, every event
## replayed through Quokka's engine and compared (KUEUE_DECISIONS_SCENARIOS=2 for
## a quick run, about 2 minutes).
KUEUE_DECISIONS_SCENARIOS ?= 10
kueue-decisions:
	hack/kueue-perf.sh --load decisions --scenarios $(KUEUE_DECISIONS_SCENARIOS) $(KUEUE_PERF_ARGS)
