/* kinase-cc: clang with Kinase, a drop-in compiler for C, C++ and CUDA.
 * kinase-c++ (a link to it; any name ending in ++): the same as clang++.
 *
 * It runs clang (clang++ for C++ and CUDA) with every argument it was given,
 * in order, and adds:
 *   - the Kinase plugin, found beside this executable (../lib/Kinase.so):
 *     -fpass-plugin runs the pass, -fplugin loads it early so that
 *     -mllvm -kinase-* options parse;
 *   - the directory of kinase.h (-I): ../include once installed, the
 *     source tree's include/ when run from the build tree;
 *   - Enzyme's attributes enzyme_inactive and enzyme_inactive_noblock, as
 *     macros turning them into annotations (-D);
 *   - the CUDA toolkit's headers, searched last (-idirafter), so that C
 *     programs of the driver API find cuda.h, and CCCL's (include/cccl:
 *     cuda/std, cub, thrust), as nvcc does;
 *   - for CUDA sources: the toolkit (--cuda-path) and a default GPU (sm_90)
 *     unless --cuda-gpu-arch or --offload-arch names one or more;
 *   - when linking: -x none, so that no -x of the user's applies to what the
 *     driver adds after it, then the Kinase runtime and, for a CUDA link,
 *     cudart and the CUDA driver.
 *
 * To choose between clang and clang++ and what to add, it reads the command
 * line: the inputs, their language (the -x in effect, else the suffix) and
 * the options that stop before linking (-c, -S, -E, -M, ...). It reads @file
 * response files as clang does (white space separates arguments, quotes
 * group, a backslash escapes the next character, a nested @file is relative
 * to the working directory, one that cannot be read is a plain argument) but
 * passes them on unexpanded, for clang to expand again.
 *
 * C sources stay C when kinase-cc runs clang++: a .c file named on the
 * command line with no -x in effect is passed as -x c FILE -x none. (clang++
 * would compile it as C++; one named inside a response file still is.)
 *
 * Run as kinase-c++, it is the C++ driver, as clang++ is to clang: it always
 * runs clang++, which links the C++ standard library, and passes .c files on
 * as they are, for clang++ to compile as C++ (as g++ and clang++ do).
 *
 * A link is a CUDA link when it compiles a CUDA source, or when an object or
 * archive named on the command line (.o, .a) holds CUDA code: the driver
 * reads them for the registration of a fat binary (whole-program device code,
 * from clang or nvcc) and for an offloading section (relocatable device code,
 * clang -fgpu-rdc). A CUDA link runs clang++ (the host code is C++) and adds
 * the toolkit, cudart, the CUDA driver library and their run path and, for
 * relocatable device code, --offload-link, without which clang would link the
 * host code and silently drop the device code. Libraries named with -l are
 * not read, but a link naming -lcuda or -lcudart (a C program of the CUDA
 * driver API) gets cudart, the driver and their run path too, since the
 * Kinase runtime it links calls both; it stays a C link. A link with no
 * CUDA in it gets nothing of this.
 *
 * Its exit status is clang's: it execs clang, no shell in between.
 */
#define _GNU_SOURCE /* memmem */

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Set by tools/CMakeLists.txt. */
#if !defined(KINASE_VERSION) || !defined(KINASE_CLANG_BINDIR) || \
    !defined(KINASE_INCLUDE_DIR) || !defined(KINASE_CUDA_ROOT)
#error "build kinase-cc with CMake: it defines the Kinase and LLVM paths"
#endif

#define DEFAULT_GPU_ARCH "sm_90"

/* Deeper nesting of @file is a cycle: the driver stops reading there and
 * leaves clang to report it. */
#define MAX_RESPONSE_FILE_DEPTH 32

#define COUNT(array) (sizeof(array) / sizeof(array)[0])

/* ---- small helpers ---- */

/* What the driver was run as: "kinase-cc", or "kinase-c++" as the C++ driver. */
static const char *driver_name = "kinase-cc";
static bool cxx_driver;

