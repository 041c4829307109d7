/* User-facing errors: what the user wrote that Kinase cannot differentiate.
 * They go through LLVMContext::diagnose (plugin.cpp), so clang prints them
 * with the source location and fails the compilation. */
#include "kinase.h"

#include <string.h>

#include <stdarg.h>
#include <stdio.h>
#include <stb/stb_ds.h>
#include <stdlib.h>

void kn_report_error(LLVMContextRef context, LLVMValueRef function, LLVMMetadataRef location,
                     const char *message);

static int error_count;
/* While set (kn_capture_errors), errors land here instead: the first one's
 * message, for code generated speculatively (derivative kernels). */
static char **capture;
/* One function differentiated twice (both modes, several activities) would
 * say the same thing twice. */
static struct { char *key; int value; } *said;

int kn_error_count(void) { return error_count; }

void kn_capture_errors(char **first) { capture = first; }

/* Code inlined from a header (CUDA's atomicAdd, clang's wrappers) is
 * reported where the source file called it. */
static bool in_header(LLVMMetadataRef loc) {
  unsigned length = 0;
  LLVMMetadataRef file = LLVMDIScopeGetFile(LLVMDILocationGetScope(loc));
  const char *name = file ? LLVMDIFileGetFilename(file, &length) : NULL;
  static const char *const suffixes[] = {".h", ".hpp", ".hh", ".inl", ".cuh"};
  for (size_t i = 0; name && i < sizeof suffixes / sizeof *suffixes; i++) {
    size_t n = strlen(suffixes[i]);
    if (length >= n && !strncmp(name + length - n, suffixes[i], n))
      return true;
  }
  return false;
}

static LLVMMetadataRef line_of(LLVMValueRef inst) {
  LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(inst);
  while (loc && LLVMDILocationGetInlinedAt(loc) && in_header(loc))
    loc = LLVMDILocationGetInlinedAt(loc);
  return loc && LLVMDILocationGetLine(loc) ? loc : NULL;
}

/* Merged or moved instructions carry line 0; a neighbour in the block is the
 * best place to point at. */
static LLVMMetadataRef location_near(LLVMValueRef inst) {
  LLVMMetadataRef loc = line_of(inst);
  for (LLVMValueRef i = LLVMGetPreviousInstruction(inst); i && !loc; i = LLVMGetPreviousInstruction(i))
    loc = line_of(i);
  for (LLVMValueRef i = LLVMGetNextInstruction(inst); i && !loc; i = LLVMGetNextInstruction(i))
    loc = line_of(i);
  /* A block of the compiler's own (a computed goto's dispatch) has no line:
   * the branches into it do. */
  LLVMBasicBlockRef here = LLVMGetInstructionParent(inst);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(LLVMGetBasicBlockParent(here)); bb && !loc;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    for (unsigned i = 0, n = term ? LLVMGetNumSuccessors(term) : 0; i < n && !loc; i++)
      if (LLVMGetSuccessor(term, i) == here)
        loc = line_of(term);
  }
  return loc;
}

LLVMMetadataRef kn_source_location(LLVMValueRef inst) { return location_near(inst); }

bool kn_location_in_header(LLVMMetadataRef location) { return location && in_header(location); }

static UserCallFinder user_call_finder;

void kn_set_user_call_finder(UserCallFinder finder) { user_call_finder = finder; }


/* The C++ runtime's demangler (C linkage; the plugin and kinase-opt link
 * libstdc++): users know `Model::energy(double const*)`, not
 * `_ZN5Model6energyEPKd`. */
char *__cxa_demangle(const char *mangled, char *buffer, size_t *length, int *status);

/* `message` with every quoted Itanium name ('_Z...') demangled, so that every
 * diagnostic names functions as the source does, whichever part of Kinase
 * worded it. */
static char *demangled(const char *message) {
  char *out = kn_strdup_printf("%s", "");
  const char *rest = message;
  for (const char *open; (open = strstr(rest, "'_Z"));) {
    const char *close = strchr(open + 1, '\'');
    if (!close)
      break;
    char *mangled = kn_strdup_printf("%.*s", (int)(close - open - 1), open + 1);
    int status = -1;
    char *name = __cxa_demangle(mangled, NULL, NULL, &status);
    char *longer = kn_strdup_printf("%s%.*s%s", out, (int)(open + 1 - rest), rest,
                                    status == 0 && name ? name : mangled);
    free(out);
    free(name);
    free(mangled);
    out = longer;
    rest = close;
  }
  char *whole = kn_strdup_printf("%s%s", out, rest);
  free(out);
  return whole;
}

