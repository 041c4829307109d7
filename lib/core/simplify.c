/* Pass pipelines run on the copies Kinase differentiates and on what it
 * generates. Before: fewer allocas, loads and blocks mean fewer shadows.
 * After: tidy the derivative so even -O0 builds get reasonable code; the
 * user's -O level optimises it further. */
#include "kinase.h"

#include <llvm-c/Transforms/PassBuilder.h>
#include <stb/stb_ds.h>
#include <stdio.h>

static void check(LLVMErrorRef err, const char *pipeline) {
  if (err) {
    char *msg = LLVMGetErrorMessage(err);
    kn_die("pipeline '%s' failed: %s", pipeline, msg);
  }
}

static void run(LLVMValueRef fn, const char *pipeline) {
  LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
  LLVMErrorRef err = LLVMRunPassesOnFunction(fn, pipeline, NULL, options);
  LLVMDisposePassBuilderOptions(options);
  check(err, pipeline);
}

/* Functions marked alwaysinline (libdevice's, CUDA's builtin wrappers) keep
 * their calls meanwhile: a math call must stay a call to meet its rule. */
void simplify_inline_marked_calls(void) {
  unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  LLVMValueRef *marked = NULL;
  for (LLVMValueRef fn = LLVMGetFirstFunction(kn_module.mod); fn; fn = LLVMGetNextFunction(fn))
    if (LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, always)) {
      LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, always);
      arrput(marked, fn);
    }
  LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
  LLVMErrorRef err = LLVMRunPasses(kn_module.mod, "always-inline", NULL, options);
  LLVMDisposePassBuilderOptions(options);
  for (ptrdiff_t i = 0; i < arrlen(marked); i++)
    LLVMAddAttributeAtIndex(marked[i], LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(kn_module.ctx, always, 0));
  arrfree(marked);
  check(err, "always-inline");
}

/* The copy carries none of the user's attributes, so -O0's optnone does not
 * stop these pipelines. simplify_before is the two halves in turn. */
void simplify_registers(LLVMValueRef fn) { run(fn, "sroa"); }

void simplify_control(LLVMValueRef fn) {
  run(fn, "early-cse,simplifycfg,instcombine<no-verify-fixpoint>,simplifycfg,loop-simplify,lcssa");
}

void simplify_before(LLVMValueRef fn) {
  simplify_registers(fn);
  simplify_control(fn);
}

void simplify_after(LLVMValueRef fn) {
  run(fn, "sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,adce");
}