static _Noreturn void fail(const char *fmt, const char *arg) {
  fprintf(stderr, "%s: error: ", driver_name);
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  exit(1);
}

static void *reallocate(void *p, size_t size) {
  p = realloc(p, size);
  if (!p)
    fail("%s", "out of memory");
  return p;
}

static char *concat(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  char *s = reallocate(NULL, na + nb + 1);
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

static bool in_list(const char *s, const char *const *list, size_t count) {
  for (size_t i = 0; i < count; i++)
    if (strcmp(s, list[i]) == 0)
      return true;
  return false;
}

/* The whole file as a string, or NULL if it cannot be read. */
static char *read_text_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t size = 0, capacity = 4096;
  char *text = reallocate(NULL, capacity);
  size_t n;
  while ((n = fread(text + size, 1, capacity - size - 1, f)) > 0) {
    size += n;
    if (capacity - size == 1) {
      capacity *= 2;
      text = reallocate(text, capacity);
    }
  }
  bool ok = !ferror(f);
  fclose(f);
  if (!ok) {
    free(text);
    return NULL;
  }
  text[size] = '\0';
  return text;
}

/* ---- argument lists (the clang command, the object inputs) ---- */

typedef struct {
  const char **args; /* NULL-terminated, for execv */
  int count, capacity;
} ArgList;

static void add(ArgList *list, const char *arg) {
  if (list->count + 2 > list->capacity) {
    list->capacity = list->capacity ? 2 * list->capacity : 64;
    list->args = reallocate(list->args, (size_t)list->capacity * sizeof *list->args);
  }
  list->args[list->count++] = arg;
  list->args[list->count] = NULL;
}

/* ---- languages ---- */

typedef enum {
  BY_SUFFIX, /* no -x in effect (or -x none) */
  LANG_C,
  LANG_CXX,
  LANG_CUDA,
  LANG_OBJECT, /* an object file or archive, read for CUDA code */
  LANG_OTHER,  /* assembly, IR, a shared library, ...: passed on */
} Language;

typedef struct {
  const char *name;
  Language language;
} NamedLanguage;

/* The values of -x, by prefix; the first match wins (c++-header is C++,
 * cuda-cpp-output CUDA, c-header C). */
static const NamedLanguage x_languages[] = {
    {"none", BY_SUFFIX},
    {"cuda", LANG_CUDA},
    {"c++", LANG_CXX},
    {"objective-c++", LANG_CXX},
    {"c", LANG_C},
};

/* What an input is, by its suffix, when no -x is in effect. */
static const NamedLanguage suffix_languages[] = {
    {".cu", LANG_CUDA}, {".cpp", LANG_CXX}, {".cc", LANG_CXX},  {".cxx", LANG_CXX},
    {".c++", LANG_CXX}, {".C", LANG_CXX},   {".c", LANG_C},     {".o", LANG_OBJECT},
    {".a", LANG_OBJECT},
};

static Language language_named(const char *x_value) {
  for (size_t i = 0; i < COUNT(x_languages); i++)
    if (starts_with(x_value, x_languages[i].name))
      return x_languages[i].language;
  return LANG_OTHER;
}

static Language language_of_file(const char *file) {
  for (size_t i = 0; i < COUNT(suffix_languages); i++)
    if (ends_with(file, suffix_languages[i].name))
      return suffix_languages[i].language;
  return LANG_OTHER;
}

/* ---- what the user asked for ---- */

typedef struct {
  bool cxx_source;       /* a C++ source */
  bool cuda_source;      /* a CUDA source */
  bool has_input;        /* at least one input file (or an object, or stdin) */
  bool no_link;          /* -c, -S, -E, ...: clang stops before linking */
  bool gpu_arch;         /* the user chose the GPU */
  const char *cuda_path; /* the user's --cuda-path=, or NULL */
  bool version, help;
  bool debug_chosen;     /* the user gave a -g option (-g, -g0, -gline-tables-only, ...) */
  ArgList objects;       /* the object and archive inputs */
  bool cuda_object;      /* one of them holds CUDA code (read when linking) */
  bool rdc_object;       /* one of them holds relocatable device code */
  bool cuda_library;     /* -lcuda or -lcudart: a driver-API program in C, say */
  bool *c_source;        /* c_source[i]: argv[i] is a C source known by its suffix */
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
      "-serialize-diagnostics", "-dependency-file", "-working-directory"};
  return in_list(opt, options, COUNT(options));
}

