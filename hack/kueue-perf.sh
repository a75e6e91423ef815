#!/usr/bin/env bash
# Runs Kueue's own scheduler performance harness (sigs.k8s.io/kueue
# test/performance/scheduler: the runner and minimalkueue) against `quokka manager`
# and against minimalkueue, back to back, each on a fresh kube-apiserver + etcd, and
# prints one table side by side. Usage:
#
#   hack/kueue-perf.sh [--config baseline|small|FILE] [--sides quokka,minimalkueue]
#                      [--out DIR] [--chaos] [--timeout 45m]
#   hack/kueue-perf.sh --load jobs [--config jobs|jobs-small|FILE] [--sides quokka,kueue]
#
# With --load jobs, batch/v1 Jobs get real pods on KWOK's fake nodes (the cluster's
# components of `hack/envtest.sh --cluster`), admitted by `quokka manager` and by
# Kueue's own manager (cmd/kueue, built from the module proxy like the runner).
#
# The runner and minimalkueue are built from the Go module proxy (like the API server
# in hack/envtest.sh), cached outside the repository and rebuilt only when missing
# (about 5 minutes on 2 cores). quokka is built from this tree on every run.
set -euo pipefail

KUEUE_VERSION="${QUOKKA_KUEUE_PERF_VERSION:-v0.17.0}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/quokka/kueue-perf/${KUEUE_VERSION}"
mkdir -p "$cache"

log() { echo "kueue-perf: $*" >&2; }

build_harness() {
  local work
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  log "building Kueue's runner and minimalkueue ${KUEUE_VERSION} in $work (first run only)"
  (
    cd "$work"
    go mod init quokka.local/kueue-perf >/dev/null 2>&1
    GOFLAGS=-mod=mod go get \
      "sigs.k8s.io/kueue/test/performance/scheduler/runner@${KUEUE_VERSION}" \
      "sigs.k8s.io/kueue/test/performance/scheduler/minimalkueue@${KUEUE_VERSION}" >&2
    GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$cache/runner.tmp" sigs.k8s.io/kueue/test/performance/scheduler/runner
    GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$cache/minimalkueue.tmp" sigs.k8s.io/kueue/test/performance/scheduler/minimalkueue
    local dir
    dir="$(GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' sigs.k8s.io/kueue)"
    rm -rf "$cache/crds.tmp" "$cache/configs.tmp"
    cp -r "$dir/config/components/crd/bases" "$cache/crds.tmp"
    cp -r "$dir/test/performance/scheduler/configs" "$cache/configs.tmp"
    chmod -R u+w "$cache/crds.tmp" "$cache/configs.tmp"
  )
  rm -rf "$cache/crds" "$cache/configs"
  mv "$cache/crds.tmp" "$cache/crds"
  mv "$cache/configs.tmp" "$cache/configs"
  mv "$cache/runner.tmp" "$cache/runner"
  mv "$cache/minimalkueue.tmp" "$cache/minimalkueue"
}

build_kueue() {
  local work
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  log "building Kueue's manager ${KUEUE_VERSION} in $work (first run only)"
  (
    cd "$work"
    go mod init quokka.local/kueue-manager >/dev/null 2>&1
    GOFLAGS=-mod=mod go get "sigs.k8s.io/kueue/cmd/kueue@${KUEUE_VERSION}" >&2
    GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$cache/kueue.tmp" sigs.k8s.io/kueue/cmd/kueue
  )
  mv "$cache/kueue.tmp" "$cache/kueue"
}

jobs=false
prev=""
for arg in "$@"; do
  if [ "$arg" = "--load=jobs" ] || { [ "$prev" = "--load" ] && [ "$arg" = "jobs" ]; }; then
    jobs=true
  fi
  prev="$arg"
done

if [ ! -x "$cache/runner" ] || [ ! -x "$cache/minimalkueue" ] || [ ! -d "$cache/crds" ]; then
  build_harness
fi
if $jobs; then
  [ -x "$cache/kueue" ] || build_kueue
  assets="$("$root/hack/envtest.sh" --cluster)"
else
  assets="$("$root/hack/envtest.sh")"
fi
log "building quokka from this tree"
(cd "$root" && CGO_ENABLED=0 go build -o "$cache/quokka" ./cmd/quokka)

cd "$root"
KUBEBUILDER_ASSETS="$assets" exec go run ./test/performance/kueueperf \
  --runner "$cache/runner" --minimalkueue "$cache/minimalkueue" --quokka "$cache/quokka" --kueue "$cache/kueue" \
  --kueue-crds "$cache/crds" --quokka-crds "$root/config/crd/bases" \
  --kueue-configs "$cache/configs" "$@"