/* " at FILE:LINE" of `at`'s debug location, or "" where it has none. */
static void source_position(LLVMValueRef at, char *where, size_t size) {
  LLVMMetadataRef loc = at ? LLVMInstructionGetDebugLoc(at) : NULL;
  where[0] = 0;
  if (loc && LLVMDILocationGetLine(loc)) {
    unsigned length = 0;
    const char *file = LLVMDIFileGetFilename(LLVMDIScopeGetFile(LLVMDILocationGetScope(loc)), &length);
    snprintf(where, size, " at %.*s:%u", (int)length, file, LLVMDILocationGetLine(loc));
  }
}

void kn_stop_here(LLVMBuilderRef b, LLVMValueRef at, const char *message) {
  LLVMContextRef ctx = kn_module.ctx;
  if (kn_module.gpu) {
    kn_call_libc(b, "llvm.trap", LLVMVoidTypeInContext(ctx), NULL, 0);
    return;
  }
  char where[512];
  source_position(at, where, sizeof where);
  char *shown = demangled(message);
  char *text = kn_strdup_printf("kinase: %s%s\n", shown, where);
  free(shown);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), i64 = LLVMInt64TypeInContext(ctx);
  LLVMValueRef args[3] = {LLVMConstInt(i32, 2, 0), LLVMBuildGlobalString(b, text, "kinase.msg"),
                          LLVMConstInt(i64, strlen(text), 0)};
  kn_call_libc(b, "write", i64, args, 3);
  kn_call_libc(b, "abort", LLVMVoidTypeInContext(ctx), NULL, 0);
  free(text);
}

/* What was captured: the reason, its names demangled (the runtime prints
 * it as a kernel's reason), and where when known ("file.cu:12"). */
static char *captured(const char *what, LLVMMetadataRef location) {
  char *readable = demangled(what);
  if (!location)
    return readable;
  unsigned length = 0;
  LLVMMetadataRef file = LLVMDIScopeGetFile(LLVMDILocationGetScope(location));
  const char *name = file ? LLVMDIFileGetFilename(file, &length) : "";
  char *located = kn_strdup_printf("%s (%.*s:%u)", readable, (int)length, name, LLVMDILocationGetLine(location));
  free(readable);
  return located;
}

void kn_error(LLVMValueRef where, LLVMValueRef subject, const char *fmt, ...) {
  char what[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);

  LLVMMetadataRef location = NULL;
  LLVMValueRef function = subject;
  if (where && LLVMIsAInstruction(where)) {
    location = location_near(where);
    if (!function)
      function = LLVMGetBasicBlockParent(LLVMGetInstructionParent(where));
  }
  /* In a header function: at the user's call that reaches it, naming it. */
  LLVMValueRef user = NULL;
  LLVMValueRef call = location && in_header(location) && subject && user_call_finder
                          ? user_call_finder(subject, &user)
                          : NULL;
  LLVMMetadataRef at_call = call ? location_near(call) : NULL;
  if (at_call && !in_header(at_call)) {
    unsigned length = 0;
    LLVMMetadataRef file = LLVMDIScopeGetFile(LLVMDILocationGetScope(location));
    const char *name = file ? LLVMDIFileGetFilename(file, &length) : "";
    unsigned base = length;
    while (base > 0 && name[base - 1] != '/')
      base--;
    char reached[1024];
    snprintf(reached, sizeof reached, "in '%s' (%.*s:%u), which it reaches here: %s", kn_function_name(subject),
             (int)(length - base), name + base, LLVMDILocationGetLine(location), what);
    memcpy(what, reached, sizeof what);
    location = at_call;
    function = subject = user;
  }
  const char *hint = location || !function || LLVMGetSubprogram(function)
                         ? ""
                         : " (compile with -g for the source line)";
  char *message = subject    ? kn_strdup_printf("kinase: cannot differentiate '%s': %s%s",
                                                kn_function_name(subject), what, hint)
                  : function ? kn_strdup_printf("kinase: in function '%s': %s%s",
                                                kn_function_name(function), what, hint)
                             : kn_strdup_printf("kinase: %s", what);
  if (capture) {
    if (!*capture)
      *capture = captured(what, location);
    free(message);
    return;
  }
  char *key = kn_strdup_printf("%p|%s", (void *)location, message);
  if (!said)
    sh_new_strdup(said);
  if (shgeti(said, key) < 0) {
    shput(said, key, 1);
    error_count++;
    char *shown = demangled(message);
    kn_report_error(kn_module.ctx, function, location, shown);
    free(shown);
  }
  free(key);
  free(message);
}
