/* kinase-cc: clang with Kinase, a drop-in compiler for C, C++ and CUDA.
 *
 * It runs clang (clang++ for C++ and CUDA inputs) with every argument it
 * was given, in order, and adds:
 *   - the Kinase plugin, found beside this executable (../lib/Kinase.so):
 *     -fpass-plugin runs the pass, -fplugin loads it early so that
 *     -mllvm -kinase-* options parse;
 *   - the directory of kinase.h (-I): ../include once installed, the
 *     source tree's include/ when run from the build tree;
 *   - Enzyme's attributes enzyme_inactive and enzyme_inactive_noblock, as
 *     macros turning them into annotations (-D);
 *   - for CUDA inputs: the toolkit (--cuda-path), a default GPU (sm_90);
 *   - when linking: the Kinase runtime and, for CUDA, cudart and the driver.
 * Its exit status is clang's: it execs clang, no shell in between.
 */
#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Set by tools/CMakeLists.txt. */
#if !defined(KINASE_VERSION) || !defined(KINASE_CLANG_BINDIR) || \
    !defined(KINASE_INCLUDE_DIR) || !defined(KINASE_CUDA_ROOT)
#error "build kinase-cc with CMake: it defines the Kinase and LLVM paths"
#endif

#define DEFAULT_GPU_ARCH "sm_90"

/* ---- small helpers ---- */

static _Noreturn void fail(const char *fmt, const char *arg) {
  fprintf(stderr, "kinase-cc: error: ");
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  exit(1);
}

static char *concat(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  char *s = malloc(na + nb + 1);
  if (!s)
    fail("%s", "out of memory");
  memcpy(s, a, na);
  memcpy(s + na, b, nb + 1);
  return s;
}

static bool starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t ns = strlen(s), nx = strlen(suffix);
  return ns >= nx && strcmp(s + ns - nx, suffix) == 0;
}

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---- the command line being built ---- */

typedef struct {
  const char **args;
  int count, capacity;
} Command;

static void add(Command *cmd, const char *arg) {
  if (cmd->count + 2 > cmd->capacity) {
    cmd->capacity = cmd->capacity ? 2 * cmd->capacity : 64;
    cmd->args = realloc(cmd->args, (size_t)cmd->capacity * sizeof *cmd->args);
    if (!cmd->args)
      fail("%s", "out of memory");
  }
  cmd->args[cmd->count++] = arg;
  cmd->args[cmd->count] = NULL;
}

/* ---- what the user asked for ---- */

typedef struct {
  bool cxx;       /* a C++ or CUDA input: run clang++ */
  bool cuda;      /* a CUDA input */
  bool has_input; /* at least one input file (or an object, or stdin) */
  bool no_link;   /* -c, -S, -E, ...: clang stops before linking */
  bool gpu_arch;  /* the user chose the GPU */
  const char *cuda_path; /* the user's --cuda-path=, or NULL */
  bool version, help;
} Request;

/* Options whose value is the next argument ("-o file"). */
static bool takes_value(const char *opt) {
  static const char *const options[] = {
      "-o", "-x", "-I", "-D", "-U", "-L", "-l", "-F", "-T", "-u", "-z", "-e",
      "-include", "-imacros", "-isystem", "-iquote", "-idirafter", "-isysroot",
      "-iprefix", "-iwithprefix", "-iwithprefixbefore", "-ivfsoverlay", "-MF", "-MT",
      "-MQ", "-MJ", "-Xclang", "-Xlinker", "-Xassembler", "-Xpreprocessor",
      "-Xcuda-ptxas", "-Xcuda-fatbinary", "-Xoffload-linker", "-Xarch_host",
      "-Xarch_device", "-mllvm", "-target", "-arch", "-framework", "--param",
      "-serialize-diagnostics", "-dependency-file", "-working-directory", NULL};
  for (int i = 0; options[i]; i++)
    if (strcmp(opt, options[i]) == 0)
      return true;
  return false;
}

/* Options after which clang produces no executable. */
static bool stops_before_link(const char *opt) {
  static const char *const options[] = {
      "-c", "-S", "-E", "-M", "-MM", "-fsyntax-only", "-emit-llvm", "-emit-ast",
      "--precompile", "--cuda-device-only", "--offload-device-only", NULL};
  for (int i = 0; options[i]; i++)
    if (strcmp(opt, options[i]) == 0)
      return true;
  return false;
}