/* Options after which clang produces no executable. */
static bool stops_before_link(const char *opt) {
  static const char *const options[] = {
      "-c", "-S", "-E", "-M", "-MM", "-fsyntax-only", "-emit-llvm", "-emit-ast",
      "--precompile", "--cuda-device-only", "--offload-device-only"};
  return in_list(opt, options, COUNT(options));
}

/* Reads the arguments one by one, response files expanded. */
typedef struct {
  Request *req;
  const char *option;  /* the option whose value comes next, or NULL */
  Language x_language; /* the -x in effect */
} Reader;

static void note_input(Reader *r, const char *file, int argv_index) {
  Request *req = r->req;
  Language language = r->x_language == BY_SUFFIX ? language_of_file(file) : r->x_language;
  req->has_input = true;
  switch (language) {
  case LANG_CUDA:
    req->cuda_source = true;
    break;
  case LANG_CXX:
    req->cxx_source = true;
    break;
  case LANG_C:
    /* Only an argument of the driver's own command line can be given its
     * -x c (a response file is passed on as it is). */
    if (r->x_language == BY_SUFFIX && argv_index > 0)
      req->c_source[argv_index] = true;
    break;
  case LANG_OBJECT:
    add(&req->objects, file);
    break;
  default:
    break;
  }
}

static void note_option(Reader *r, const char *opt) {
  Request *req = r->req;
  if (stops_before_link(opt))
    req->no_link = true;
  else if (strcmp(opt, "--version") == 0)
    req->version = true;
  else if (strcmp(opt, "--help") == 0)
    req->help = true;
  else if (starts_with(opt, "-x") && opt[2])
    r->x_language = language_named(opt + 2);
  else if (starts_with(opt, "-g"))
    req->debug_chosen = true;
  else if (starts_with(opt, "--cuda-path="))
    req->cuda_path = opt + strlen("--cuda-path=");
  else if (starts_with(opt, "--cuda-gpu-arch") || starts_with(opt, "--offload-arch"))
    req->gpu_arch = true;
  else if (strcmp(opt, "-lcuda") == 0 || strcmp(opt, "-lcudart") == 0)
    req->cuda_library = true;
}

/* argv_index: where the argument is in argv, or 0 if a response file holds it. */
static void read_argument(Reader *r, const char *arg, int argv_index) {
  if (r->option) {
    if (strcmp(r->option, "-x") == 0)
      r->x_language = language_named(arg);
    if (strcmp(r->option, "-l") == 0 && (strcmp(arg, "cuda") == 0 || strcmp(arg, "cudart") == 0))
      r->req->cuda_library = true;
    r->option = NULL;
  } else if (arg[0] != '-' || strcmp(arg, "-") == 0) {
    note_input(r, arg, argv_index);
  } else if (takes_value(arg)) {
    r->option = arg;
  } else {
    note_option(r, arg);
  }
}

/* The next argument in a response file, from *text on (which it advances),
 * or NULL at the end. */
static char *next_response_argument(const char **text) {
  const char *p = *text;
  while (isspace((unsigned char)*p))
    p++;
  if (!*p) {
    *text = p;
    return NULL;
  }
  char *arg = reallocate(NULL, strlen(p) + 1), *out = arg;
  char quote = 0;
  for (; *p && (quote || !isspace((unsigned char)*p)); p++) {
    if (*p == '\\' && p[1])
      *out++ = *++p;
    else if (quote && *p == quote)
      quote = 0;
    else if (!quote && (*p == '"' || *p == '\''))
      quote = *p;
    else
      *out++ = *p;
  }
  *out = '\0';
  *text = p;
  return arg;
}

