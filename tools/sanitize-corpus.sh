#!/usr/bin/env bash
# Runs the IR test corpus through kinase-opt built with AddressSanitizer and
# UndefinedBehaviorSanitizer (in build-sanitize/): every input must end
# transformed or diagnosed, with no report from the sanitizers.
set -uo pipefail
cd "$(dirname "$0")/.."
build=build-sanitize
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_BUILD_TYPE=Debug -DKINASE_SANITIZE=ON >/dev/null || exit 1
fi
cmake --build "$build" --target kinase-opt >/dev/null || exit 1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$PWD/tools/ubsan.supp
passed=0 failed=0
for input in test/ir/*.ll test/errors/*.ll test/robustness/*.ll; do
  "$build/bin/kinase-opt" --wrap "$input" -o /dev/null 2>"$build/last.err"
  status=$?
  if [ $status -le 1 ] && ! grep -q -E "Sanitizer|runtime error" "$build/last.err"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $input (exit $status)"
    grep -m5 -E "ERROR|runtime error|SUMMARY" "$build/last.err"
  fi
done
echo "sanitized corpus: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
