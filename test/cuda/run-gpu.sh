#!/bin/sh
# run-gpu.sh [logdir]: run every test executable in this script's directory
# on the GPU, one after another, each with a timeout of 60 s
# (KINASE_GPU_TIMEOUT=seconds changes it).
#
# tools/gpu-bundle.sh copies this script into the bundle as run-all.sh, next
# to the executables it builds from test/cuda/*.cu. Prints one line per test,
#   PASS name
#   FAIL name (exit code, last output line)
# then the GPU's name and driver (nvidia-smi), and ends with the line
# `N passed, N failed`. Exits non-zero if anything failed or nothing ran.
# With logdir, the full output of each test goes to logdir/<name>.log.
#
# A test that finds no CUDA device exits 2 with "NO CUDA DEVICE: ...".
# A driver-API test loads its module from <its executable>.ptx, next to it
# (text, not run here).
set -u

dir=$(cd "$(dirname "$0")" && pwd)
self=$(basename "$0")
limit=${KINASE_GPU_TIMEOUT:-60}
logdir=${1:-}
if [ -n "$logdir" ]; then
  mkdir -p "$logdir" || exit 1
fi

# The CUDA runtime: the machine's own (the executables' rpath is
# /usr/local/cuda/lib64, then the loader's paths), else the bundled copy.
if [ -f "$dir/lib/libcudart.so.13" ] &&
  [ ! -e /usr/local/cuda/lib64/libcudart.so.13 ] &&
  ! { command -v ldconfig >/dev/null 2>&1 && ldconfig -p 2>/dev/null | grep -q 'libcudart\.so\.13 '; } &&
  ! (IFS=:; for d in ${LD_LIBRARY_PATH:-}; do [ -e "$d/libcudart.so.13" ] && exit 0; done; exit 1); then
  LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$dir/lib
  export LD_LIBRARY_PATH
fi

tmp=$(mktemp "${TMPDIR:-/tmp}/kinase-gpu.XXXXXX") || exit 1
trap 'rm -f "$tmp"' EXIT
trap 'exit 130' INT TERM

# run_limited seconds command: like timeout(1), which may be missing.
run_limited() {
  if command -v timeout >/dev/null 2>&1; then
    timeout -k 5 "$@"
    return
  fi
  secs=$1
  shift
  "$@" &
  pid=$!
  (sleep "$secs" && kill -9 "$pid") >/dev/null 2>&1 &
  watcher=$!
  wait "$pid"
  rc=$?
  if kill "$watcher" 2>/dev/null; then
    wait "$watcher" 2>/dev/null
  else
    rc=124
  fi
  return "$rc"
}

passed=0
failed=0
for exe in "$dir"/*; do
  name=$(basename "$exe")
  [ "$name" = "$self" ] && continue
  [ -f "$exe" ] && [ -x "$exe" ] || continue
  # Only programs: ELF executables, not scripts or sources.
  [ "$(head -c 4 "$exe" | tail -c 3)" = "ELF" ] || continue

  run_limited "$limit" "$exe" >"$tmp" 2>&1 </dev/null
  rc=$?
  [ -n "$logdir" ] && cp "$tmp" "$logdir/$name.log"
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1))
    echo "PASS $name"
    continue
  fi
  failed=$((failed + 1))
  last=$(grep -v '^[[:space:]]*$' "$tmp" | tail -n 1 | cut -c1-200)
  case $rc in
  124 | 137) why="exit $rc, timed out after $limit s" ;;
  127) why="exit 127, did not start" ;;
  *) if [ "$rc" -gt 128 ]; then why="exit $rc, killed by signal $((rc - 128))"; else why="exit $rc"; fi ;;
  esac
  echo "FAIL $name ($why, ${last:-no output})"
done

if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
