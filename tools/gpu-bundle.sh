#!/bin/sh
# gpu-bundle.sh [outdir]: build the CUDA test programs for a GPU machine that
# has the CUDA driver and runtime but no clang or LLVM.
#
# Compiles every test/cuda/*.cu with build/bin/kinase-cc at -O0 and -O2 into
# outdir/<test>-O0 and outdir/<test>-O2 (default outdir: .device-bundle/ at
# the repository root, ignored by git). A source with the line
#   // GPU-BUILD: clang++
# is built instead with plain clang++ (LLVM 22, no Kinase pass; KINASE_CLANGXX
# overrides it) as CUDA for sm_90, linked with build/lib/libkinase_rt.a,
# cudart and the driver: a test of the runtime with derivative kernels of its
# own. A source without a main function is skipped (nothing to run). Every
# test/cuda/*.c is a C program of the CUDA driver API, built with
# kinase-cc and -lcuda; one with the line
#   // GPU-PTX: Inputs/kernels.cu
# loads the module that kinase-cc --cuda-device-only -S makes of that source
# (relative to test/cuda), at the same -O level, from the file next to its
# executable: outdir/<test>-O2.ptx beside outdir/<test>-O2. The script copies test/cuda/run-gpu.sh into outdir as run-all.sh, and
# the CUDA runtime (libcudart.so.13) into outdir/lib as a fallback for a
# machine without it. On the GPU machine:
#
#   outdir/run-all.sh [logdir]
#
# prints PASS/FAIL per program and ends with `N passed, N failed`.
#
# The executables link cudart dynamically (rpath /usr/local/cuda/lib64) and
# the CUDA driver (libcuda.so.1), which only the GPU machine's driver can
# provide. Exits non-zero if any program fails to build.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/.device-bundle}
cc=$root/build/bin/kinase-cc
runtime=$root/build/lib/libkinase_rt.a
cxx=${KINASE_CLANGXX:-$(llvm-config-22 --bindir 2>/dev/null)/clang++}
cuda=${KINASE_CUDA_PATH:-/usr/local/cuda}
marker=.kinase-device-bundle

die() {
  echo "gpu-bundle: $*" >&2
  exit 1
}

[ -x "$cc" ] || die "no $cc: build Kinase first (cmake --build build)"
[ -f "$runtime" ] || die "no $runtime: build Kinase first (cmake --build build)"
[ -x "$cxx" ] || die "no clang++ of LLVM 22 at $cxx (set KINASE_CLANGXX)"
[ -f "$root/test/cuda/run-gpu.sh" ] || die "no test/cuda/run-gpu.sh"

