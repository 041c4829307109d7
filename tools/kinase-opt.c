/* kinase-opt: runs the Kinase transform on an IR or bitcode file outside
 * clang, so that it can be fuzzed and run under the sanitizers.
 *
 *   kinase-opt [--wrap] [--print] [--list] [--remarks] [-o out.ll|out.bc] in.ll|in.bc
 *
 * --wrap first adds, for every function defined in the module, requests for
 * its derivatives (forward and reverse, with the default activities and with
 * one active parameter at a time), as a user would write them.
 *
 * Exit status: 0 transformed and valid; 1 the transform reported errors
 * (clean diagnostics); 2 the input could not be read; 3 the result is not
 * valid IR (a bug in Kinase). */
#include "kinase.h"

#include <llvm-c/BitWriter.h>
#include <llvm-c/IRReader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kn_run_on_module(LLVMModuleRef module);

static bool print_option, list_option, remarks_option;
static int reported;

int kn_option_print(void) { return print_option; }
int kn_option_list(void) { return list_option; }
int kn_option_remarks(void) { return remarks_option; }

/* No diagnostic handler chooses remarks here: --remarks has them printed
 * as -mllvm -kinase-remarks does under clang (core/remark.c). */
int kn_remark_enabled(LLVMContextRef context, int missed) {
  (void)context, (void)missed;
  return 0;
}

int kn_remark_recorded(LLVMContextRef context) {
  (void)context;
  return 0;
}

void kn_report_remark(LLVMContextRef context, LLVMValueRef function, LLVMMetadataRef location,
                      int missed, const char *name, const char *message) {
  (void)context, (void)function, (void)location, (void)missed, (void)name;
  kn_die("remark without a handler: %s", message);
}

/* What plugin.cpp does through clang, done here on stderr. */
void kn_report_error(LLVMContextRef context, LLVMValueRef function, LLVMMetadataRef location,
                     const char *message) {
  (void)context, (void)function;
  reported++;
  if (location) {
    unsigned len = 0;
    LLVMMetadataRef file = LLVMDIScopeGetFile(LLVMDILocationGetScope(location));
    const char *name = file ? LLVMDIFileGetFilename(file, &len) : NULL;
    fprintf(stderr, "%.*s:%u:%u: ", (int)len, name ? name : "", LLVMDILocationGetLine(location),
            LLVMDILocationGetColumn(location));
  }
  fprintf(stderr, "error: %s\n", message);
}

/* ---- --wrap: requests for every function ---- */

static LLVMValueRef marker(LLVMModuleRef mod, const char *name) {
  LLVMValueRef g = LLVMGetNamedGlobal(mod, name);
  if (!g)
    g = LLVMAddGlobal(mod, LLVMInt32TypeInContext(LLVMGetModuleContext(mod)), name);
  return g;
}

static LLVMValueRef entry_point(LLVMModuleRef mod, const char *name) {
  LLVMContextRef ctx = LLVMGetModuleContext(mod);
  LLVMValueRef fn = LLVMGetNamedFunction(mod, name);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
  if (!fn)
    fn = LLVMAddFunction(mod, name, LLVMFunctionType(LLVMVoidTypeInContext(ctx), &ptr, 1, 1));
  return fn;
}

static bool differentiable(LLVMTypeRef type, Mode mode) {
  if (kn_is_pointer_type(type))
    return LLVMGetTypeKind(type) == LLVMPointerTypeKind;
  return mode == MODE_FORWARD ? kn_is_float_type(type)
                              : kn_is_float_type(type) && LLVMGetTypeKind(type) != LLVMVectorTypeKind;
}

/* One request: parameter `only` active (or all differentiable ones, for
 * only < 0), the others enzyme_const. */
