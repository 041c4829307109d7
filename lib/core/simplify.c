/* Pass pipelines run on the copies Kinase differentiates and on what it
 * generates. Before: fewer allocas, loads and blocks mean fewer shadows.
 * After: tidy the derivative so even -O0 builds get reasonable code; the
 * user's -O level optimises it further. */
#include "kinase.h"

#include <llvm-c/Transforms/PassBuilder.h>
#include <stdio.h>

static void run(LLVMValueRef fn, const char *pipeline) {
  LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
  LLVMErrorRef err = LLVMRunPassesOnFunction(fn, pipeline, NULL, options);
  LLVMDisposePassBuilderOptions(options);
  if (err) {
    char *msg = LLVMGetErrorMessage(err);
    kn_die("pipeline '%s' failed: %s", pipeline, msg);
  }
}

/* The copy carries none of the user's attributes, so -O0's optnone does not
 * stop this pipeline. */
void simplify_before(LLVMValueRef fn) {
  run(fn, "sroa,early-cse,simplifycfg,instcombine<no-verify-fixpoint>,simplifycfg,loop-simplify,lcssa");
}

void simplify_after(LLVMValueRef fn) {
  run(fn, "sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,adce");
}