# Start from an empty bundle, but never empty a directory this script did not
# make.
if [ -d "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
  [ -f "$out/$marker" ] || die "$out exists, is not empty and is not a bundle: give another outdir"
  rm -rf "$out"
fi
mkdir -p "$out/lib" || die "cannot create $out"
out=$(cd "$out" && pwd)
: >"$out/$marker"

# Build both -O levels of every test in parallel (xargs appends "src O2" to
# "out cc inc root cxx cuda"; inc holds cuda_check.h); each job leaves its
# compiler output in a log, removed when the build succeeds.
jobs=$(nproc 2>/dev/null || echo 4)
ls "$root"/test/cuda/*.cu >/dev/null 2>&1 || die "no test/cuda/*.cu"
for src in "$root"/test/cuda/*.cu "$root"/test/cuda/*.c; do
  [ -f "$src" ] || continue
  for o in O0 O2; do
    printf '%s %s\n' "$src" "$o"
  done
done | xargs -P "$jobs" -n 2 sh -c '
  out=$1 cc=$2 inc=$3 root=$4 cxx=$5 cuda=$6 src=$7 o=$8
  name=$(basename "${src%.*}")-$o
  # A test without a main (device code checked by FileCheck alone) has no
  # program to run.
  grep -Eq "(^|[^_[:alnum:]])main[[:space:]]*\(" "$src" || exit 0
  ptx=$(sed -n "s|^// GPU-PTX: ||p" "$src")
  if [ -n "$ptx" ] && ! "$cc" -$o --cuda-device-only -S "$(dirname "$src")/$ptx" \
      -o "$out/$name.ptx" >"$out/$name.build.log" 2>&1; then
    rm -f "$out/$name.ptx"
    exit 0
  fi
  if [ "${src%.c}" != "$src" ]; then
    set -- "$cc" -$o -I"$cuda/include" -I"$inc" "$src" -lcuda -lm
  elif grep -qx "// GPU-BUILD: clang++" "$src"; then
    set -- "$cxx" -$o -x cuda --cuda-path="$cuda" --cuda-gpu-arch=sm_90 \
      -Wno-unknown-cuda-version -I"$inc" -I"$root/runtime" "$src" \
      -x none "$root/build/lib/libkinase_rt.a" -L"$cuda/lib64" -L"$cuda/lib64/stubs" \
      -lcudart -lcuda -Wl,-rpath,"$cuda/lib64"
  else
    set -- "$cc" -$o -Wno-unknown-cuda-version -I"$inc" "$src"
  fi
  if "$@" -o "$out/$name" >>"$out/$name.build.log" 2>&1; then
    rm -f "$out/$name.build.log"
  else
    rm -f "$out/$name"
  fi
' sh "$out" "$cc" "$root/test/cuda/include" "$root" "$cxx" "$cuda"

failed=0
for log in "$out"/*.build.log; do
  [ -f "$log" ] || continue
  failed=$((failed + 1))
  echo "gpu-bundle: FAILED to build $(basename "$log" .build.log):" >&2
  sed 's/^/  /' "$log" | tail -n 20 >&2
done

cp "$root/test/cuda/run-gpu.sh" "$out/run-all.sh" && chmod +x "$out/run-all.sh" ||
  die "cannot copy run-gpu.sh"

# The CUDA runtime, as a fallback: run-all.sh uses it only when the machine
# has no libcudart.so.13 of its own. The driver (libcuda.so.1) must come from
# the machine.
cudart=$(readlink -f "$cuda/lib64/libcudart.so.13" 2>/dev/null)
if [ -n "$cudart" ] && [ -f "$cudart" ]; then
  cp "$cudart" "$out/lib/libcudart.so.13"
else
  echo "gpu-bundle: warning: no $cuda/lib64/libcudart.so.13 to bundle" >&2
fi

# What the executables need from the machine, for the record.
{
  echo "Kinase device bundle"
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(
    [ -n "$(git -C "$root" status --porcelain 2>/dev/null)" ] && echo ' (with local changes)')"
  echo "built: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(uname -n)"
  first=$(ls "$out"/*-O2 2>/dev/null | head -n 1)
  if [ -n "$first" ]; then
    echo "shared libraries needed (from $(basename "$first")):"
    if command -v readelf >/dev/null 2>&1; then
      readelf -d "$first" | sed -n 's/.*(\(NEEDED\|RUNPATH\|RPATH\))[^[]*\[\(.*\)\]/  \1 \2/p'
    else
      objdump -p "$first" | sed -n 's/^ *\(NEEDED\|RUNPATH\|RPATH\) *\(.*\)/  \1 \2/p'
    fi
    echo "newest glibc symbol version: $(objdump -T "$out"/*-O? 2>/dev/null |
      grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)"
  fi
  echo "executables:"
  for exe in "$out"/*-O0 "$out"/*-O2; do
    [ -f "$exe" ] && echo "  $(basename "$exe")"
  done
} >"$out/MANIFEST"

count=$(ls "$out"/*-O0 "$out"/*-O2 2>/dev/null | wc -l)
size=$(du -sh "$out" | cut -f1)
echo "gpu-bundle: $count executables in $out ($size), $failed failed to build"
echo "gpu-bundle: on the GPU machine run $out/run-all.sh"
[ "$failed" -eq 0 ]
