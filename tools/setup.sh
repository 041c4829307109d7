#!/usr/bin/env bash
# Installs what Kinase needs on Debian 12 (bookworm), and nothing when it is
# all there already. Safe to run again and again; non-interactive.
#   tools/setup.sh          install what is missing
#   tools/setup.sh --list   print the package list, one a line, and stop
#                           (tools/check-deps.sh reads it)
set -euo pipefail

packages=(
  clang-22 llvm-22-dev llvm-22-tools lld-22   # compiler, LLVM C API, FileCheck/lit, linker
  llvm-22                                     # opt, llvm-config, llvm-stress
  clang-tools-22                              # clang-linker-wrapper (CUDA links)
  libclang-rt-22-dev                          # sanitizer runtimes (robustness tests)
  cmake ninja-build                           # build
  libstb-dev                                  # stb_ds.h (hash maps, arrays)
  python3 python3-psutil                      # lit, and its per-test timeout
  time                                        # bench/cuda-compile-time.sh (CPU seconds)
  libeigen3-dev                               # Eigen, for the C++ tests (test/cpp)
)

if [[ ${1:-} == --list ]]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=()
  if ((EUID != 0)); then
    command -v sudo >/dev/null || { echo "setup: not root and no sudo: install them by hand" >&2; exit 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get -q update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get -q install -y --no-install-recommends "${missing[@]}"
fi

cuda_root=${CUDA_ROOT:-/usr/local/cuda}
if [[ ! -x $cuda_root/bin/ptxas ]]; then
  echo "setup: note: no CUDA toolkit at $cuda_root (ptxas missing): the CUDA tests will be unsupported"
fi