/* Reads the argument or, for a readable @file, the arguments it holds. */
static void read_expanded(Reader *r, const char *arg, int argv_index, int depth) {
  char *text = NULL;
  if (arg[0] == '@' && depth < MAX_RESPONSE_FILE_DEPTH)
    text = read_text_file(arg + 1);
  if (!text) {
    read_argument(r, arg, argv_index);
    return;
  }
  const char *cursor = text;
  char *inner;
  while ((inner = next_response_argument(&cursor)))
    if (*inner) /* "" is no argument for clang either */
      read_expanded(r, inner, 0, depth + 1);
  free(text);
}

/* ---- CUDA code in objects ---- */

/* What CUDA code leaves in an object file (and so in an archive of them). */
static const struct {
  const char *mark;
  bool relocatable;
} cuda_object_marks[] = {
    /* whole-program device code: the host code registers its fat binary */
    {"__cudaRegisterFatBinary", false},
    /* relocatable device code (clang -fgpu-rdc), still to be linked */
    {".llvm.offloading", true},
};

static void read_object_for_cuda(Request *req, const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return; /* clang reports it */
  struct stat st;
  void *bytes = MAP_FAILED;
  if (fstat(fd, &st) == 0 && st.st_size > 0)
    bytes = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (bytes == MAP_FAILED)
    return;
  for (size_t i = 0; i < COUNT(cuda_object_marks); i++) {
    const char *mark = cuda_object_marks[i].mark;
    if (memmem(bytes, (size_t)st.st_size, mark, strlen(mark))) {
      req->cuda_object = true;
      req->rdc_object |= cuda_object_marks[i].relocatable;
    }
  }
  munmap(bytes, (size_t)st.st_size);
}

static bool links(const Request *req) {
  return req->has_input && !req->no_link;
}

static Request read_request(int argc, char **argv) {
  Request req = {0};
  req.c_source = reallocate(NULL, (size_t)argc * sizeof *req.c_source);
  memset(req.c_source, 0, (size_t)argc * sizeof *req.c_source);
  Reader reader = {.req = &req, .x_language = BY_SUFFIX};
  for (int i = 1; i < argc; i++)
    read_expanded(&reader, argv[i], i, 0);
  if (links(&req))
    for (int i = 0; i < req.objects.count; i++)
      read_object_for_cuda(&req, req.objects.args[i]);
  return req;
}

static bool cuda_link(const Request *req) {
  return links(req) && (req->cuda_source || req->cuda_object);
}

/* A link naming the CUDA driver or runtime (a C program of the driver API)
 * gets them whole: the Kinase runtime it links calls both. It stays a C
 * link. */
static bool links_cuda_libraries(const Request *req) {
  return cuda_link(req) || (links(req) && req->cuda_library);
}

static bool needs_cxx(const Request *req) {
  return cxx_driver || req->cxx_source || req->cuda_source || cuda_link(req);
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
    fail("CUDA code (a CUDA source, or an object holding CUDA code), but no CUDA "
         "toolkit at %s (set KINASE_CUDA_PATH or pass --cuda-path=DIR)",
         root);
}

/* ---- the clang command ---- */

static void add_kinase(ArgList *cmd, const char *prefix) {
  char *plugin = concat(prefix, "/lib/Kinase.so");
  if (!is_file(plugin))
    fail("the Kinase plugin is missing: %s (build the Kinase target)", plugin);
  add(cmd, "-Wno-unused-command-line-argument");
  add(cmd, concat("-fplugin=", plugin));
  add(cmd, concat("-fpass-plugin=", plugin));
  add(cmd, concat("-I", include_dir(prefix)));
  /* Enzyme's attributes, unknown to clang, become annotations the pass reads
   * (the same macros as in kinase.h). Not enzyme_nofree, which is also the
   * name of a marker programs declare (`int enzyme_nofree;`, for split
   * mode), and which Kinase needs not as an attribute. */
  static const char *const enzyme_attributes[] = {
      "-Denzyme_inactive=annotate(\"enzyme_inactive\")",
      "-Denzyme_inactive_noblock=annotate(\"enzyme_inactive_noblock\")",
      "-Denzyme_function_like(name)=annotate(\"enzyme_function_like\", name)",
      "-Denzyme_shouldrecompute=annotate(\"enzyme_shouldrecompute\")",
      "-Denzyme_elementwise_read=annotate(\"enzyme_elementwise_read\")",
      "-Denzyme_sparse_accumulate=annotate(\"enzyme_sparse_accumulate\")",
      "-Denzyme_shadow(g)=annotate(\"enzyme_shadow\", &(g))",
  };
  for (size_t i = 0; i < sizeof enzyme_attributes / sizeof *enzyme_attributes; i++)
    add(cmd, enzyme_attributes[i]);
}