static void add_request(LLVMModuleRef mod, LLVMValueRef fn, Mode mode, int only, unsigned serial) {
  LLVMContextRef ctx = LLVMGetModuleContext(mod);
  unsigned n = LLVMCountParams(fn);
  LLVMTypeRef params[KN_MAX_PARAMS], wrapper_params[2 * KN_MAX_PARAMS];
  LLVMGetParamTypes(LLVMGlobalGetValueType(fn), params);
  bool active[KN_MAX_PARAMS];
  unsigned nw = 0;
  for (unsigned i = 0; i < n; i++) {
    active[i] = differentiable(params[i], mode) && (only < 0 || (unsigned)only == i);
    wrapper_params[nw++] = params[i];
    if (active[i] && (mode == MODE_FORWARD || kn_is_pointer_type(params[i])))
      wrapper_params[nw++] = params[i];
  }
  char *name = kn_strdup_printf("kinase.fuzz.%s.%s.%u", mode == MODE_FORWARD ? "fwd" : "rev",
                                kn_function_name(fn), serial);
  LLVMValueRef wrapper = LLVMAddFunction(
      mod, name, LLVMFunctionType(LLVMVoidTypeInContext(ctx), wrapper_params, nw, 0));
  free(name);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, wrapper, "entry"));
  LLVMValueRef args[3 * KN_MAX_PARAMS + 1];
  unsigned na = 0, k = 0;
  args[na++] = fn;
  for (unsigned i = 0; i < n; i++) {
    bool shadowed = active[i] && (mode == MODE_FORWARD || kn_is_pointer_type(params[i]));
    const char *which = !active[i] ? "enzyme_const" : shadowed ? "enzyme_dup" : "enzyme_out";
    args[na++] = LLVMBuildLoad2(b, LLVMInt32TypeInContext(ctx), marker(mod, which), "");
    args[na++] = LLVMGetParam(wrapper, k++);
    if (shadowed)
      args[na++] = LLVMGetParam(wrapper, k++);
  }
  LLVMValueRef entry = entry_point(mod, mode == MODE_FORWARD ? "__enzyme_fwddiff" : "__enzyme_autodiff");
  LLVMBuildCall2(b, LLVMGlobalGetValueType(entry), entry, args, na, "");
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
}

static void wrap_functions(LLVMModuleRef mod) {
  LLVMValueRef *fns = NULL;
  size_t count = 0, cap = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn)) {
    if (LLVMIsDeclaration(fn) || LLVMCountParams(fn) > KN_MAX_PARAMS ||
        LLVMIsFunctionVarArg(LLVMGlobalGetValueType(fn)))
      continue;
    if (count == cap) {
      cap = cap ? 2 * cap : 16;
      fns = realloc(fns, cap * sizeof *fns);
      if (!fns)
        kn_die("out of memory");
    }
    fns[count++] = fn;
  }
  for (size_t f = 0; f < count; f++)
    for (Mode mode = MODE_FORWARD; mode <= MODE_REVERSE; mode++) {
      unsigned serial = 0;
      add_request(mod, fns[f], mode, -1, serial++);
      for (unsigned i = 0; i < LLVMCountParams(fns[f]) && serial < 4; i++) {
        LLVMTypeRef type = LLVMTypeOf(LLVMGetParam(fns[f], i));
        if (differentiable(type, mode))
          add_request(mod, fns[f], mode, (int)i, serial++);
      }
    }
  free(fns);
}

/* ---- main ---- */

static int usage(void) {
  fputs("usage: kinase-opt [--wrap] [--print] [--list] [--remarks] [-o out.ll|out.bc] in.ll|in.bc\n", stderr);
  return 2;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

int main(int argc, char **argv) {
  const char *input = NULL, *output = NULL;
  bool wrap = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--wrap"))
      wrap = true;
    else if (!strcmp(argv[i], "--print"))
      print_option = true;
    else if (!strcmp(argv[i], "--list"))
      list_option = true;
    else if (!strcmp(argv[i], "--remarks"))
      remarks_option = true;
    else if (!strcmp(argv[i], "-o") && i + 1 < argc)
      output = argv[++i];
    else if (!strcmp(argv[i], "--version"))
      return printf("kinase-opt (Kinase) %s\n", KINASE_VERSION), 0;
    else if (argv[i][0] == '-' || input)
      return usage();
    else
      input = argv[i];
  }
  if (!input)
    return usage();

  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buffer;
  LLVMModuleRef mod;
  char *message = NULL;
  if (LLVMCreateMemoryBufferWithContentsOfFile(input, &buffer, &message) ||
      LLVMParseIRInContext(ctx, buffer, &mod, &message)) {
    fprintf(stderr, "kinase-opt: cannot read %s: %s\n", input, message ? message : "");
    LLVMDisposeMessage(message);
    return 2;
  }
  if (wrap)
    wrap_functions(mod);
  kn_run_on_module(mod);
  int status = reported ? 1 : 0;
  if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &message)) {
    fprintf(stderr, "kinase-opt: the transformed module is not valid IR:\n%s\n", message);
    status = 3;
  }
  LLVMDisposeMessage(message);
  if (output && status != 3) {
    if (ends_with(output, ".bc") ? LLVMWriteBitcodeToFile(mod, output) != 0
                                 : LLVMPrintModuleToFile(mod, output, &message) != 0) {
      fprintf(stderr, "kinase-opt: cannot write %s\n", output);
      status = 2;
    }
  }
  LLVMDisposeModule(mod);
  LLVMContextDispose(ctx);
  return status;
}
