# lit configuration of the Kinase tests. The paths come from lit.site.cfg.py,
# which CMake writes into build/test; run `lit build/test` (tools/run.sh test).
#
# Substitutions:
#   %plugin        build/lib/Kinase.so
#   %opt           opt -load-pass-plugin=%plugin          (add -passes=kinase)
#   %kinase-cc     build/bin/kinase-cc
#   %kinase-cxx    build/bin/kinase-c++ (the C++ driver, a link to kinase-cc)
#   %clang-plugin  clang -fpass-plugin=%plugin -I<repo>/include
#   %clang         clang (LLVM 22)
#   %clangxx       clang++ (LLVM 22)
#   %cmake         the cmake that configured this build
#   %kinase-build  the build tree (cmake --install %kinase-build --prefix ...)
#   %ptxas         <cuda>/bin/ptxas                        (feature: cuda)
#   %cuda-root     the CUDA toolkit, for clang --cuda-path=
#   %cuda-host-run runs a linked CUDA program without a GPU driver: its
#                  libcuda.so.1 is the toolkit's link stub, every CUDA call
#                  fails, the host code runs               (feature: cuda)
#   %check-c       test/tools/check-c: `// RUN: %check-c %s %t [flags]` builds a
#                  self-checking C program four ways and runs each
#   %testinc       -I<repo>/test/c/include                 (check.h)
#   %cudainc       -I<repo>/test/cuda/include              (cuda_check.h)
#   %runtimeinc    -I<repo>/runtime                        (kinase_cuda.h)
#   %kinase-rt     build/lib/libkinase_rt.a                (the runtime archive)
#   %runtime-build build/runtime                           (its objects, accumulate.ptx)
#   %cuda-link     -L<cuda>/lib64 -L<cuda>/lib64/stubs -lcudart -lcuda
#   %fuzz-numeric  python3 tools/fuzz-numeric.py           (random programs, derivatives checked)
#   %check-deps    tools/check-deps.sh                     (what the tests use is installed)
#   %setup-sh      tools/setup.sh                          (--list: its packages)
import os

import lit.formats
import lit.util

config.name = "Kinase"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll", ".c", ".cpp", ".cu", ".test"]
config.excludes = ["include", "tools", "Inputs", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kinase_obj_root, "test")

bin_dir = config.llvm_bin_dir
clang = os.path.join(bin_dir, "clang")
opt = os.path.join(bin_dir, "opt")
include_dir = os.path.join(config.kinase_src_root, "include")
test_include_dir = os.path.join(config.test_source_root, "c", "include")
cuda_include_dir = os.path.join(config.test_source_root, "cuda", "include")
check_c = os.path.join(config.test_source_root, "tools", "check-c")
ptxas = os.path.join(config.cuda_root, "bin", "ptxas")

# FileCheck, not, count from LLVM 22 come first.
config.environment["PATH"] = os.pathsep.join(
    [bin_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
for name in ["HOME", "TMPDIR", "TMP", "TEMP"]:
    if name in os.environ:
        config.environment[name] = os.environ[name]
# KINASE_PRINT, KINASE_LIST and friends reach the plugin.
for name, value in os.environ.items():
    if name.startswith("KINASE_"):
        config.environment[name] = value
# What test/tools/check-c needs (set after the pass-through: these win).
config.environment.update({
    "KINASE_PLUGIN": config.kinase_plugin,
    "KINASE_CC": config.kinase_cc,
    "KINASE_CLANG": clang,
    "KINASE_OPT": opt,
    "KINASE_INCLUDE": include_dir,
    "KINASE_TESTINC": test_include_dir,
})

# Longest names first: lit replaces them in this order.
config.substitutions += [
    ("%clang-plugin", "%s -fpass-plugin=%s -I%s" % (clang, config.kinase_plugin, include_dir)),
    ("%kinase-cc", config.kinase_cc),
    ("%kinase-cxx", os.path.join(os.path.dirname(config.kinase_cc), "kinase-c++")),
    ("%kinase-build", config.kinase_obj_root),
    ("%kinase-rt", os.path.join(config.kinase_rt_dir, "libkinase_rt.a")),
    ("%kinase-opt", os.path.join(config.kinase_obj_root, "bin", "kinase-opt")),
    ("%fuzz-structural", os.path.join(config.kinase_src_root, "tools", "fuzz-structural.sh")),
    ("%fuzz-numeric", "python3 " + os.path.join(config.kinase_src_root, "tools", "fuzz-numeric.py")),
    ("%check-deps", os.path.join(config.kinase_src_root, "tools", "check-deps.sh")),
    ("%setup-sh", os.path.join(config.kinase_src_root, "tools", "setup.sh")),
    ("%sanitize-corpus", os.path.join(config.kinase_src_root, "tools", "sanitize-corpus.sh")),
    ("%cuda-root", config.cuda_root),
    ("%cuda-link", "-L{0}/lib64 -L{0}/lib64/stubs -lcudart -lcuda".format(config.cuda_root)),
    ("%check-c", check_c),
    ("%testinc", "-I" + test_include_dir),
    ("%cudainc", "-I" + cuda_include_dir),
    ("%runtimeinc", "-I" + os.path.join(config.kinase_src_root, "runtime")),
    ("%runtime-build", os.path.join(config.kinase_obj_root, "runtime")),
    ("%plugin", config.kinase_plugin),
    ("%ptxas", ptxas),
    ("%clangxx", clang + "++"),
    ("%clang", clang),
    ("%cmake", config.cmake),
    ("%opt", "%s -load-pass-plugin=%s" % (opt, config.kinase_plugin)),
]

# A hung test fails after KINASE_TEST_TIMEOUT seconds (default 300). lit needs
# psutil for this (tools/setup.sh installs python3-psutil).
try:
    import psutil  # noqa: F401

    lit_config.maxIndividualTestTime = int(os.environ.get("KINASE_TEST_TIMEOUT", "300"))
except ImportError:
    lit_config.note("python3-psutil is missing: no per-test timeout")


def cuda_stub_dir():
    """A directory holding libcuda.so.1, the toolkit's stub of the driver."""
    for lib in ["lib64", os.path.join("targets", "x86_64-linux", "lib")]:
        stub = os.path.join(config.cuda_root, lib, "stubs", "libcuda.so")
        if os.path.isfile(stub):
            linked = os.path.join(config.test_exec_root, "cuda-stub")
            os.makedirs(linked, exist_ok=True)
            link = os.path.join(linked, "libcuda.so.1")
            if not os.path.lexists(link) or os.readlink(link) != stub:
                tmp = "%s.%d" % (link, os.getpid())
                os.symlink(stub, tmp)
                os.replace(tmp, link)  # atomic: lit runs may share the build
            return linked
    return None


if os.access(ptxas, os.X_OK):
    config.available_features.add("cuda")
    stub_dir = cuda_stub_dir()
    if stub_dir:
        config.substitutions.append(("%cuda-host-run", "env LD_LIBRARY_PATH=" + stub_dir))