static void note_language(Request *req, const char *language) {
  if (strcmp(language, "cuda") == 0)
    req->cuda = req->cxx = true;
  else if (starts_with(language, "c++"))
    req->cxx = true;
}

static void note_input(Request *req, const char *file) {
  static const char *const cxx_suffixes[] = {".cpp", ".cc", ".cxx", ".c++", ".C", NULL};
  req->has_input = true;
  if (ends_with(file, ".cu")) {
    req->cuda = req->cxx = true;
    return;
  }
  for (int i = 0; cxx_suffixes[i]; i++)
    if (ends_with(file, cxx_suffixes[i]))
      req->cxx = true;
}

static void note_option(Request *req, const char *opt) {
  if (stops_before_link(opt))
    req->no_link = true;
  else if (strcmp(opt, "--version") == 0)
    req->version = true;
  else if (strcmp(opt, "--help") == 0)
    req->help = true;
  else if (starts_with(opt, "-x") && opt[2])
    note_language(req, opt + 2);
  else if (starts_with(opt, "--cuda-path="))
    req->cuda_path = opt + strlen("--cuda-path=");
  else if (starts_with(opt, "--cuda-gpu-arch") || starts_with(opt, "--offload-arch"))
    req->gpu_arch = true;
}

static Request read_request(int argc, char **argv) {
  Request req = {0};
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (arg[0] != '-' || strcmp(arg, "-") == 0) {
      note_input(&req, arg);
    } else if (takes_value(arg) && i + 1 < argc) {
      if (strcmp(arg, "-x") == 0)
        note_language(&req, argv[i + 1]);
      i++;
    } else {
      note_option(&req, arg);
    }
  }
  return req;
}

/* ---- where things are ---- */

/* The directory above the one holding this executable (the build tree or
 * the installation prefix, wherever it was copied): its lib/ holds the
 * plugin and the runtime in both. */
static char *install_prefix(void) {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n < 0)
    fail("%s", "cannot find the kinase-cc executable (/proc/self/exe)");
  path[n] = '\0';
  for (int up = 0; up < 2; up++) {
    char *slash = strrchr(path, '/');
    if (!slash)
      fail("%s", "cannot find the kinase-cc executable (/proc/self/exe)");
    *slash = '\0';
  }
  return concat(path, "");
}

/* PREFIX/include once installed; the build tree has no include/ of its own,
 * and takes kinase.h from the source tree (KINASE_INCLUDE_DIR). */
static const char *include_dir(const char *prefix) {
  char *installed = concat(prefix, "/include");
  if (is_file(concat(installed, "/kinase.h")))
    return installed;
  if (!is_file(KINASE_INCLUDE_DIR "/kinase.h"))
    fail("kinase.h is missing from %s (and from the source tree of this build)", installed);
  return KINASE_INCLUDE_DIR;
}

static const char *cuda_root(const Request *req) {
  if (req->cuda_path)
    return req->cuda_path;
  const char *env = getenv("KINASE_CUDA_PATH");
  return env && *env ? env : KINASE_CUDA_ROOT;
}

static const char *cuda_library_dir(const char *root) {
  const char *const candidates[] = {"/lib64", "/targets/x86_64-linux/lib", "/lib"};
  for (int i = 0; i < 3; i++) {
    char *dir = concat(root, candidates[i]);
    if (is_file(concat(dir, "/libcudart.so")))
      return dir;
  }
  fail("no libcudart.so under the CUDA toolkit at %s", root);
}

static void require_cuda(const char *root) {
  if (!is_file(concat(root, "/include/cuda_runtime.h")))
    fail("CUDA input, but no CUDA toolkit at %s (set KINASE_CUDA_PATH or pass "
         "--cuda-path=DIR)",
         root);
}

/* ---- the clang command ---- */

static void add_kinase(Command *cmd, const char *prefix) {
  char *plugin = concat(prefix, "/lib/Kinase.so");
  if (!is_file(plugin))
    fail("the Kinase plugin is missing: %s (build the Kinase target)", plugin);
  add(cmd, "-Wno-unused-command-line-argument");
  add(cmd, concat("-fplugin=", plugin));
  add(cmd, concat("-fpass-plugin=", plugin));
  add(cmd, concat("-I", include_dir(prefix)));
  /* Enzyme's attributes, unknown to clang, become annotations the pass reads
   * (the same macros as in kinase.h). */
  static const char *const enzyme_attributes[] = {
      "-Denzyme_inactive=annotate(\"enzyme_inactive\")",
      "-Denzyme_inactive_noblock=annotate(\"enzyme_inactive_noblock\")",
      "-Denzyme_function_like(name)=annotate(\"enzyme_function_like\", name)",
      "-Denzyme_nofree=annotate(\"enzyme_nofree\")",
      "-Denzyme_shouldrecompute=annotate(\"enzyme_shouldrecompute\")",
      "-Denzyme_elementwise_read=annotate(\"enzyme_elementwise_read\")",
      "-Denzyme_sparse_accumulate=annotate(\"enzyme_sparse_accumulate\")",
  };
  for (size_t i = 0; i < sizeof enzyme_attributes / sizeof *enzyme_attributes; i++)
    add(cmd, enzyme_attributes[i]);
}

