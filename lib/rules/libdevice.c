/* libdevice on demand. In a CUDA device module clang links in only the
 * __nv_* functions the user's code calls, before Kinase runs; derivatives
 * call others (the derivative of __nv_sin calls __nv_cos), which this links
 * from the toolkit's libdevice.10.bc, with what they call, as internal
 * functions. */
#include "kinase.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>
#include <stb/stb_ds.h>
#include <stdlib.h>
#include <string.h>

#ifndef KINASE_CUDA_ROOT
#define KINASE_CUDA_ROOT "/usr/local/cuda"
#endif

static char *libdevice_path(void) {
  const char *root = getenv("KINASE_CUDA_PATH");
  return kn_strdup_printf("%s/nvvm/libdevice/libdevice.10.bc", root && *root ? root : KINASE_CUDA_ROOT);
}

/* __nv_* functions called by the module but not defined in it. */
static char **missing_functions(void) {
  char **names = NULL;
  for (LLVMValueRef fn = LLVMGetFirstFunction(kn_module.mod); fn; fn = LLVMGetNextFunction(fn))
    if (LLVMIsDeclaration(fn) && LLVMGetFirstUse(fn) && !strncmp(kn_function_name(fn), "__nv_", 5))
      arrput(names, (char *)kn_function_name(fn));
  return names;
}

static void keep_with_callees(LLVMValueRef fn, ValueSet *keep) {
  if (!fn || LLVMIsDeclaration(fn) || !vset_add(keep, fn))
    return;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = LLVMGetNextInstruction(inst))
      for (int i = 0, n = LLVMGetNumOperands(inst); i < n; i++) {
        LLVMValueRef op = kn_strip_casts(LLVMGetOperand(inst, (unsigned)i));
        if (LLVMIsAFunction(op))
          keep_with_callees(op, keep);
      }
}

/* Strips `lib` down to `names` and what they call; returns the names of the
 * functions it keeps. */
static char **prune(LLVMModuleRef lib, char **names) {
  ValueSet keep = {0};
  for (ptrdiff_t i = 0; i < arrlen(names); i++)
    keep_with_callees(LLVMGetNamedFunction(lib, names[i]), &keep);
  LLVMValueRef *unused = NULL;
  for (LLVMValueRef fn = LLVMGetFirstFunction(lib); fn; fn = LLVMGetNextFunction(fn))
    if (!vset_has(&keep, fn) && !LLVMIsDeclaration(fn))
      arrput(unused, fn);
  for (ptrdiff_t i = 0; i < arrlen(unused); i++)
    LLVMDeleteFunction(unused[i]);
  char **kept = NULL;
  for (LLVMValueRef fn = LLVMGetFirstFunction(lib); fn; fn = LLVMGetNextFunction(fn))
    if (!LLVMIsDeclaration(fn))
      arrput(kept, kn_strdup_printf("%s", kn_function_name(fn)));
  arrfree(unused);
  vset_free(&keep);
  return kept;
}

/* Internal once linked, so that they are dropped when unused and never
 * clash with another translation unit's copy. */
static void internalize(char **kept) {
  for (ptrdiff_t i = 0; i < arrlen(kept); i++) {
    LLVMValueRef fn = LLVMGetNamedFunction(kn_module.mod, kept[i]);
    if (fn && !LLVMIsDeclaration(fn))
      LLVMSetLinkage(fn, LLVMInternalLinkage);
    free(kept[i]);
  }
  arrfree(kept);
}

void libdevice_link_missing(void) {
  char **names = missing_functions();
  if (!arrlen(names))
    return;
  char *path = libdevice_path(), *message = NULL;
  LLVMMemoryBufferRef buffer;
  LLVMModuleRef lib;
  if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buffer, &message)) {
    LLVMValueRef first_caller = LLVMGetUser(LLVMGetFirstUse(LLVMGetNamedFunction(kn_module.mod, names[0])));
    kn_error(first_caller, NULL, "the derivative needs '%s' from libdevice, which is not at %s (set KINASE_CUDA_PATH)",
             names[0], path);
    LLVMDisposeMessage(message);
  } else if (LLVMParseBitcodeInContext2(kn_module.ctx, buffer, &lib)) {
    kn_die("cannot read %s", path);
  } else {
    char **kept = prune(lib, names);
    LLVMSetTarget(lib, LLVMGetTarget(kn_module.mod));
    LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(kn_module.mod));
    if (LLVMLinkModules2(kn_module.mod, lib))
      kn_die("linking %s failed", path);
    internalize(kept);
  }
  if (!message)
    LLVMDisposeMemoryBuffer(buffer);
  free(path);
  arrfree(names);
}
