#!/usr/bin/env bash
# Builds the benchmarks with kinase-cc -O2 and runs them once. Figures go to
# docs/PERFORMANCE.md by hand: timings are of this machine, not of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
build/bin/kinase-cc -O2 bench/reverse-cpu.c -o "$out/reverse-cpu" -lm
"$out/reverse-cpu"