/* The toolkit, for compiling CUDA and for linking device code. */
static void add_cuda_toolkit(ArgList *cmd, const Request *req, const char *root) {
  require_cuda(root);
  if (!req->cuda_path)
    add(cmd, concat("--cuda-path=", root));
  add(cmd, "-Wno-unknown-cuda-version");
}

/* C and C++ programs of the CUDA driver or runtime API (#include <cuda.h>)
 * find the toolkit's headers as CUDA sources do, searched after every
 * directory of the user's and the system's. CUDA 13 keeps CCCL (cuda/std,
 * cub, thrust, which cooperative_groups.h includes) in include/cccl, which
 * nvcc searches and clang does not: it comes next. */
static void add_cuda_headers(ArgList *cmd, const char *root) {
  char *include = concat(root, "/include");
  if (!is_file(concat(include, "/cuda.h")))
    return;
  add(cmd, "-idirafter");
  add(cmd, include);
  char *cccl = concat(include, "/cccl");
  if (is_file(concat(cccl, "/cuda/std/type_traits"))) {
    add(cmd, "-idirafter");
    add(cmd, cccl);
  }
}

/* The user's arguments, in order; under clang++, C sources stay C (but
 * for kinase-c++, which is clang++). */
static void add_user_arguments(ArgList *cmd, int argc, char **argv, const Request *req) {
  bool keep_c = needs_cxx(req) && !cxx_driver;
  for (int i = 1; i < argc; i++) {
    if (keep_c && req->c_source[i]) {
      add(cmd, "-x");
      add(cmd, "c");
      add(cmd, argv[i]);
      add(cmd, "-x");
      add(cmd, "none");
    } else {
      add(cmd, argv[i]);
    }
  }
}

static void add_runtime(ArgList *cmd, const char *prefix) {
  char *runtime = concat(prefix, "/lib/libkinase_rt.a");
  if (!is_file(runtime))
    fail("the Kinase runtime is missing: %s (build the kinase_rt target)", runtime);
  add(cmd, runtime);
}

/* cudart and the driver; a toolkit without a driver (a build machine) has
 * libcuda.so only among its link stubs, whose soname is the real driver's.
 * Relocatable device code in objects is linked by clang-linker-wrapper,
 * which clang runs for a link of objects only if told to. */
static void add_cuda_link(ArgList *cmd, const Request *req, const char *root) {
  const char *libdir = cuda_library_dir(root);
  char *stubs = concat(libdir, "/stubs");
  add(cmd, concat("-L", libdir));
  if (is_dir(stubs))
    add(cmd, concat("-L", stubs));
  add(cmd, "-lcudart");
  add(cmd, "-lcuda");
  add(cmd, concat("-Wl,-rpath,", libdir));
  if (req->rdc_object)
    add(cmd, "--offload-link");
}

static const char *clang_path(const Request *req) {
  return needs_cxx(req) ? KINASE_CLANG_BINDIR "/clang++" : KINASE_CLANG_BINDIR "/clang";
}

