#!/usr/bin/env bash
# Runs Kueue's own scheduler performance harness (sigs.k8s.io/kueue
# test/performance/scheduler: the runner and minimalkueue) against `quokka manager`
# and against minimalkueue, back to back, each on a fresh kube-apiserver + etcd, and
# prints one table side by side. Usage:
#
#   hack/kueue-perf.sh [--config baseline|small|FILE] [--sides quokka,minimalkueue]
#                      [--out DIR] [--chaos] [--timeout 45m]
#   hack/kueue-perf.sh --load jobs [--config jobs|jobs-small|FILE] [--sides quokka,kueue]
#   hack/kueue-perf.sh --load decisions [--scenarios 10] [--seed 1] [--fair-sharing STRATEGIES]
#                      [--partial-admission] [--reclaimable-pods] [--two-resources] [--two-groups]
#                      [--priority-changes] [--deactivations]
#                      [--kueue-feature-gates K=V,... --quokka-feature-gates K=V,...]
#
# With --load jobs, batch/v1 Jobs get real pods on KWOK's fake nodes (the cluster's
# components of `hack/envtest.sh --cluster`), admitted by `quokka manager` and by
# Kueue's own manager (cmd/kueue, built from the module proxy like the runner).
# With --load decisions, random scenarios are played through minimalkueue one event
# at a time, and each event is replayed through Quokka's engine from Kueue's state
# before it; every admission and eviction must be the same (docs/kueue-decisions.md).
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

# build_kueue_cmd <package> <name>: one main package of sigs.k8s.io/kueue at
# KUEUE_VERSION, built in a throwaway module into $cache/<name>.
build_kueue_cmd() {
  local pkg="$1" name="$2" work
  work="$(mktemp -d)"
  # The trap clears itself: a RETURN trap outlives the function that set it and
  # would fire again, with work unset, when its caller returns.
  trap 'rm -rf "$work"; trap - RETURN' RETURN
  log "building ${pkg} ${KUEUE_VERSION} in $work (first run only)"
  (
    cd "$work"
    go mod init "quokka.local/kueue-perf-${name}" >/dev/null 2>&1
    GOFLAGS=-mod=mod go get "${pkg}@${KUEUE_VERSION}" >&2
    GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$cache/${name}.tmp" "$pkg"
  )
  mv "$cache/${name}.tmp" "$cache/${name}"
}

# build_harness: Kueue's runner and minimalkueue, and Kueue's CRDs and generator
# configs from the same module.
build_harness() {
  build_kueue_cmd sigs.k8s.io/kueue/test/performance/scheduler/runner runner
  build_kueue_cmd sigs.k8s.io/kueue/test/performance/scheduler/minimalkueue minimalkueue
  local dir
  dir="$(go mod download -json "sigs.k8s.io/kueue@${KUEUE_VERSION}" | sed -n 's/.*"Dir": "\(.*\)",*/\1/p')"
  [ -n "$dir" ] || { log "cannot find sigs.k8s.io/kueue@${KUEUE_VERSION} in the module cache"; exit 1; }
  rm -rf "$cache/crds.tmp" "$cache/configs.tmp"
  cp -r "$dir/config/components/crd/bases" "$cache/crds.tmp"
  cp -r "$dir/test/performance/scheduler/configs" "$cache/configs.tmp"
  chmod -R u+w "$cache/crds.tmp" "$cache/configs.tmp"
  rm -rf "$cache/crds" "$cache/configs"
  mv "$cache/crds.tmp" "$cache/crds"
  mv "$cache/configs.tmp" "$cache/configs"
}

jobs=false
fair=false
prev=""
for arg in "$@"; do
  if [ "$arg" = "--load=jobs" ] || { [ "$prev" = "--load" ] && [ "$arg" = "jobs" ]; }; then
    jobs=true
  fi
  # Both run Kueue's own manager, which is built on first use.
  case "$arg" in --fair-sharing|--fair-sharing=*|--kueue-feature-gates|--kueue-feature-gates=*) fair=true ;; esac
  prev="$arg"
done

if [ ! -x "$cache/runner" ] || [ ! -x "$cache/minimalkueue" ] || [ ! -d "$cache/crds" ]; then
  build_harness
fi
if $jobs || $fair; then
  [ -x "$cache/kueue" ] || build_kueue_cmd sigs.k8s.io/kueue/cmd/kueue kueue
fi
if $jobs; then
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
