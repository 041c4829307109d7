#!/usr/bin/env bash
# check-deps.sh [--table FILE] [--packages FILE]
#
# Checks that every program, library, header and Python module the tests use
# (the table tools/test-deps.txt, or FILE) is there, and that the Debian
# package holding each is one tools/setup.sh installs: listed by
# `tools/setup.sh --list` (or, one a line, in FILE), Essential, or a direct
# dependency of the listed package the table names after `via`. Prints one
# line per problem, naming the thing and its package, and exits 1 if there
# is any. tools/run.sh test runs it before lit.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
table=$root/tools/test-deps.txt
packages_file=
while (($#)); do
  case $1 in
    --table) table=$2; shift 2 ;;
    --packages) packages_file=$2; shift 2 ;;
    *) echo "usage: tools/check-deps.sh [--table FILE] [--packages FILE]" >&2; exit 2 ;;
  esac
done

if [[ -n $packages_file ]]; then
  listed=$(<"$packages_file") || exit 2
else
  listed=$(bash "$root/tools/setup.sh" --list) || { echo "check-deps: tools/setup.sh --list failed"; exit 1; }
fi
is_listed() { grep -qxF -- "$1" <<<"$listed"; }

llvm_bindir=$(llvm-config-22 --bindir 2>/dev/null) || llvm_bindir=/usr/lib/llvm-22/bin
llvm_incdir=$(llvm-config-22 --includedir 2>/dev/null) || llvm_incdir=/usr/lib/llvm-22/include
cuda_root=${CUDA_ROOT:-/usr/local/cuda}
arch=$(uname -m)
have_dpkg=$(command -v dpkg >/dev/null && echo yes)

# interpreter SCRIPT: what runs LLVM's script SCRIPT, from its #! line
# ("#! /usr/bin/python3", or through env).
interpreter() {
  local words
  read -r -a words < <(head -1 "$llvm_bindir/$1" 2>/dev/null | sed 's/^#! *//')
  if [[ ${words[0]:-} == */env ]]; then command -v "${words[1]:-python3}"; else echo "${words[0]:-python3}"; fi
}

# find KIND NAME: prints where NAME is, or fails.
find_dep() {
  local kind=$1 name=$2 out
  case $kind in
    program) command -v "$name" ;;
    llvm) [[ -x $llvm_bindir/$name ]] && echo "$llvm_bindir/$name" ;;
    runtime)
      out=$(clang-22 -print-file-name="$name" 2>/dev/null) && [[ $out == /* && -e $out ]] && echo "$out" ;;
    header)
      out=$(clang-22 -x c -E -M -MT dep "-I$llvm_incdir" - <<<"#include <$name>" 2>/dev/null) &&
        sed -n '1s/^dep: *\([^ ]*\).*/\1/p' <<<"$out" ;;
    interpreter) interpreter "$name" ;;
    python) "$(interpreter lit)" -c "import $name; print($name.__file__)" 2>/dev/null ;;
    cuda) [[ -e $cuda_root/$name ]] && echo "$cuda_root/$name" ;;
    *) return 2 ;;
  esac
}

