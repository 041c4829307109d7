#!/usr/bin/env bash
# The two entry points of Kinase, on a fresh Debian 12 machine or an old one:
#   tools/run.sh demo            install what is missing, build, run examples/demo.c
#   tools/run.sh test [LIT-ARGS] install what is missing, check that the tests
#                                have all they use (tools/check-deps.sh), build,
#                                run every test; the last line is
#                                "N passed, N failed[, N skipped]"
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
mode=${1:-}
case $mode in
  demo | test) shift ;;
  *) echo "usage: tools/run.sh demo | test [lit arguments...]" >&2; exit 2 ;;
esac

bash tools/setup.sh

jobs=$(nproc)
build() {
  # Configure once; again when build/ predates KINASE_WERROR (off by default).
  if ! grep -qs '^KINASE_WERROR:BOOL=ON' build/CMakeCache.txt; then
    cmake -S . -B build -G Ninja -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKINASE_WERROR=ON || return 1
  fi
  cmake --build build -j "$jobs"
}

if [[ $mode == demo ]]; then
  build
  build/bin/kinase-cc -O2 examples/demo.c -o build/demo -lm
  exec build/demo
fi

# mode == test: whatever goes wrong, the last line is the count.
# First, everything the tests use must be there, from a package setup.sh installs.
if ! bash tools/check-deps.sh; then
  echo "run.sh: a dependency of the tests is missing or not installed by tools/setup.sh (see above)"
  echo "0 passed, 1 failed"
  exit 1
fi
if ! build; then
  echo "run.sh: the build failed"
  echo "0 passed, 1 failed"
  exit 1
fi

lit=$(llvm-config-22 --bindir)/lit
results=build/test/results.json
rm -f "$results"
# The per-test timeout (300 s, KINASE_TEST_TIMEOUT) is set in test/lit.cfg.py.
lit_args=(-v -j "$jobs" --resultdb-output "$results")

lit_status=0
"$lit" "${lit_args[@]}" "$@" build/test || lit_status=$?

if [[ ! -f $results ]]; then
  echo "run.sh: lit stopped before it wrote $results (exit status $lit_status)"
  echo "0 passed, 1 failed"
  exit 1
fi

# passed: PASS; failed: FAIL, XPASS, UNRESOLVED, TIMEOUT; skipped: UNSUPPORTED, and
# XFAIL (known gaps: each such test names what is not supported yet).
counts=$(python3 - "$results" <<'PY'
import json, sys
tests = json.load(open(sys.argv[1]))["tests"]
failed = sum(1 for t in tests if not t["expected"])
skipped = sum(1 for t in tests if t["expected"] and t["status"] in ("SKIP", "FAIL"))
passed = len(tests) - failed - skipped
print(passed, failed, skipped)
PY
) || counts="0 1 0"
read -r passed failed skipped <<<"$counts"
if ((lit_status != 0 && failed == 0)); then
  echo "run.sh: lit exited with status $lit_status"
  failed=1
fi
line="$passed passed, $failed failed"
((skipped == 0)) || line+=", $skipped skipped"
echo "$line"
((failed == 0))
