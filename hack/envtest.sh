#!/usr/bin/env bash
# Builds the kube-apiserver and etcd binaries that envtest needs, from the Go module
# proxy only, and prints the directory to use as KUBEBUILDER_ASSETS. With --cluster
# it also builds kube-controller-manager, kube-scheduler and KWOK (the fake kubelet)
# into the same directory, for the tests that need a cluster with nodes
# (test/integration/cluster).
#
# Why build from source: no download site for prebuilt envtest binaries is reachable from
# our machines or CI, but the Go module proxy is. The binaries are cached outside the
# repository and rebuilt only when missing, so only the first run pays for the build
# (about 15 minutes for kube-apiserver and 3 for etcd on 2 cores; then about 3 each for
# kube-controller-manager and kube-scheduler, which share most of the API server's
# packages, and 2 for KWOK).
#
# Progress goes to stderr; stdout carries only the directory.
set -euo pipefail

KUBE_VERSION="${QUOKKA_KUBE_VERSION:-v1.37.2}"
STAGING_VERSION="v0${KUBE_VERSION#v1}"      # v1.37.2 -> v0.37.2
ETCD_VERSION="${QUOKKA_ETCD_VERSION:-v3.6.16}"
KWOK_VERSION="${QUOKKA_KWOK_VERSION:-v0.8.0}"

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/quokka/envtest"
dir="$cache_root/kube-${KUBE_VERSION}-etcd-${ETCD_VERSION}"
mkdir -p "$dir"

log() { echo "envtest: $*" >&2; }

# build_kube <command>: one command of k8s.io/kubernetes (kube-apiserver,
# kube-controller-manager, kube-scheduler) at KUBE_VERSION.
build_kube() {
  local cmd="$1" work
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  log "building ${cmd} ${KUBE_VERSION} in $work (first run only)"
  (
    cd "$work"
    go mod init "quokka.local/envtest-${cmd}" >/dev/null 2>&1
    # k8s.io/kubernetes requires its staging modules at v0.0.0 and replaces them with
    # local paths; outside its own tree every one must be pinned to the published release.
    local gomod
    gomod="$(go mod download -json "k8s.io/kubernetes@${KUBE_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')"
    [ -n "$gomod" ] || { log "cannot read the go.mod of k8s.io/kubernetes@${KUBE_VERSION}"; exit 1; }
    go mod edit -require="k8s.io/kubernetes@${KUBE_VERSION}"
    local mods
    mods="$(awk '($1 ~ /^k8s\.io\// && $2 == "v0.0.0") {print $1}' "$gomod" | sort -u)"
    for m in $mods; do
      go mod edit -replace="${m}=${m}@${STAGING_VERSION}"
    done
    printf 'package main\n\nimport _ "k8s.io/kubernetes/cmd/%s"\n' "$cmd" > tools.go
    go mod tidy >&2 2>&1 || true
    # Stamp the version as Kubernetes' own release builds do: clients that read
    # /version (Kueue's manager refuses to start without one it can parse)
    # otherwise see "v0.0.0-master+$Format:%H$".
    local minor="${KUBE_VERSION#v1.}"
    minor="${minor%%.*}"
    local pkg=k8s.io/component-base/version
    GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath \
      -ldflags "-X ${pkg}.gitVersion=${KUBE_VERSION} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${minor} -X ${pkg}.gitTreeState=clean" \
      -o "$dir/${cmd}.tmp" "k8s.io/kubernetes/cmd/${cmd}"
  )
  mv "$dir/${cmd}.tmp" "$dir/${cmd}"
}

# stamped <command>: whether a built command reports KUBE_VERSION (builds made
# before the version was stamped report v0.0.0-master and are rebuilt).
stamped() {
  "$dir/$1" --version 2>/dev/null | grep -qx "Kubernetes ${KUBE_VERSION}"
}

# build_kwok: KWOK's fake kubelet, which plays the nodes and the pods bound to
# them for the tests that need a cluster with nodes (test/integration/cluster).
# It is its own module with its own Kubernetes libraries; it talks to the API
# server over its API only.
build_kwok() {
  log "building kwok ${KWOK_VERSION} (first run only)"
  GOFLAGS=-mod=mod CGO_ENABLED=0 GOBIN="$dir/kwok.bin" go install -trimpath "sigs.k8s.io/kwok/cmd/kwok@${KWOK_VERSION}"
  mv "$dir/kwok.bin/kwok" "$dir/kwok-${KWOK_VERSION}"
  rmdir "$dir/kwok.bin"
}

build_etcd() {
  local work
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  log "building etcd ${ETCD_VERSION} in $work (first run only)"
  (
    cd "$work"
    go mod init quokka.local/envtest-etcd >/dev/null 2>&1
    printf 'package main\n\nimport _ "go.etcd.io/etcd/server/v3"\n' > tools.go
    go mod edit -require="go.etcd.io/etcd/server/v3@${ETCD_VERSION}"
    go mod tidy >&2 2>&1 || true
    GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$dir/etcd.tmp" go.etcd.io/etcd/server/v3
  )
  mv "$dir/etcd.tmp" "$dir/etcd"
}

[ -x "$dir/etcd" ] || build_etcd
{ [ -x "$dir/kube-apiserver" ] && stamped kube-apiserver; } || build_kube kube-apiserver
if [ "${1:-}" = "--cluster" ]; then
  [ -x "$dir/kube-controller-manager" ] || build_kube kube-controller-manager
  [ -x "$dir/kube-scheduler" ] || build_kube kube-scheduler
  [ -x "$dir/kwok-${KWOK_VERSION}" ] || build_kwok
  # The tests start "kwok"; the link names the version this script builds.
  ln -sfn "kwok-${KWOK_VERSION}" "$dir/kwok"
fi

echo "$dir"