# owner PATH: the Debian package holding PATH (trying the path, its /usr-merged
# twin and where its links lead), or nothing.
owner() {
  local path=$1 twin try out
  case $path in
    /usr/bin/* | /usr/sbin/* | /usr/lib/*) twin=${path#/usr} ;;
    /bin/* | /sbin/* | /lib/*) twin=/usr$path ;;
  esac
  for try in "$path" ${twin:+"$twin"} "$(readlink -f "$path")"; do
    out=$(dpkg -S "$try" 2>/dev/null | grep -v '^diversion' | head -1) || continue
    [[ -n $out ]] || continue
    out=${out%%: /*}   # "pkg:arch, other: /path" -> first package, no arch
    out=${out%%,*}
    echo "${out%%:*}"
    return 0
  done
}

essential() { [[ $(dpkg-query -W -f='${Essential}' "$1" 2>/dev/null) == yes ]]; }

depends_on() { # PACKAGE DEP: DEP is among PACKAGE's Depends or Pre-Depends
  dpkg-query -W -f='${Depends}, ${Pre-Depends}' "$1" 2>/dev/null |
    tr ',|' '\n\n' | sed 's/(.*)//; s/:any//; s/ //g' | grep -qxF -- "$2"
}

problems=0 checked=0 foreign=()
problem() { echo "check-deps: FAIL: $*"; problems=$((problems + 1)); }

# what the setup list says of PACKAGE, for a message
in_list() {
  if is_listed "$1"; then echo "which tools/setup.sh lists: run tools/setup.sh"
  else echo "which tools/setup.sh does not list: add it to the packages there"; fi
}

# where KIND NAME: where find_dep looked, for a message
where() {
  case $1 in
    program) echo "on PATH" ;;
    llvm) echo "in $llvm_bindir" ;;
    runtime) echo "with clang-22 -print-file-name" ;;
    header) echo "as #include <$2> with clang-22" ;;
    interpreter) echo "on the #! line of $llvm_bindir/$2" ;;
    python) echo "as a module of $(interpreter lit), lit's Python" ;;
    cuda) echo "in $cuda_root" ;;
  esac
}

# check_row KIND NAME PACKAGE VIA
check_row() {
  local kind=$1 name=${2//\{arch\}/$arch} package=$3 via=$4 path pkg label
  checked=$((checked + 1))
  [[ $kind == interpreter ]] && label="the interpreter of $name" || label=$name
  if ! path=$(find_dep "$kind" "$name") || [[ -z $path ]]; then
    local missing="$label is missing (looked for $(where "$kind" "$name"))"
    if [[ $kind == cuda ]]; then
      problem "$missing: part of the CUDA toolkit, not a Debian package"
    elif [[ -n $via ]]; then
      problem "$missing: it comes from the Debian package $package, a dependency of $via, $(in_list "$via")"
    else
      problem "$missing: it comes from the Debian package $package, $(in_list "$package")"
    fi
    return
  fi
  [[ -n $have_dpkg && $kind != cuda ]] || return 0
  pkg=$(owner "$path")
  if [[ -z $pkg ]]; then
    foreign+=("$label: $path")
  elif is_listed "$pkg" || essential "$pkg"; then
    :
  elif [[ -n $via ]] && is_listed "$via" && depends_on "$via" "$pkg"; then
    :
  elif [[ -n $via ]] && is_listed "$via"; then
    problem "$label ($path) belongs to the Debian package $pkg, which tools/setup.sh does not list and $via does not depend on: add $pkg to the packages there"
  elif [[ -n $via ]]; then
    problem "$label ($path) belongs to the Debian package $pkg, which comes with $via, but tools/setup.sh lists neither: add $via to the packages there"
  else
    problem "$label ($path) belongs to the Debian package $pkg, $(in_list "$pkg")"
  fi
}

[[ -r $table ]] || { echo "check-deps: cannot read $table"; exit 2; }
cuda=yes
if [[ ! -x $cuda_root/bin/ptxas ]]; then
  cuda=
  echo "check-deps: note: no CUDA toolkit at $cuda_root (bin/ptxas missing): the CUDA tests will be" \
    "unsupported. Every machine of this project is expected to have it there (CUDA_ROOT=DIR" \
    "elsewhere, with cmake -DCUDA_ROOT=DIR)."
fi
[[ -n $have_dpkg ]] || echo "check-deps: note: no dpkg: only checking that each dependency is there"

while read -r kind name package rest; do
  [[ -z $kind || $kind == \#* ]] && continue
  [[ $kind == cuda && -z $cuda ]] && continue
  rest=${rest%%#*}
  read -r -a more <<<"$rest"
  via=
  [[ ${more[0]:-} == via ]] && via=${more[1]:-}
  check_row "$kind" "$name" "$package" "$via"
done <"$table"

for f in "${foreign[@]}"; do
  echo "check-deps: note: not from a Debian package, only checked to be there: $f"
done
echo "check-deps: $checked checked, $problems problem(s)"
((problems == 0))
