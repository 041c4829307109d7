#!/usr/bin/env bash
# Compile time of a CUDA program with no derivative request (bench/cuda-no-ad.cu),
# kinase-cc against plain clang++-22, both -O2 --cuda-gpu-arch=sm_90, compiled and
# linked: N runs (default 5) of each, alternating so that both see the same load,
# in CPU seconds; the best of each and their ratio (target: <= 1.25), and the
# median of the runs' ratios.
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
# than wall-clock time on a shared machine.
cpu() { # command...
  /usr/bin/time -o "$work/time" -f "%U %S" "$@" >/dev/null 2>&1
  awk '{ print $1 + $2 }' "$work/time"
}
for _ in $(seq "$runs"); do
  p=$(cpu "$clangxx" -x cuda --cuda-path="$cuda" "${flags[@]}" bench/cuda-no-ad.cu \
    -L"$cuda/lib64" -lcudart -o "$work/plain")
  k=$(cpu "$kcc" "${flags[@]}" bench/cuda-no-ad.cu -o "$work/kinase")
  echo "$p $k $(awk -v p="$p" -v k="$k" 'BEGIN { print k / p }')"
done | sort -k3,3n | awk -v n="$runs" '
  { p = NR == 1 || $1 < p ? $1 : p; k = NR == 1 || $2 < k ? $2 : k; r[NR] = $3 }
  END {
    median = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
    printf "bench/cuda-no-ad.cu, best of %d: clang++-22 %.2f s, kinase-cc %.2f s (CPU), ratio %.2f;", n, p, k, k / p
    printf " ratios of the runs %.2f to %.2f, median %.2f\n", r[1], r[NR], median }'
