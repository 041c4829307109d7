#!/usr/bin/env bash
# Compile time of a CUDA program with no derivative request (bench/cuda-no-ad.cu),
# kinase-cc against plain clang++-22, both -O2 --cuda-gpu-arch=sm_90, compiled and
# linked: best of N runs (default 5) of each, in CPU seconds, and the ratio
# (target: <= 1.25).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
kcc=${KINASE_CC:-build/bin/kinase-cc}
clangxx=${CLANGXX:-$(command -v clang++-22 || echo /usr/lib/llvm-22/bin/clang++)}
cuda=${CUDA_ROOT:-/usr/local/cuda}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$kcc" ] || { echo "cuda-compile-time: $kcc not found (build first)" >&2; exit 2; }

flags=(-O2 --cuda-gpu-arch=sm_90 -Wno-unknown-cuda-version)
# CPU seconds (user + system, the compiler's processes included): steadier
# than wall-clock time on a shared machine. The best of N runs.
best() { # best command...
  local best=""
  for _ in $(seq "$runs"); do
    local t
    /usr/bin/time -o "$work/time" -f "%U %S" "$@" >/dev/null 2>&1
    t=$(awk '{ print $1 + $2 }' "$work/time")
    best=$(awk -v b="$best" -v t="$t" 'BEGIN { if (b == "" || t < b) print t; else print b }')
  done
  echo "$best"
}
plain=$(best "$clangxx" -x cuda --cuda-path="$cuda" "${flags[@]}" bench/cuda-no-ad.cu \
  -L"$cuda/lib64" -lcudart -o "$work/plain")
kinase=$(best "$kcc" "${flags[@]}" bench/cuda-no-ad.cu -o "$work/kinase")
awk -v p="$plain" -v k="$kinase" -v n="$runs" 'BEGIN {
  printf "bench/cuda-no-ad.cu, best of %d: clang++-22 %.2f s, kinase-cc %.2f s (CPU), ratio %.2f\n", n, p, k, k / p }'
