#!/usr/bin/env bash
# Builds the kube-apiserver and etcd binaries that envtest needs, from the Go module
# proxy only, and prints the directory to use as KUBEBUILDER_ASSETS.
#
# Why build from source: no download site for prebuilt envtest binaries is reachable from
# our machines or CI, but the Go module proxy is. The binaries are cached outside the
# repository and rebuilt only when missing, so only the first run pays for the build
# (about 15 minutes for kube-apiserver and 3 for etcd on 2 cores).
#
# Progress goes to stderr; stdout carries only the directory.
set -euo pipefail

KUBE_VERSION="${QUOKKA_KUBE_VERSION:-v1.37.2}"
STAGING_VERSION="v0${KUBE_VERSION#v1}"      # v1.37.2 -> v0.37.2
ETCD_VERSION="${QUOKKA_ETCD_VERSION:-v3.6.16}"

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/quokka/envtest"
dir="$cache_root/kube-${KUBE_VERSION}-etcd-${ETCD_VERSION}"
mkdir -p "$dir"

log() { echo "envtest: $*" >&2; }

build_apiserver() {
  local work
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' RETURN
  log "building kube-apiserver ${KUBE_VERSION} in $work (first run only)"
  (
    cd "$work"
    go mod init quokka.local/envtest-apiserver >/dev/null 2>&1
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
    printf 'package main\n\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver"\n' > tools.go
    go mod tidy >&2 2>&1 || true
    GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -o "$dir/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
  )
  mv "$dir/kube-apiserver.tmp" "$dir/kube-apiserver"
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
[ -x "$dir/kube-apiserver" ] || build_apiserver

echo "$dir"