static void add_cuda_compile(Command *cmd, const Request *req, const char *root) {
  if (!req->cuda_path)
    add(cmd, concat("--cuda-path=", root));
  if (!req->gpu_arch)
    add(cmd, "--cuda-gpu-arch=" DEFAULT_GPU_ARCH);
  add(cmd, "-Wno-unknown-cuda-version");
}

static void add_runtime(Command *cmd, const char *prefix) {
  char *runtime = concat(prefix, "/lib/libkinase_rt.a");
  if (!is_file(runtime))
    fail("the Kinase runtime is missing: %s (build the kinase_rt target)", runtime);
  add(cmd, runtime);
}

/* cudart and the driver; a toolkit without a driver (a build machine) has
 * libcuda.so only among its link stubs, whose soname is the real driver's. */
static void add_cuda_link(Command *cmd, const char *root) {
  const char *libdir = cuda_library_dir(root);
  char *stubs = concat(libdir, "/stubs");
  add(cmd, concat("-L", libdir));
  if (is_dir(stubs))
    add(cmd, concat("-L", stubs));
  add(cmd, "-lcudart");
  add(cmd, "-lcuda");
  add(cmd, concat("-Wl,-rpath,", libdir));
}

static const char *clang_path(const Request *req) {
  return req->cxx ? KINASE_CLANG_BINDIR "/clang++" : KINASE_CLANG_BINDIR "/clang";
}

static Command build_command(int argc, char **argv, const Request *req) {
  Command cmd = {0};
  const char *prefix = install_prefix();
  const char *root = cuda_root(req);
  bool links = req->has_input && !req->no_link;

  add(&cmd, clang_path(req));
  add_kinase(&cmd, prefix);
  if (req->cuda) {
    require_cuda(root);
    add_cuda_compile(&cmd, req, root);
  }
  for (int i = 1; i < argc; i++)
    add(&cmd, argv[i]);
  if (links)
    add_runtime(&cmd, prefix);
  if (links && req->cuda)
    add_cuda_link(&cmd, root);
  return cmd;
}

static _Noreturn void run(const Command *cmd) {
  fflush(stdout);
  execv(cmd->args[0], (char *const *)cmd->args);
  perror(cmd->args[0]);
  exit(127);
}

/* ---- --version and --help ---- */

static _Noreturn void print_version(const Request *req) {
  printf("kinase-cc (Kinase) %s\n", KINASE_VERSION);
  Command cmd = {0};
  add(&cmd, clang_path(req));
  add(&cmd, "--version");
  run(&cmd);
}

static void print_help(void) {
  printf("usage: kinase-cc [clang options] file...\n"
         "\n"
         "Compiles C, C++ and CUDA like clang, with Kinase differentiating the calls\n"
         "of __enzyme_autodiff and __enzyme_fwddiff (declared in kinase.h).\n"
         "\n"
         "Kinase options:\n"
         "  -mllvm -kinase-print  print the IR of every derivative generated\n"
         "  -mllvm -kinase-list   list the functions differentiated\n"
         "  KINASE_PRINT=1, KINASE_LIST=1 in the environment do the same\n"
         "  KINASE_CUDA_PATH=DIR  the CUDA toolkit (default %s)\n"
         "\n"
         "CUDA inputs (.cu, -x cuda) get --cuda-path, --cuda-gpu-arch=%s unless\n"
         "given, and, when linking, cudart and the CUDA driver.\n"
         "\n"
         "All clang options are accepted and passed on in order; see clang --help.\n",
         KINASE_CUDA_ROOT, DEFAULT_GPU_ARCH);
}

int main(int argc, char **argv) {
  Request req = read_request(argc, argv);
  if (req.help) {
    print_help();
    return 0;
  }
  if (req.version)
    print_version(&req);
  Command cmd = build_command(argc, argv, &req);
  run(&cmd);
}
