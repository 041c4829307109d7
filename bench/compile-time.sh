#!/usr/bin/env bash
# Compile time of Kinase against plain clang.
#
#   bench/compile-time.sh [runs] [functions]   (default: best of 3, 1000 functions)
#
# 1. Every C test program of test/c/ that is not XFAIL, compiled one after the
#    other with `build/bin/kinase-cc -O2 -c` and with `clang-22 -O2 -c`, the
#    same flags (-I test/c/include -I include, and the extra flags of the
#    file's check-c RUN line). The total over all files, best of N runs, for
#    each compiler and the ratio (target: <= 1.25).
# 2. A generated module of 1000 (or [functions]) small functions, each differentiated by its
#    own request (half forward, half reverse), compiled with kinase-cc -O2 -c
#    and with clang-22 -O2 -c: best of N (target: seconds).
#
# Run it on an otherwise idle machine: the figures are wall-clock seconds.
# KINASE_CC and CLANG override the compilers.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
nfun=${2:-1000}
kcc=${KINASE_CC:-build/bin/kinase-cc}
clang=${CLANG:-$(command -v clang-22 || echo /usr/lib/llvm-22/bin/clang)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[ -x "$kcc" ] || { echo "compile-time: $kcc not found (build first)" >&2; exit 2; }

# The test programs and their extra flags (after %t on the RUN line).
files=() flags=()
for f in test/c/*.c; do
  grep -q 'XFAIL' "$f" && continue
  run=$(grep -m1 -o 'RUN: %check-c %s %t.*' "$f" || true)
  [ -n "$run" ] || continue
  files+=("$f")
  flags+=("${run#RUN: %check-c %s %t}")
done

now() { date +%s.%N; }
# elapsed T0 T1: seconds from T0 to T1 (awk, not bc: bc is not installed everywhere)
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", b - a }'; }

# compile_all COMPILER: compiles every test program once, prints seconds.
compile_all() {
  local cc=$1 i t0 t1
  t0=$(now)
  for i in "${!files[@]}"; do
    # shellcheck disable=SC2086
    "$cc" -O2 -c -Itest/c/include -Iinclude ${flags[$i]} "${files[$i]}" -o "$work/out.o" 2>/dev/null ||
      { echo "compile-time: $cc failed on ${files[$i]}" >&2; return 1; }
  done
  t1=$(now)
  elapsed "$t0" "$t1"
}

# best COMMAND...: the least of $runs timings printed by COMMAND.
best() {
  local b="" t k
  for ((k = 0; k < runs; k++)); do
    t=$("$@")
    if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN { exit !(t < b) }'; then b=$t; fi
  done
  printf '%.2f' "$b"
}

echo "test programs: ${#files[@]} files of test/c (XFAIL excluded), -O2 -c, best of $runs"
k_total=$(best compile_all "$kcc")
c_total=$(best compile_all "$clang")
ratio=$(awk -v k="$k_total" -v c="$c_total" 'BEGIN { printf "%.3f", k / c }')
printf '  clang-22:  %6.2f s\n  kinase-cc: %6.2f s\n  ratio:     %6.2f (target <= 1.25)\n' "$c_total" "$k_total" "$ratio"

# The modules of $nfun functions: $nfun small functions to differentiate
# (four shapes: arithmetic, a loop, a branch, a loop over an array), each
# differentiated by its own request, half in forward mode, half in reverse.
# split.c: each request in its own caller, as programs are usually written.
# onecaller.c: all requests in one function, into which clang inlines every
# derivative (a stress case for LLVM's passes on one huge function).
targets() {
  for ((i = 0; i < nfun; i++)); do
    case $((i % 4)) in
      0) echo "static double f$i(double x, double y) { return x * sin(y) + $i.0 * x * x; }" ;;
      1) echo "static double f$i(double x, double y) { double s = 0; for (int k = 0; k < 4; k++) s += exp(-x * k) * y; return s; }" ;;
      2) echo "static double f$i(double x, double y) { return x > y ? log(1 + x * x) : x * y / (1 + y * y); }" ;;
      3) echo "static double f$i(const double *v, int n) { double s = 0; for (int k = 0; k < n; k++) s += v[k] * v[k] * $i.0; return sqrt(1 + s); }" ;;
    esac
  done
}
# request I: the call asking for the derivative of f<I>
request() {
  local i=$1
  case $((i % 4)) in
    0 | 2) if ((i % 8 < 4)); then
        echo "__enzyme_fwddiff((void *)f$i, enzyme_dup, x, 1.0, enzyme_const, y)"
      else
        echo "__enzyme_autodiff((void *)f$i, enzyme_out, x, enzyme_const, y)"
      fi ;;
    1) echo "__enzyme_autodiff((void *)f$i, enzyme_out, x, enzyme_const, y)" ;;
    3) echo "__enzyme_autodiff((void *)f$i, enzyme_dup, v, dv, enzyme_const, n)" ;;
  esac
}
{
  echo '#include <kinase.h>'
  echo '#include <math.h>'
  targets
  for ((i = 0; i < nfun; i++)); do
    echo "double d$i(double x, double y, const double *v, double *dv, int n) { return $(request "$i"); }"
  done
} >"$work/split.c"
{
  echo '#include <kinase.h>'
  echo '#include <math.h>'
  targets
  echo 'double run(double x, double y, const double *v, double *dv, int n) {'
  echo '  double s = 0;'
  for ((i = 0; i < nfun; i++)); do
    echo "  s += $(request "$i");"
  done
  echo '  return s;'
  echo '}'
} >"$work/onecaller.c"

# time_one COMPILER FILE: seconds for one -O2 -c compile
time_one() {
  local t0 t1
  t0=$(now)
  "$1" -O2 -c "$2" -Iinclude -o "$work/many.o" || return 1
  t1=$(now)
  elapsed "$t0" "$t1"
}
for m in split onecaller; do
  k_many=$(best time_one "$kcc" "$work/$m.c")
  c_many=$(best time_one "$clang" "$work/$m.c")
  printf '%s.c: %d functions, %d requests (%d lines of C), -O2 -c, best of %d:\n' \
    "$m" "$nfun" "$nfun" "$(wc -l <"$work/$m.c")" "$runs"
  printf '  clang-22:  %6.2f s\n  kinase-cc: %6.2f s\n' "$c_many" "$k_many"
  # the share of the Kinase pass itself (LLVM's -ftime-report, one run)
  pass=$("$kcc" -O2 -c "$work/$m.c" -Iinclude -o "$work/many.o" -ftime-report 2>&1 |
    awk '/KinasePass/ && !done { gsub(/\([ 0-9.]*%\)/, ""); print $4; done = 1 }' || true)
  printf '  of which the Kinase pass: %s s (wall, -ftime-report)\n' "${pass:-?}"
done
