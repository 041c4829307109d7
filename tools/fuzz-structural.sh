#!/usr/bin/env bash
# Structural fuzzing: llvm-stress generates random modules, kinase-opt --wrap
# asks for derivatives of all their functions in both modes. Every module
# must end differentiated and valid, or with a clean diagnostic: no crash, no
# hang, no invalid IR.
#   tools/fuzz-structural.sh [count] [first-seed]
# Failing inputs are kept in build/fuzz-failures/.
set -uo pipefail
cd "$(dirname "$0")/.."
count=${1:-200}
first=${2:-1}
stress=$(command -v llvm-stress-22 || echo /usr/lib/llvm-22/bin/llvm-stress)
opt_tool=${KINASE_OPT_TOOL:-build/bin/kinase-opt}
failures=build/fuzz-failures
mkdir -p "$failures"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

one() {
  local seed=$1 size=$(( (seed % 7 + 1) * 40 ))
  local in="$work/$seed.ll"
  "$stress" -seed "$seed" -size "$size" -o "$in" || { echo "skip $seed"; return; }
  timeout 30 "$opt_tool" --wrap "$in" -o /dev/null 2>"$work/$seed.err"
  local status=$?
  # An internal error is a bug even when it comes out as a diagnostic.
  if grep -q "internal error" "$work/$seed.err"; then status=3; fi
  case $status in
    0) echo "ok $seed" ;;
    1) echo "diagnosed $seed" ;;
    124) echo "hang $seed"; cp "$in" "$failures/hang-$seed.ll" ;;
    3) echo "invalid $seed"; cp "$in" "$failures/invalid-$seed.ll" ;;
    *) echo "crash $seed ($status)"; cp "$in" "$failures/crash-$seed.ll"; head -3 "$work/$seed.err" >&2 ;;
  esac
  rm -f "$in" "$work/$seed.err"
}
export -f one
export work stress opt_tool failures

seq "$first" $((first + count - 1)) | xargs -P "$(nproc)" -I{} bash -c 'one {}' >"$work/results"
ok=$(grep -c '^ok ' "$work/results")
diagnosed=$(grep -c '^diagnosed ' "$work/results")
bad=$(grep -cv -E '^(ok|diagnosed|skip) ' "$work/results")
grep -v -E '^(ok|diagnosed|skip) ' "$work/results" | head -20
echo "structural fuzzing: $count modules, $ok differentiated, $diagnosed diagnosed, $bad crashes, hangs or invalid"
[ "$bad" -eq 0 ]
