#!/usr/bin/env bash
# Generates a synthetic week (1000 ClusterQueues in 10 Cohorts, 100,000 jobs by
# default) and times `quokka simulate` on it: the full-size run behind the
# simulator's benchmark numbers (simulator/README.md, "Scale"). Arguments are
# passed to `quokka simulate generate`, e.g. --jobs 10000 --reclaim 0.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${WEEK_DIR:-$(mktemp -d)}"
bin="$(mktemp -d)/quokka"
go build -o "$bin" ./cmd/quokka

args=(--queues 1000 --cohorts 10 --jobs 100000 --seed 1)
"$bin" simulate generate "${args[@]}" "$@" -o "$out"

echo "simulating $out ..." >&2
# real is wall clock; user+sys is what the simulation cost on a busy machine.
TIMEFORMAT='simulated in %Rs wall clock, %Us user + %Ss system CPU'
time "$bin" simulate -f "$out" --output json > "$out/result.json"
echo "result: $out/result.json" >&2