static ArgList build_command(int argc, char **argv, const Request *req) {
  ArgList cmd = {0};
  const char *prefix = install_prefix();
  const char *root = cuda_root(req);

  add(&cmd, clang_path(req));
  add_kinase(&cmd, prefix);
  add_cuda_headers(&cmd, root);
  if (req->cuda_source || cuda_link(req))
    add_cuda_toolkit(&cmd, req, root);
  if (req->cuda_source && !req->gpu_arch)
    add(&cmd, "--cuda-gpu-arch=" DEFAULT_GPU_ARCH);
  /* Line tables, which change no code, so that Kinase's errors name the
   * source line; the user's own -g option (-g0 included) decides instead. */
  if (!req->debug_chosen)
    add(&cmd, "-gline-tables-only");
  add_user_arguments(&cmd, argc, argv, req);
  if (links(req)) {
    /* What follows is the driver's: no -x of the user's applies to it. */
    add(&cmd, "-x");
    add(&cmd, "none");
    add_runtime(&cmd, prefix);
  }
  if (links_cuda_libraries(req))
    add_cuda_link(&cmd, req, root);
  return cmd;
}

static _Noreturn void run(const ArgList *cmd) {
  fflush(stdout);
  execv(cmd->args[0], (char *const *)cmd->args);
  perror(cmd->args[0]);
  exit(127);
}

/* ---- --version and --help ---- */

static _Noreturn void print_version(const Request *req) {
  printf("%s (Kinase) %s\n", driver_name, KINASE_VERSION);
  ArgList cmd = {0};
  add(&cmd, clang_path(req));
  add(&cmd, "--version");
  run(&cmd);
}

static void print_help(void) {
  printf("usage: %s [clang options] file...\n"
         "\n"
         "Compiles C, C++ and CUDA like %s, with Kinase differentiating the calls\n"
         "of __enzyme_autodiff and __enzyme_fwddiff (declared in kinase.h).\n"
         "\n"
         "Kinase options:\n"
         "  -mllvm -kinase-print  print the IR of every derivative generated\n"
         "  -mllvm -kinase-list   list the functions differentiated\n"
         "  -Rpass-missed=kinase  say which values are recorded on the tape and which\n"
         "                        adjoints are atomic adds, and why, at the source line\n"
         "  -Rpass=kinase         say which loads are recomputed and which adds are plain\n"
         "  -mllvm -kinase-remarks  both of these\n"
         "  KINASE_PRINT=1, KINASE_LIST=1, KINASE_REMARKS=1 in the environment do the same\n"
         "  KINASE_CUDA_PATH=DIR  the CUDA toolkit (default %s)\n"
         "\n"
         "Sources are compiled with -gline-tables-only (so that Kinase's errors name\n"
         "the source line) unless a -g option is given (-g0 for none).\n"
         "CUDA sources (.cu, -x cuda) get --cuda-path and --cuda-gpu-arch=%s unless\n"
         "given. A link of CUDA sources or of objects holding CUDA code gets cudart,\n"
         "the CUDA driver and, for -fgpu-rdc objects, --offload-link; a link naming\n"
         "-lcuda or -lcudart gets cudart and the driver, which the Kinase runtime calls.\n"
         "\n"
         "All clang options are accepted and passed on in order; see clang --help.\n"
         "kinase-c++ is the same driver as clang++: it always links the C++ library\n"
         "and compiles .c files as C++.\n",
         driver_name, cxx_driver ? "clang++" : "clang", KINASE_CUDA_ROOT, DEFAULT_GPU_ARCH);
}

/* kinase-c++ (any name ending in ++) is the C++ driver. */
static void name_driver(const char *argv0) {
  const char *slash = strrchr(argv0, '/');
  const char *name = slash ? slash + 1 : argv0;
  cxx_driver = ends_with(name, "++");
  driver_name = cxx_driver ? "kinase-c++" : "kinase-cc";
}

int main(int argc, char **argv) {
  name_driver(argc ? argv[0] : "kinase-cc");
  Request req = read_request(argc, argv);
  if (req.help) {
    print_help();
    return 0;
  }
  if (req.version)
    print_version(&req);
  ArgList cmd = build_command(argc, argv, &req);
  run(&cmd);
}
