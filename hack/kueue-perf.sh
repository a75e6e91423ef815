#!/usr/bin/env bash
# Runs Kueue's own scheduler performance harness (sigs.k8s.io/kueue
# test/performance/scheduler: the runner and minimalkueue) against `quokka manager`
# and against minimalkueue, back to back, each on a fresh kube-apiserver + etcd, and
# prints one table side by side. Usage:
#
#   hack/kueue-perf.sh [--config baseline|small|FILE] [--sides quokka,minimalkueue]
#                      [--out DIR] [--chaos] [--timeout 45m]
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

if [ ! -x "$cache/runner" ] || [ ! -x "$cache/minimalkueue" ] || [ ! -d "$cache/crds" ]; then
  build_harness
fi

assets="$("$root/hack/envtest.sh")"
log "building quokka from this tree"
(cd "$root" && CGO_ENABLED=0 go build -o "$cache/quokka" ./cmd/quokka)

cd "$root"
KUBEBUILDER_ASSETS="$assets" exec go run ./test/performance/kueueperf \
  --runner "$cache/runner" --minimalkueue "$cache/minimalkueue" --quokka "$cache/quokka" \
  --kueue-crds "$cache/crds" --quokka-crds "$root/config/crd/bases" \
  --kueue-configs "$cache/configs" "$@"
